//! What a cart's cancellation gives back: a cart redemption once, and only
//! the points the balance still holds.

use super::*;

#[tokio::test]
async fn a_cart_redemption_is_given_back_once_by_the_cancellation() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "cart@example.com").await;
    credit(&server, &key, &id, 100).await;
    let cart = json!({
        "customer_id": id, "code": "RC-1", "date": "2026-05-04T16:00:00Z",
        "lines": [{"product_code": "TEA", "quantity": 1, "price": 20.0}]
    });
    let (status, recorded) = post(&server, &key, "/carts/realtime", cart).await;
    assert_eq!(status, 200, "{recorded}");
    let earned = recorded["cart"]["points_earned"].as_i64().unwrap();
    assert_eq!(earned, 20, "one point per euro");
    let (status, redeemed) = post(
        &server,
        &key,
        "/points/redeem_cart",
        json!({"cart_id": "RC-1", "points": 50}),
    )
    .await;
    assert_eq!(status, 200, "{redeemed}");
    assert_eq!(
        (&redeemed["cart_id"], &redeemed["balance"]),
        (&json!("RC-1"), &json!(70))
    );

    let (status, cancelled) = post(
        &server,
        &key,
        "/carts/cancellation",
        json!({"cart_id": "RC-1"}),
    )
    .await;
    assert_eq!(status, 200, "{cancelled}");
    // The 20 earned are taken back, the 50 redeemed given back: 70 - 20 + 50.
    assert_eq!(balances(&server, &key, &id).await.0, 100);
    let (status, again) = post(
        &server,
        &key,
        "/carts/cancellation",
        json!({"cart_id": "RC-1"}),
    )
    .await;
    assert_error(status, &again, 409, "cart_already_cancelled");
    let (status, late) = post(
        &server,
        &key,
        "/points/redeem_cart",
        json!({"cart_id": "RC-1", "points": 5}),
    )
    .await;
    assert_error(status, &late, 409, "cart_already_cancelled");
    assert_eq!(balances(&server, &key, &id).await.0, 100);
    assert_ledger_consistent(&server, &id).await;
}

#[tokio::test]
async fn a_cancellation_takes_back_only_the_points_left() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "spender@example.com").await;
    let cart = json!({
        "customer_id": id, "code": "SP-1", "date": "2026-05-04T16:00:00Z",
        "lines": [{"product_code": "TEA", "quantity": 1, "price": 30.0}]
    });
    let (status, _) = post(&server, &key, "/carts/realtime", cart).await;
    assert_eq!(status, 200);
    let (status, _) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 25}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, cancelled) = post(
        &server,
        &key,
        "/carts/cancellation",
        json!({"cart_id": "SP-1"}),
    )
    .await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(
        cancelled["cart"]["points_earned"], -5,
        "only the 5 points left are taken back"
    );
    assert_eq!(balances(&server, &key, &id).await.0, 0);
    // A cancellation is no cart to redeem for.
    let cancellation = cancelled["cart"]["id"].as_str().unwrap().to_string();
    let (status, refused) = post(
        &server,
        &key,
        "/points/redeem_cart",
        json!({"cart_id": cancellation, "points": 1}),
    )
    .await;
    assert_error(status, &refused, 422, "cart_is_cancellation");
    assert_ledger_consistent(&server, &id).await;
}
