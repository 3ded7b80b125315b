//! What a cart or a Custom Event costs in queries to the store: each is a
//! round trip to a remote SurrealDB server, where the till waits on every
//! one.

use serde_json::{Value, json};

use crate::common::TestServer;
use crate::morning_cart;

/// Queries sent to the store by `server` so far.
fn sent(server: &TestServer) -> u64 {
    server.running.services.store().queries_sent()
}

/// The fewest queries one of five requests made by `request` (given its
/// number) cost: a background duty (a lease renewed each second) may fall
/// between a request's first and last query.
async fn fewest_queries(
    server: &TestServer,
    key: &loyalty::resources::companies::model::CreatedApiKey,
    path: &str,
    request: impl Fn(usize) -> Value,
) -> u64 {
    let mut fewest = u64::MAX;
    for n in 0..5 {
        let before = sent(server);
        let (status, answer) = server.call_as("POST", path, key, Some(request(n))).await;
        assert_eq!(status, 200, "{answer}");
        fewest = fewest.min(sent(server) - before);
    }
    fewest
}

#[tokio::test]
async fn a_realtime_cart_or_custom_event_costs_a_known_number_of_queries() {
    let server = TestServer::start_at("2026-05-04T09:30:00Z").await;
    let key = server.bootstrap_key();
    let (status, customer) = server
        .call_as(
            "POST",
            "/customers",
            &key,
            Some(json!({"email": "trips@example.com", "code": "TRIPS-1"})),
        )
        .await;
    assert_eq!(status, 200, "{customer}");
    let id = customer["id"].as_str().unwrap().to_string();

    let by_id = fewest_queries(&server, &key, "/carts/realtime", |n| {
        morning_cart(&id, &format!("RT-ID-{n}"))
    })
    .await;
    let by_code = fewest_queries(&server, &key, "/carts/realtime", |n| {
        let mut cart = morning_cart(&id, &format!("RT-CODE-{n}"));
        cart.as_object_mut().unwrap().remove("customer_id");
        cart["customer_code"] = json!(" TRIPS-1 ");
        cart
    })
    .await;
    let event = fewest_queries(
        &server,
        &key,
        "/custom_events",
        |n| json!({"customer_code": "TRIPS-1", "type": "profile_completed", "data": {"fields": n}}),
    )
    .await;
    eprintln!("queries per cart by id {by_id}, by code {by_code}, per Custom Event {event}");
    assert_eq!(by_id, QUERIES_PER_CART);
    assert_eq!(by_code, QUERIES_PER_CART);
    assert_eq!(event, QUERIES_PER_CART);
}

/// The queries of one realtime cart (or Custom Event) of the demo Company,
/// written down so that a change adding one is seen: the read (the Customer
/// by its id or code, its facts, the messages it was shown once and the
/// state of the Instant Wins listening); the write, shared with the events
/// recorded at the same moment.
const QUERIES_PER_CART: u64 = 2;
