//! Points and wallet over HTTP: balances and the ledger, redemptions (also
//! for a cart, given back by its cancellation), transfers, adjustments with
//! their author, every error, balances under concurrent debits, and the
//! budgets of points campaigns.

#[path = "points/bounds.rs"]
mod bounds;
#[path = "points/budgets.rs"]
mod budgets;
#[path = "points/campaigns.rs"]
mod campaigns;
#[path = "points/cancellations.rs"]
mod cancellations;
#[path = "points/cashback.rs"]
mod cashback;
mod common;
#[path = "points/expiry.rs"]
mod expiry;
#[path = "points/merges.rs"]
mod merges;
#[path = "points/redemptions.rs"]
mod redemptions;
#[path = "points/sequences.rs"]
mod sequences;
#[path = "points/wallet.rs"]
mod wallet;

use common::{TestServer, all_at_once};
use loyalty::resources::companies::model::CreatedApiKey;
use loyalty::resources::points::model::PointsKind;
use serde_json::{Value, json};

async fn customer(server: &TestServer, key: &CreatedApiKey, email: &str) -> String {
    let (status, customer) = server
        .call_as("POST", "/customers", key, Some(json!({"email": email})))
        .await;
    assert_eq!(status, 200, "{customer}");
    customer["id"].as_str().unwrap().to_string()
}

async fn post(server: &TestServer, key: &CreatedApiKey, path: &str, body: Value) -> (u16, Value) {
    server.call_as("POST", path, key, Some(body)).await
}

async fn credit(server: &TestServer, key: &CreatedApiKey, customer: &str, points: i64) {
    let (status, body) = post(
        server,
        key,
        "/scores/trigger",
        json!({"customer_id": customer, "points": points, "description": "welcome gift"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

async fn balances(server: &TestServer, key: &CreatedApiKey, customer: &str) -> (i64, i64) {
    let (status, body) = server
        .get_as(&format!("/customers/{customer}/points"), key)
        .await;
    assert_eq!(status, 200, "{body}");
    (
        body["points"].as_i64().unwrap(),
        body["wallet"].as_i64().unwrap(),
    )
}

fn assert_error(status: u16, body: &Value, expected_status: u16, code: &str) {
    assert_eq!(
        (status, body["code"].as_str()),
        (expected_status, Some(code)),
        "{body}"
    );
    assert!(body["error"].is_string(), "{body}");
}

/// The cached balance equals the sum of the ledger entries.
async fn assert_ledger_consistent(server: &TestServer, customer: &str) {
    let store = server.running.services.store();
    for kind in [PointsKind::Points, PointsKind::Wallet] {
        let cached = store.balance("demo", customer, kind).await.unwrap();
        let summed = store.ledger_sum("demo", customer, kind).await.unwrap();
        assert_eq!(cached, summed, "{kind:?} of {customer}");
        assert!(cached >= 0, "{kind:?} of {customer} is {cached}");
    }
}
