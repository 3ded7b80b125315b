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

/// The queries of a realtime cart (or Custom Event) of the demo Company by
/// a Customer whose previous event this process recorded, written down so
/// that a change adding one is seen: the write alone, shared with the events
/// recorded at the same moment. (The read of the Customer by its id or code,
/// its facts, the messages it was shown once and the state of the Instant
/// Wins listening is served from memory, moved on by the previous event;
/// `with_no_customer_kept_every_request_reads_the_store` counts it.)
const QUERIES_PER_CART: u64 = 1;

/// The queries `request` costs, sent once.
async fn queries_of(
    server: &TestServer,
    key: &loyalty::resources::companies::model::CreatedApiKey,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> u64 {
    let before = sent(server);
    let (status, answer) = server.call_as(method, path, key, body).await;
    assert_eq!(status, 200, "{method} {path}: {answer}");
    sent(server) - before
}

/// The try that cost fewest queries in all. A background duty may write
/// (and so make every kept Customer stale) between two requests: a
/// sequence is tried on a few Customers and the one that cost least is
/// judged.
fn fewest<S: AsRef<[u64]>>(tries: Vec<S>) -> S {
    tries
        .into_iter()
        .min_by_key(|sequence| sequence.as_ref().iter().sum::<u64>())
        .expect("at least one try")
}

/// A morning cart of Customer `id` coded `customer_code`, naming it by that
/// code, as a till does.
fn cart_by_code(id: &str, customer_code: &str, cart_code: &str) -> Value {
    let mut cart = morning_cart(id, cart_code);
    cart.as_object_mut().unwrap().remove("customer_id");
    cart["customer_code"] = json!(customer_code);
    cart
}

/// For the Customers of `server` (with code prefix `prefix`), the fewest
/// queries of a till's sequence ([`fewest`] of a few tries): look-up,
/// look-up, simulate, simulate, realtime, look-up, and the Customer's next
/// cart.
async fn till_sequence(server: &TestServer, prefix: &str) -> [u64; 7] {
    let key = server.bootstrap_key();
    let mut tries = Vec::new();
    for attempt in 0..5 {
        let code = format!("{prefix}-{attempt}");
        let id = server.create_customer(&key, json!({"code": code})).await;
        let cart = cart_by_code(&id, &code, &format!("{prefix}-C{attempt}"));
        let mut next_cart = cart.clone();
        next_cart["code"] = json!(format!("{prefix}-N{attempt}"));
        let look_up = format!("/customers/{code}?search_by=code");
        let sequence = [
            queries_of(server, &key, "GET", &look_up, None).await,
            queries_of(server, &key, "GET", &look_up, None).await,
            queries_of(server, &key, "POST", "/carts/simulate", Some(cart.clone())).await,
            queries_of(server, &key, "POST", "/carts/simulate", Some(cart.clone())).await,
            queries_of(server, &key, "POST", "/carts/realtime", Some(cart.clone())).await,
            queries_of(server, &key, "GET", &look_up, None).await,
            queries_of(server, &key, "POST", "/carts/realtime", Some(next_cart)).await,
        ];
        tries.push(sequence);
    }
    let fewest = fewest(tries);
    eprintln!(
        "{prefix}: look-up, look-up, simulate, simulate, realtime, look-up, realtime: {fewest:?}"
    );
    fewest
}

#[tokio::test]
async fn a_tills_look_up_simulation_and_cart_read_the_customer_once() {
    // Points only: nothing but the Customer and its facts to read.
    let points = std::fs::read_to_string("campaigns/demo/campaigns/points-per-euro.yaml").unwrap();
    let (server, _dir) = TestServer::start_with_campaigns(
        &[("points-per-euro.yaml", points.as_str())],
        "2026-05-04T09:30:00Z",
        None,
    )
    .await;
    // The first look-up reads the Customer, the second is served from
    // memory; the first simulation reads the Customer's facts, the second is
    // served from memory; the cart only writes, and moves the Customer kept
    // in memory on by its purchase and points: the look-up after it and the
    // Customer's next cart read nothing.
    assert_eq!(till_sequence(&server, "TILL").await, [1, 0, 1, 0, 1, 0, 1]);

    // The demo Company's carts meet Instant Wins and a Challenge (these
    // Customers did not enroll): the Customer's participations are kept
    // with it and moved on by its cart's draws, and the units given of
    // limited prizes come from the stock view while it is fresh, so the
    // same sequence costs the same.
    let demo = TestServer::start_at("2026-05-04T09:30:00Z").await;
    assert_eq!(till_sequence(&demo, "DRAW").await, [1, 0, 1, 0, 1, 0, 1]);
}

#[tokio::test]
async fn with_no_customer_kept_every_request_reads_the_store() {
    let mut settings =
        loyalty::server::ServerSettings::for_store("mem://", crate::common::OPERATOR_TOKEN);
    settings.clock = crate::common::manual_clock("2026-05-04T09:30:00Z");
    settings.customer_cache = 0;
    let server = TestServer::start_with(settings).await;
    // Each look-up and simulation reads the Customer (and its facts); the
    // cart reads them and writes.
    assert_eq!(till_sequence(&server, "COLD").await, [1, 1, 1, 1, 2, 1, 2]);
}

#[tokio::test]
async fn a_redemption_of_a_customer_kept_is_one_query_and_forgets_no_one() {
    let points = std::fs::read_to_string("campaigns/demo/campaigns/points-per-euro.yaml").unwrap();
    let (server, _dir) = TestServer::start_with_campaigns(
        &[("points-per-euro.yaml", points.as_str())],
        "2026-05-04T09:30:00Z",
        None,
    )
    .await;
    let key = server.bootstrap_key();
    // Tried on a few pairs of Customers ([`fewest`]).
    let mut tries = Vec::new();
    for attempt in 0..5 {
        let (redeemer, other) = (format!("RDM-{attempt}"), format!("OTHER-{attempt}"));
        let id = server
            .create_customer(&key, json!({"code": redeemer}))
            .await;
        let other_id = server.create_customer(&key, json!({"code": other})).await;
        // The till names the Customer by its code, as the redemption does.
        let cart = cart_by_code(&id, &redeemer, &format!("RDM-C{attempt}"));
        queries_of(&server, &key, "POST", "/carts/realtime", Some(cart)).await;
        let other_cart = morning_cart(&other_id, &format!("OTHER-C{attempt}"));
        queries_of(
            &server,
            &key,
            "POST",
            "/carts/simulate",
            Some(other_cart.clone()),
        )
        .await;
        let redeem = json!({"customer_code": redeemer, "points": 3});
        let mut sequence = Vec::new();
        let mut answered = Vec::new();
        for _ in 0..2 {
            let before = sent(&server);
            let (status, answer) = server
                .call_as("POST", "/points/redeem", &key, Some(redeem.clone()))
                .await;
            assert_eq!(status, 200, "{answer}");
            sequence.push(sent(&server) - before);
            answered.push(answer["balance"].as_i64().unwrap());
        }
        // The other Customer is still served from memory.
        sequence.push(queries_of(&server, &key, "POST", "/carts/simulate", Some(other_cart)).await);
        // The balances answered are the store's.
        let (status, stored) = server
            .get_as(
                &format!("/customers/{redeemer}/points?search_by=code"),
                &key,
            )
            .await;
        assert_eq!(status, 200, "{stored}");
        assert_eq!(answered[1], stored["points"].as_i64().unwrap());
        assert_eq!(answered[0] - 3, answered[1]);
        tries.push(sequence);
    }
    let fewest = fewest(tries);
    eprintln!("redeem, redeem, another Customer's simulation: {fewest:?}");
    assert_eq!(fewest, [1, 1, 0]);
}
