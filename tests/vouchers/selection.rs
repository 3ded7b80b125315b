//! A Customer's wallet: Vouchers selected and deselected.

use super::*;

#[tokio::test]
async fn a_customer_selects_and_deselects_vouchers_in_their_wallet() {
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "A", "discount": {"percent": 5}}),
    )
    .await;
    let over = create_coupon(
        &server,
        &key,
        json!({"name": "Until Monday", "discount": {"percent": 5}, "valid_to": "2026-07-06T00:00:00Z"}),
    )
    .await;
    let first = trigger(&server, &key, &ana, &coupon).await;
    let second = trigger(&server, &key, &ana, &over).await;
    let bobs = trigger(&server, &key, &bob, &coupon).await;
    let code = |v: &Value| v["code"].as_str().unwrap().to_string();
    let selected = |customer: String| {
        let server = &server;
        let key = &key;
        async move {
            let (status, body) = server
                .get_as(&format!("/customers/{customer}/vouchers/selected"), key)
                .await;
            assert_eq!(status, 200, "{body}");
            body["vouchers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["code"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert!(selected(ana.clone()).await.is_empty());
    let (status, one) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/select", code(&first)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{one}");
    let at = one["selected_at"].clone();
    assert!(at.is_string(), "{one}");
    // Selecting again keeps the first time.
    server.set_time("2026-07-04T11:00:00Z");
    let (_, again) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/select", code(&first)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(again["selected_at"], at);
    // Another's Voucher, an unknown code: the list is refused whole.
    let (status, refused) = server
        .call_as(
            "PUT",
            "/vouchers/select",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&second), code(&bobs), "NOPE-1"]})),
        )
        .await;
    assert_error(status, &refused, 404, "voucher_not_found");
    assert_eq!(refused["errors"].as_array().unwrap().len(), 2, "{refused}");
    assert_eq!(selected(ana.clone()).await, vec![code(&first)]);
    let (status, both) = server
        .call_as(
            "PUT",
            "/vouchers/select",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&second)]})),
        )
        .await;
    assert_eq!(status, 200, "{both}");
    assert_eq!(
        selected(ana.clone()).await,
        vec![code(&first), code(&second)]
    );
    // An expired Voucher is not selected, but can be deselected.
    server.set_time("2026-07-07T10:00:00Z");
    let (status, refused) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/select", code(&second)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_error(status, &refused, 422, "voucher_expired");
    let (status, gone) = server
        .call_as(
            "PUT",
            "/vouchers/deselect",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&second)]})),
        )
        .await;
    assert_eq!(status, 200, "{gone}");
    assert!(gone["vouchers"][0].get("selected_at").is_none(), "{gone}");
    let (status, _) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/deselect", code(&first)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200);
    assert!(selected(ana.clone()).await.is_empty());
    let (status, refused) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/deselect", code(&bobs)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let (status, refused) = server
        .get_as("/customers/cus_nobody/vouchers/selected", &key)
        .await;
    assert_error(status, &refused, 404, "customer_not_found");
    assert!(selected(bob.clone()).await.is_empty());
}
