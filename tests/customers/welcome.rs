//! The campaigns of a Customer's moments: `customer_created` when POST
//! /customers creates one, `customer_enrolled` when it becomes a loyalty
//! member, each run once per moment however many requests arrive at once.

use super::common::{TestServer, all_at_once};
use serde_json::json;

const CREATED: &str =
    "id: 1\nkind: points\nname: Hello\non: customer_created\npoints: { fixed: 10 }\n";
const ENROLLED: &str = "id: 2\nkind: points\nname: Welcome\non: customer_enrolled\nwhen: event.type == \"customer_enrolled\"\npoints: { fixed: 25 }\n";

#[tokio::test]
async fn creation_and_enrollment_run_their_campaigns_once_each_even_under_concurrent_patches() {
    let (server, _dir) = TestServer::start_with_campaigns(
        &[("created.yaml", CREATED), ("enrolled.yaml", ENROLLED)],
        "2026-11-02T09:00:00Z",
        None,
    )
    .await;
    let key = server.bootstrap_key();
    let balance = |id: String| {
        let server = &server;
        let key = &key;
        async move {
            let (status, points) = server
                .call_as("GET", &format!("/customers/{id}/points"), key, None)
                .await;
            assert_eq!(status, 200, "{points}");
            points["points"].as_i64().unwrap()
        }
    };
    // Created enrolled (the default): both moments.
    let ana = server
        .create_customer(&key, json!({"email": "ana@example.com"}))
        .await;
    assert_eq!(balance(ana.clone()).await, 35);

    // Created without enrolling: only the creation; then many PATCHes at
    // once make it a member, and exactly one of them enrolled it.
    let bob = server
        .create_customer(&key, json!({"email": "bob@example.com", "enroll": false}))
        .await;
    assert_eq!(balance(bob.clone()).await, 10);
    let path = format!("/customers/{bob}");
    let requests = (0..8)
        .map(|_| {
            server
                .request_as("PATCH", &path, &key)
                .json(&json!({"loyalty_member": true}))
        })
        .collect();
    for (status, body) in all_at_once(requests).await {
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(balance(bob.clone()).await, 35);
    // A PATCH that changes nothing about membership runs nothing.
    let (status, _) = server
        .call_as("PATCH", &path, &key, Some(json!({"first_name": "Bob"})))
        .await;
    assert_eq!(status, 200);
    assert_eq!(balance(bob.clone()).await, 35);

    // The points say which moment gave them.
    let (_, history) = server
        .call_as(
            "GET",
            &format!("/points/transactions?customer_id={bob}"),
            &key,
            None,
        )
        .await;
    let reasons: Vec<&str> = history["transactions"]
        .as_array()
        .map(|all| all.iter().filter_map(|t| t["reason"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        reasons.contains(&"customer_created") && reasons.contains(&"customer_enrolled"),
        "{history}"
    );
}
