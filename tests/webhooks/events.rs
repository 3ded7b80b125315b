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

    let got = bodies(&everything.wait_for(4, Duration::from_secs(10)).await);
    let types: Vec<&str> = got.iter().map(|b| b["type"].as_str().unwrap()).collect();
    // The demo Company's points campaign credits the cart.
    assert_eq!(
        types,
        [
            "customer.created",
            "cart.recorded",
            "points.changed",
            "custom_event.recorded"
        ]
    );
    assert_eq!(
        got[1]["data"], answer["cart"],
        "the cart as the API answers it"
    );
    assert_eq!(got[2]["data"]["cart_id"], answer["cart"]["id"]);
    assert_eq!(got[3]["data"], recorded["custom_event"]);
    let only_carts = bodies(&carts.wait_for(1, Duration::from_secs(10)).await);
    assert_eq!(only_carts.len(), 1);
    assert_eq!(
        only_carts[0]["id"], got[1]["id"],
        "one event, one id for every endpoint"
    );
    // Nothing more comes: the refused cart wrote no event.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(everything.received().len(), 4);
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

#[tokio::test]
async fn each_ledger_entry_reports_its_points_and_the_balance_it_left() {
    let points = "id: 30\nkind: points\nname: Ten a cart\non: cart\npoints: { fixed: 10 }\n";
    let (server, _dir) =
        server_with_campaigns(&[("points.yaml", points)], "2026-11-02T10:00:00Z").await;
    let key = server.bootstrap_key();
    let receiver = Receiver::start(Vec::new(), Duration::ZERO).await;
    endpoint_at(&server, &receiver, json!(["points.changed"])).await;
    let customer = server
        .create_customer(&key, json!({"email": "balance@example.com"}))
        .await;
    // At once, so that the group commit writes several in one transaction.
    let requests = (0..4)
        .map(|n| {
            server
                .request_as("POST", "/carts/realtime", &key)
                .json(&cart(&customer, &format!("P-{n}")))
        })
        .collect();
    let answers = common::all_at_once(requests).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );
    let (status, redeemed) = server
        .call_as(
            "POST",
            "/points/redeem",
            &key,
            Some(json!({"customer_id": customer, "points": 15})),
        )
        .await;
    assert_eq!(status, 200, "{redeemed}");

    let got = bodies(&receiver.wait_for(5, Duration::from_secs(20)).await);
    assert_eq!(got.len(), 5);
    assert!(got.iter().all(|b| b["type"] == "points.changed"));
    let earned: Vec<&Value> = got
        .iter()
        .map(|b| &b["data"])
        .filter(|d| d["reason"] == "cart")
        .collect();
    assert_eq!(earned.len(), 4);
    assert!(
        earned
            .iter()
            .all(|d| d["points"] == 10 && d["rule_id"] == 30 && d["customer_id"] == customer)
    );
    let mut balances: Vec<i64> = earned
        .iter()
        .map(|d| d["balance_after"].as_i64().unwrap())
        .collect();
    balances.sort_unstable();
    assert_eq!(
        balances,
        [10, 20, 30, 40],
        "each entry's own balance, not the batch's"
    );
    let redemption = &got[4]["data"];
    assert_eq!(
        (
            &redemption["points"],
            &redemption["reason"],
            &redemption["balance_after"]
        ),
        (&json!(-15), &json!("redemption"), &json!(25))
    );
    assert_eq!(redeemed["balance"], 25);
    // The entry as the ledger lists it.
    let (status, listed) = server
        .call_as(
            "GET",
            &format!("/points/transactions?customer_id={customer}"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["transactions"][0]["id"], redemption["id"]);
}
