//! Rewards, games and Challenges over HTTP: the catalogue and its "why
//! not", redemptions and rollbacks, stock, limits and balances under
//! concurrent requests.

#[path = "engagement/challenge_properties.rs"]
mod challenge_properties;
#[path = "engagement/challenges.rs"]
mod challenges;
mod common;
#[path = "engagement/games.rs"]
mod games;
#[path = "engagement/reward_gifts.rs"]
mod reward_gifts;
#[path = "engagement/reward_properties.rs"]
mod reward_properties;
#[path = "engagement/rewards.rs"]
mod rewards;

use common::{TestServer, all_at_once};
use loyalty::resources::companies::model::CreatedApiKey;
use serde_json::{Value, json};

/// A server whose `demo` Company has the campaign `files` (and
/// `segments.yaml` when given), its clock at `at`.
async fn server_with(files: &[(&str, &str)], at: &str) -> (TestServer, tempfile::TempDir) {
    seeded_server_with(files, at, None).await
}

/// [`server_with`], its draws seeded with `draw_seed` when given.
async fn seeded_server_with(
    files: &[(&str, &str)],
    at: &str,
    draw_seed: Option<u64>,
) -> (TestServer, tempfile::TempDir) {
    TestServer::start_with_campaigns(files, at, draw_seed).await
}

fn assert_error(status: u16, body: &Value, expected_status: u16, code: &str) {
    assert_eq!(
        (status, body["code"].as_str()),
        (expected_status, Some(code)),
        "{body}"
    );
    assert!(body["error"].is_string(), "{body}");
}

/// A new Customer with `email`; their id.
async fn customer(server: &TestServer, key: &CreatedApiKey, email: &str) -> String {
    let (status, customer) = server
        .call_as("POST", "/customers", key, Some(json!({"email": email})))
        .await;
    assert_eq!(status, 200, "{customer}");
    customer["id"].as_str().unwrap().to_string()
}

/// Credits `points` to `customer`'s points balance (`wallet: true`: wallet).
async fn credit(
    server: &TestServer,
    key: &CreatedApiKey,
    customer: &str,
    points: i64,
    wallet: bool,
) {
    let kind = if wallet { "wallet" } else { "points" };
    let (status, body) = server
        .call_as(
            "POST",
            "/scores/trigger",
            key,
            Some(json!({"customer_id": customer, "points": points, "kind": kind})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

/// `customer`'s (points, wallet) balances.
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
