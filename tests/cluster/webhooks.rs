//! Webhooks with two nodes on one store: both write the events of their
//! requests to the one outbox, and the node holding the delivery job sends
//! each of them once.

use std::collections::HashSet;
use std::time::Duration;

use loyalty::server::ServerSettings;
use serde_json::{Value, json};

use crate::common::OPERATOR_TOKEN;
use crate::harness::Cluster;
use crate::races::CAMPAIGNS;
use crate::receiver::Receiver;

/// Receivers on loopback are accepted (`--webhooks-allow-private`).
fn allowing_loopback(settings: &mut ServerSettings) {
    settings.webhooks.allow_private = true;
}

#[tokio::test]
async fn each_event_of_either_node_is_delivered_once() {
    let cluster = Cluster::start_with("memory", 2, CAMPAIGNS, allowing_loopback).await;
    let receiver = Receiver::start(Vec::new(), Duration::ZERO).await;
    let node = &cluster.nodes[0];
    let created = node
        .send(
            node.http
                .post(format!("{}/api/companies/demo/webhooks", node.admin_url()))
                .bearer_auth(OPERATOR_TOKEN)
                .json(&json!({"url": receiver.url(), "events": ["cart.recorded"]})),
        )
        .await;
    assert_eq!(created.0, 200, "{}", created.1);
    // The other node reads the endpoints again within a second.
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let mut customers = Vec::new();
    for n in 0..4 {
        customers.push(cluster.customer(&format!("hook{n}@example.com")).await);
    }
    let carts: Vec<Value> = (0..24)
        .map(|n| {
            json!({
                "customer_id": customers[n % customers.len()],
                "code": format!("TWO-{n}"),
                "lines": [{"product_code": "COFFEE", "quantity": 1, "price": 2.5}]
            })
        })
        .collect();
    let answers = cluster.spread("POST", "/carts/realtime", &carts).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );
    let answered: HashSet<String> = answers
        .iter()
        .map(|(_, answer)| answer["cart"]["id"].as_str().unwrap().to_string())
        .collect();

    receiver.wait_for(24, Duration::from_secs(30)).await;
    // Nothing more comes: no event is sent twice.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let received = receiver.received();
    let events: HashSet<&str> = received
        .iter()
        .map(|r| r.headers["loyalty-event-id"].as_str())
        .collect();
    assert_eq!((received.len(), events.len()), (24, 24), "each event once");
    let delivered: HashSet<String> = received
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_str(&r.body).expect("JSON");
            body["data"]["id"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(delivered, answered, "every cart, from either node");
}
