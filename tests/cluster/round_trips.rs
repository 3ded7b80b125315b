//! What a cart costs in round trips to a SurrealDB server (`ws://`): every
//! query is one, and the till waits on each. Counted, not timed.

use serde_json::json;

use crate::harness::Cluster;
use crate::races::CAMPAIGNS;

/// Round trips of one realtime cart on `ws://`: the Customer read with its
/// facts and draw state in one, the cart written with its points and draws
/// in one (the group commit). Against a shared store no Customer is kept in
/// memory, so every cart reads (BENCHMARKS, "A SurrealDB server (`ws://`):
/// where a cart's time goes", and its "Next" for bringing it to one).
const ROUND_TRIPS_PER_CART: u64 = 2;

#[tokio::test]
async fn one_cart_on_a_surrealdb_server_costs_the_documented_round_trips() {
    let cluster = Cluster::start(1, CAMPAIGNS).await;
    let customer = cluster.customer("trips@example.com").await;
    let store = cluster.nodes[0].running.services.store();
    // The fewest of five: a background duty (a lease renewed each second)
    // may fall between a cart's first and last query.
    let mut fewest = u64::MAX;
    for n in 0..5 {
        let before = store.queries_sent();
        let (status, answer) = cluster
            .call(
                0,
                "POST",
                "/carts/realtime",
                json!({
                    "customer_id": customer, "code": format!("TRIP-{n}"),
                    "date": "2026-11-23T10:00:00Z",
                    "lines": [{"product_code": "A", "quantity": 1, "price": 12.5}]
                }),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        fewest = fewest.min(store.queries_sent() - before);
    }
    assert_eq!(fewest, ROUND_TRIPS_PER_CART);
}
