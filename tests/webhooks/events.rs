//! Events written with the change they report: a recorded cart or Custom
//! Event reaches the endpoints subscribed to it, a refused one reaches
//! none, and one Customer's events arrive in the order they happened.

use std::time::Duration;

use super::receiver::Receiver;
use super::*;

/// A cart `code` of `customer` with one line.
fn cart(customer: &str, code: &str) -> Value {
    json!({
        "customer_id": customer,
        "code": code,
        "lines": [{"product_code": "COFFEE", "quantity": 1, "price": 2.5}]
    })
}

/// The bodies the receiver got, parsed.
fn bodies(received: &[super::receiver::Received]) -> Vec<Value> {
    received
        .iter()
        .map(|r| serde_json::from_str(&r.body).expect("a JSON body"))
        .collect()
}

#[tokio::test]
async fn a_recorded_cart_or_custom_event_reaches_its_subscribers_and_a_refused_one_none() {
    let server = server_allowing_loopback().await;
    let key = server.bootstrap_key();
    let carts = Receiver::start(Vec::new(), Duration::ZERO).await;
    let everything = Receiver::start(Vec::new(), Duration::ZERO).await;
    endpoint_at(&server, &carts, json!(["cart.recorded"])).await;
    endpoint_at(&server, &everything, json!(["*"])).await;
    let customer = server
        .create_customer(&key, json!({"email": "hooks@example.com"}))
        .await;

    let (status, answer) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(cart(&customer, "H-1")),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    // The same code again is refused, and reported to nobody.
    let (status, _) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(cart(&customer, "H-1")),
        )
        .await;
    assert_eq!(status, 409);
    let event = json!({"customer_id": customer, "type": "app_open", "data": {"screen": "home"}});
    let (status, recorded) = server
        .call_as("POST", "/custom_events", &key, Some(event))
        .await;
    assert_eq!(status, 200, "{recorded}");

    let got = bodies(&everything.wait_for(2, Duration::from_secs(10)).await);
    let types: Vec<&str> = got.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["cart.recorded", "custom_event.recorded"]);
    assert_eq!(
        got[0]["data"], answer["cart"],
        "the cart as the API answers it"
    );
    assert_eq!(got[1]["data"], recorded["custom_event"]);
    let only_carts = bodies(&carts.wait_for(1, Duration::from_secs(10)).await);
    assert_eq!(only_carts.len(), 1);
    assert_eq!(
        only_carts[0]["id"], got[0]["id"],
        "one event, one id for every endpoint"
    );
    // Nothing more comes: the refused cart wrote no event.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(everything.received().len(), 2);
    assert_eq!(carts.received().len(), 1);
}

#[tokio::test]
async fn one_customers_concurrent_carts_arrive_in_the_order_they_happened() {
    let server = server_allowing_loopback().await;
    let key = server.bootstrap_key();
    let receiver = Receiver::start(Vec::new(), Duration::ZERO).await;
    endpoint_at(&server, &receiver, json!(["cart.recorded"])).await;
    let customer = server
        .create_customer(&key, json!({"email": "order@example.com"}))
        .await;
    let requests = (0..16)
        .map(|n| {
            server
                .request_as("POST", "/carts/realtime", &key)
                .json(&cart(&customer, &format!("O-{n}")))
        })
        .collect();
    let answers = common::all_at_once(requests).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );

    let got = bodies(&receiver.wait_for(16, Duration::from_secs(20)).await);
    assert_eq!(got.len(), 16);
    let ids: Vec<&str> = got.iter().map(|b| b["id"].as_str().unwrap()).collect();
    let mut in_order = ids.clone();
    in_order.sort_unstable();
    assert_eq!(ids, in_order, "delivered in the order the events happened");
    let mut codes: Vec<&str> = got
        .iter()
        .map(|b| b["data"]["id"].as_str().unwrap())
        .collect();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), 16, "each cart once");
}
