//! Carts over real HTTP with a real SurrealDB and the demo campaigns:
//! realtime and simulate, effects and explanations, the points they record,
//! one record per cart code under concurrent requests.

#[path = "events/broken_files.rs"]
mod broken_files;
#[path = "events/cancellations.rs"]
mod cancellations;
#[path = "events/cart_history.rs"]
mod cart_history;
#[path = "events/carts.rs"]
mod carts;
mod common;
#[path = "events/custom_events.rs"]
mod custom_events;
#[path = "events/explanations.rs"]
mod explanations;
#[path = "events/listing_order.rs"]
mod listing_order;
#[path = "events/money_and_time.rs"]
mod money_and_time;
#[path = "events/round_trips.rs"]
mod round_trips;

use common::{TestServer, all_at_once};
use loyalty::resources::companies::model::CreatedApiKey;
use serde_json::{Value, json};

/// A Monday-morning cart of the demo Company: coffee (discounted) and pastries (points).
fn morning_cart(customer_id: &str, code: &str) -> Value {
    json!({
        "customer_id": customer_id,
        "code": code,
        "date": "2026-05-04T09:30:00Z",
        "location_code": "STORE-1",
        "lines": [
            {"product_code": "COFFEE", "quantity": 2, "price": 1.8},
            {"product_code": "PASTRY", "quantity": 3, "price": 1.5},
            {"product_code": "COFFEE", "quantity": 1, "price": 4.6}
        ]
    })
}

/// The ledger entries held by stored `ledger_write` records.
fn ledger_entries(writes: &[Value]) -> Vec<Value> {
    writes
        .iter()
        .flat_map(|write| write["entries"].as_array().cloned().unwrap_or_default())
        .collect()
}

async fn member(server: &TestServer, key: &CreatedApiKey, email: &str) -> String {
    let (status, customer) = server
        .call_as("POST", "/customers", key, Some(json!({"email": email})))
        .await;
    assert_eq!(status, 200, "{customer}");
    customer["id"].as_str().unwrap().to_string()
}
