//! What a cart costs in queries to the store: each is a round trip to a
//! remote SurrealDB server, where the till waits on every one.

use crate::common::TestServer;
use crate::{member, morning_cart};

/// Queries sent to the store by `server` so far.
fn sent(server: &TestServer) -> u64 {
    server.running.services.store().queries_sent()
}

#[tokio::test]
async fn a_realtime_cart_costs_a_known_number_of_queries() {
    let server = TestServer::start_at("2026-05-04T09:30:00Z").await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "trips@example.com").await;
    // The fewest of a few carts: a background duty (a lease renewed each
    // second) may fall between a cart's first and last query.
    let mut fewest = u64::MAX;
    for n in 0..5 {
        let before = sent(&server);
        let (status, answer) = server
            .call_as(
                "POST",
                "/carts/realtime",
                &key,
                Some(morning_cart(&customer, &format!("RT-{n}"))),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        fewest = fewest.min(sent(&server) - before);
    }
    eprintln!("queries per realtime cart: {fewest}");
    assert_eq!(fewest, QUERIES_PER_CART);
}

/// The queries of one realtime cart of the demo Company, written down so
/// that a change adding one is seen: the Customer; its facts with the state
/// of the Instant Wins listening; the messages it was shown once; the
/// write, shared with the carts recorded at the same moment.
const QUERIES_PER_CART: u64 = 4;
