//! The list and detail of Instant Wins, with every parameter.

use super::*;

#[tokio::test]
async fn the_list_and_detail_take_every_parameter() {
    let setup = setup().await;
    let (status, created) = setup
        .server
        .call_as(
            "POST",
            "/customers",
            &setup.key,
            Some(json!({"email": "lister@example.com", "code": "LIST-1"})),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let customer = created["id"].as_str().unwrap().to_string();
    let (status, all) = setup.get("/instant_wins").await;
    assert_eq!(status, 200, "{all}");
    let ids = |page: &Value| -> Vec<i64> {
        page["instant_wins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids(&all), [20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    assert!(
        all["instant_wins"][0]
            .get("remaining_participations")
            .is_none()
    );
    insta::assert_json_snapshot!("instant_win_detail_25", all["instant_wins"][5]);

    let (_, first) = setup.get("/instant_wins?per_page=3").await;
    assert_eq!(ids(&first), [20, 21, 22]);
    assert_eq!(first["next_token_starts_after"], "22");
    let (_, second) = setup
        .get("/instant_wins?per_page=3&starting_after=22")
        .await;
    assert_eq!(ids(&second), [23, 24, 25]);
    let (_, third) = setup
        .get("/instant_wins?per_page=3&starting_after=25")
        .await;
    assert_eq!(ids(&third), [26, 27, 28]);
    assert_eq!(third["next_token_starts_after"], "28");
    let (_, last) = setup
        .get("/instant_wins?per_page=3&starting_after=28")
        .await;
    assert_eq!(ids(&last), [29]);
    assert!(last.get("next_token_starts_after").is_none());

    let (_, targeted) = setup.get("/instant_wins?campaign_audience=targeted").await;
    assert_eq!(ids(&targeted), [24]);
    let (_, at_store) = setup.get("/instant_wins?location_code=STORE1").await;
    assert!(ids(&at_store).contains(&25));
    let (_, elsewhere) = setup.get("/instant_wins?location_id=STORE9").await;
    assert!(!ids(&elsewhere).contains(&25), "25 runs at STORE1 only");
    let (_, france) = setup.get("/instant_wins?countries=fr,it").await;
    assert!(ids(&france).contains(&27) && !ids(&france).contains(&25));
    let (_, silver) = setup.get("/instant_wins?tier_id=silver").await;
    assert!(!ids(&silver).contains(&27));
    let (_, gold) = setup.get("/instant_wins?tier_id=gold").await;
    assert!(ids(&gold).contains(&27));

    // For a Customer: loyalty campaigns plus the targeted ones they hold.
    setup.event(&customer, "visit", json!({})).await;
    let (_, mine) = setup
        .get(&format!("/instant_wins?customer_id={customer}"))
        .await;
    assert!(!ids(&mine).contains(&24), "no Voucher yet");
    assert_eq!(mine["instant_wins"][0]["remaining_participations"], 1);
    let vouchers = setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 24, std::slice::from_ref(&customer))
        .await
        .unwrap();
    assert_eq!(
        vouchers[0].coupon_name, "VIP ticket",
        "in the default language"
    );
    let (_, held) = setup
        .get("/instant_wins?customer_code=LIST-1&campaign_audience=targeted")
        .await;
    assert_eq!(ids(&held), [24]);
    assert_eq!(
        held["instant_wins"][0]["loyalty_rule_history_id"],
        vouchers[0].loyalty_rule_history_id.as_deref().unwrap()
    );
    assert_eq!(held["instant_wins"][0]["remaining_participations"], 1);

    // Detail by every search_by.
    let voucher = &vouchers[0];
    for path in [
        "/instant_wins/24".to_string(),
        "/instant_wins/24?search_by=loyalty_rule_id".to_string(),
        format!(
            "/instant_wins/{}?search_by=loyalty_rule_history_id",
            voucher.loyalty_rule_history_id.as_deref().unwrap()
        ),
        format!(
            "/instant_wins/{}?search_by=campaign_history_id",
            voucher.campaign_history_id.as_deref().unwrap()
        ),
        "/instant_wins/VIPTICKET?search_by=static_code".to_string(),
    ] {
        let (status, detail) = setup.get(&path).await;
        assert_eq!(
            (status, &detail["id"]),
            (200, &json!(24)),
            "{path}: {detail}"
        );
    }
    let (_, by_assignment) = setup
        .get(&format!(
            "/instant_wins/{}?search_by=loyalty_rule_history_id",
            voucher.loyalty_rule_history_id.as_deref().unwrap()
        ))
        .await;
    assert_eq!(
        by_assignment["remaining_participations"], 1,
        "the assignment implies its Customer"
    );
    let (_, with_customer) = setup
        .get(&format!("/instant_wins/20?customer_id={customer}"))
        .await;
    assert_eq!(with_customer["remaining_participations"], 1);
    let (status, _) = setup.get("/instant_wins/25?location_code=STORE1").await;
    assert_eq!(status, 200);
    let (status, body) = setup.get("/instant_wins/25?location_code=STORE9").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("instant_win_not_found"))
    );
    let (status, _) = setup.get("/instant_wins/25?countries=ES").await;
    assert_eq!(status, 200);

    // Bad input: the documented shape, nothing changed.
    for (path, code, expected) in [
        ("/instant_wins/999", 404, "instant_win_not_found"),
        ("/instant_wins/10", 404, "instant_win_not_found"),
        (
            "/instant_wins/NOPE?search_by=static_code",
            404,
            "instant_win_not_found",
        ),
        ("/instant_wins/x?search_by=name", 400, "invalid_request"),
        (
            "/instant_wins?campaign_audience=everyone",
            400,
            "invalid_request",
        ),
        ("/instant_wins?per_page=0", 400, "invalid_request"),
        ("/instant_wins?starting_after=abc", 400, "invalid_request"),
        (
            "/instant_wins?customer_id=a&customer_code=b",
            404,
            "customer_not_found",
        ),
        (
            "/instant_wins?customer_id=nobody",
            404,
            "customer_not_found",
        ),
    ] {
        let (status, body) = setup.get(path).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (code, Some(expected)),
            "{path}: {body}"
        );
    }
}
