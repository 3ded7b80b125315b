//! Identifiers stay unique under concurrent requests.

use super::*;

async fn concurrent_creates(
    server: &TestServer,
    key: &CreatedApiKey,
    bodies: Vec<Value>,
) -> Vec<(u16, Value)> {
    let requests = bodies
        .iter()
        .map(|body| server.request_as("POST", "/customers", key).json(body))
        .collect();
    all_at_once(requests).await
}

#[tokio::test]
async fn one_identifier_is_claimed_once_under_concurrent_creates() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let bodies = (0..24)
        .map(|n| match n % 3 {
            0 => json!({"email": "race@example.com", "first_name": format!("e{n}")}),
            1 => json!({"code": "RACE", "first_name": format!("c{n}")}),
            _ => json!({"cards": [{"number": "RACE-CARD"}], "first_name": format!("k{n}")}),
        })
        .collect();
    let results = concurrent_creates(&server, &key, bodies).await;
    let created = results.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(created, 3, "exactly one winner per identifier");
    for (status, body) in &results {
        if *status != 200 {
            assert_error(*status, body, 409, "customer_already_exists");
        }
    }
    let stored = server
        .running
        .services
        .store()
        .raw_documents("customer", "demo")
        .await
        .unwrap();
    assert_eq!(stored.len(), 3);
    let claims = server
        .running
        .services
        .store()
        .raw_documents("customer_claim", "demo")
        .await
        .unwrap();
    assert_eq!(claims.len(), 3);
}
