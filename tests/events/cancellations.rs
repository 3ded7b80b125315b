//! A cancellation reverses its cart exactly once.

use super::*;

#[tokio::test]
async fn a_cancellation_reverses_a_cart_exactly_once() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "cancel@example.com").await;
    server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&customer, "C-1")),
        )
        .await;
    let mut requests = Vec::new();
    for _ in 0..6 {
        let request = server
            .request_as("POST", "/carts/cancellation", &key)
            .json(&json!({"cart_id": "C-1"}));
        requests.push(request);
    }
    let mut cancellations = Vec::new();
    for (status, body) in all_at_once(requests).await {
        match status {
            200 => cancellations.push(body),
            _ => assert!(
                body["code"] == "cart_already_cancelled" || body["code"] == "cart_already_exists",
                "{status} {body}"
            ),
        }
    }
    assert_eq!(cancellations.len(), 1, "cancelled exactly once");
    let cancellation = &cancellations[0];
    assert_eq!(cancellation["cart"]["id"], "C-1-cancellation");
    assert_eq!(cancellation["cart"]["cancels"], "C-1");
    assert_eq!(cancellation["cart"]["total"], -12.7);
    assert_eq!(cancellation["cart"]["points_earned"], -27);
    assert_eq!(cancellation["effects"][0]["points"], -27);

    let (_, original) = server.call_as("GET", "/carts/C-1", &key, None).await;
    assert_eq!(original["cancelled_by"], "C-1-cancellation");
    let (_, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(attributes["points_balance"], 0);
    assert_eq!(attributes["lifetime_spend"], 0.0);
    assert_eq!(attributes["cart_count"], 0);

    let (status, body) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "C-1", "code": "C-1-again"})),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("cart_already_cancelled"))
    );
    let (status, body) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "NOPE"})),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("cart_not_found"))
    );
}
