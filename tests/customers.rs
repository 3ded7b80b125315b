//! Customers over real HTTP with a real SurrealDB: enrollment, identifiers,
//! look-ups, updates, cards, search and pagination, anonymization, deletion,
//! tenancy, uniqueness under concurrent requests, and the Customers kept in
//! memory answering every change at once.

#[path = "customers/associations.rs"]
mod associations;
mod common;
#[path = "customers/concurrency.rs"]
mod concurrency;
#[path = "customers/enrollment.rs"]
mod enrollment;
#[path = "customers/erasure_after_merges.rs"]
mod erasure_after_merges;
#[path = "customers/languages.rs"]
mod languages;
#[path = "customers/lookups.rs"]
mod lookups;
#[path = "customers/merge_properties.rs"]
mod merge_properties;
#[path = "customers/merges.rs"]
mod merges;
#[path = "customers/remembered.rs"]
mod remembered;
#[path = "customers/removal.rs"]
mod removal;
#[path = "customers/search.rs"]
mod search;
#[path = "customers/segments.rs"]
mod segments;
#[path = "customers/updates.rs"]
mod updates;
#[path = "customers/welcome.rs"]
mod welcome;

use common::{TestServer, all_at_once, read};
use loyalty::resources::companies::model::CreatedApiKey;
use serde_json::{Value, json};

async fn create(server: &TestServer, key: &CreatedApiKey, body: Value) -> Value {
    let (status, customer) = server.call_as("POST", "/customers", key, Some(body)).await;
    assert_eq!(status, 200, "{customer}");
    customer
}

fn assert_error(status: u16, body: &Value, expected_status: u16, code: &str) {
    assert_eq!(status, expected_status, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}
