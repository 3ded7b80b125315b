//! Checkout holds: a frozen Voucher used only under its hold, never taken
//! by another till in a race.

use super::*;

#[tokio::test]
async fn a_frozen_voucher_is_used_only_under_its_hold_until_the_hold_ends() {
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let once = create_coupon(
        &server,
        &key,
        json!({"name": "Once", "discount": {"percent": 10}}),
    )
    .await;
    let twice = create_coupon(
        &server,
        &key,
        json!({"name": "Twice", "discount": {"percent": 10}, "uses_per_voucher": 2}),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &once).await;
    let code = voucher["code"].as_str().unwrap().to_string();
    let freeze = |code: String, body: Value| {
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", &format!("/vouchers/{code}/freeze"), key, Some(body))
                .await
        }
    };
    let redeem = |code: String, reservation: Option<&str>| {
        let body = match reservation {
            Some(id) => json!({"customer_id": ana, "codes": [code], "reservation_id": id}),
            None => json!({"customer_id": ana, "codes": [code]}),
        };
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", "/vouchers/redeem", key, Some(body))
                .await
        }
    };
    let (status, held) = freeze(code.clone(), json!({"customer_id": ana, "minutes": 2})).await;
    assert_eq!(status, 200, "{held}");
    assert_eq!(held["expires_at"], "2026-07-04T10:02:00Z");
    assert_eq!(held["voucher"]["state"], "frozen");
    let reservation = held["reservation_id"].as_str().unwrap().to_string();
    // Another till, without the hold, cannot use or hold it.
    let (status, refused) = redeem(code.clone(), None).await;
    assert_error(status, &refused, 422, "voucher_frozen");
    let (status, refused) = freeze(code.clone(), json!({"customer_id": ana})).await;
    assert_error(status, &refused, 422, "voucher_frozen");
    let (status, refused) = redeem(code.clone(), Some("rsv_other")).await;
    assert_error(status, &refused, 422, "voucher_frozen");
    // Unfrozen, anyone may; refrozen, the hold ends by itself.
    let (status, free) = server
        .call_as(
            "POST",
            &format!("/vouchers/{code}/unfreeze"),
            &key,
            Some(json!({"customer_id": ana, "reservation_id": reservation})),
        )
        .await;
    assert_eq!(
        (status, free["state"].as_str()),
        (200, Some("active")),
        "{free}"
    );
    let (status, _) = freeze(code.clone(), json!({"customer_id": ana, "minutes": 1})).await;
    assert_eq!(status, 200);
    server.set_time("2026-07-04T10:01:30Z");
    let (_, state) = server.get_as(&format!("/vouchers/{code}"), &key).await;
    assert_eq!(state["state"], "active", "the hold ended: {state}");
    // The checkout that holds it uses it.
    let (_, held) = freeze(code.clone(), json!({"customer_id": ana})).await;
    let reservation = held["reservation_id"].as_str().unwrap();
    let (status, used) = redeem(code.clone(), Some(reservation)).await;
    assert_eq!(status, 200, "{used}");
    assert_eq!(used["vouchers"][0]["state"], "redeemed");
    let (status, refused) = freeze(code.clone(), json!({"customer_id": ana})).await;
    assert_error(status, &refused, 422, "voucher_redeemed");

    // On a Voucher of two uses a hold takes one; the other stays free.
    let two = trigger(&server, &key, &ana, &twice).await;
    let two = two["code"].as_str().unwrap().to_string();
    let (status, held) = freeze(two.clone(), json!({"customer_id": ana})).await;
    assert_eq!(
        (status, held["voucher"]["state"].as_str()),
        (200, Some("active")),
        "{held}"
    );
    let (status, _) = redeem(two.clone(), None).await;
    assert_eq!(status, 200, "the free use");
    let (status, refused) = redeem(two.clone(), None).await;
    assert_error(status, &refused, 422, "voucher_frozen");
    let (status, _) = redeem(two.clone(), held["reservation_id"].as_str()).await;
    assert_eq!(status, 200, "the held use");
    // Another Customer's Voucher is not found.
    let bob = customer(&server, &key, "bob@example.com").await;
    let (status, refused) = freeze(two.clone(), json!({"customer_id": bob})).await;
    assert_error(status, &refused, 404, "voucher_not_found");
}

#[tokio::test]
async fn a_frozen_voucher_is_never_taken_by_another_till_in_a_race() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Once", "discount": {"percent": 10}}),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &coupon).await;
    let code = voucher["code"].as_str().unwrap();
    // 16 tills race: 8 try to hold it, 8 to redeem it without a hold.
    let requests = (0..16)
        .map(|n| {
            if n % 2 == 0 {
                server
                    .request_as("POST", &format!("/vouchers/{code}/freeze"), &key)
                    .json(&json!({"customer_id": ana}))
            } else {
                server
                    .request_as("POST", "/vouchers/redeem", &key)
                    .json(&json!({"customer_id": ana, "codes": [code]}))
            }
        })
        .collect();
    let answers = all_at_once(requests).await;
    let won: Vec<&(u16, Value)> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .collect();
    assert_eq!(won.len(), 1, "one till holds or uses it: {answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_eq!(*status, 422, "{body}");
        assert!(
            body["code"] == "voucher_frozen" || body["code"] == "voucher_redeemed",
            "{body}"
        );
    }
}
