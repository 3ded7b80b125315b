//! Erasing a Customer who was merged leaves nothing of them behind.

use super::*;

#[tokio::test]
async fn anonymizing_a_target_erases_the_customers_merged_into_it() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let old = create(&server, &key, json!({"email": "old-self@example.com", "first_name": "Olga", "cards": [{"number": "OLD-1"}]})).await;
    let main = create(&server, &key, json!({"email": "main-self@example.com"})).await;
    let (old_id, main_id) = (old["id"].as_str().unwrap(), main["id"].as_str().unwrap());
    server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": old_id, "to_customer_id": main_id})),
        )
        .await;

    let (status, body) = server
        .call_as(
            "DELETE",
            &format!("/customers/{main_id}?mode=delete"),
            &key,
            None,
        )
        .await;
    assert_error(status, &body, 409, "delete_not_allowed");

    let (status, _) = server
        .call_as("DELETE", &format!("/customers/{main_id}"), &key, None)
        .await;
    assert_eq!(status, 200);
    let stored = server.running.services.store();
    let mut documents = stored.raw_documents("customer", "demo").await.unwrap();
    documents.extend(stored.raw_documents("merge", "demo").await.unwrap());
    documents.extend(
        stored
            .raw_documents("customer_claim", "demo")
            .await
            .unwrap(),
    );
    let text = serde_json::to_string(&documents).unwrap();
    for personal in [
        "old-self@example.com",
        "Olga",
        "OLD-1",
        "main-self@example.com",
    ] {
        assert!(!text.contains(personal), "{personal} is still stored");
    }
    let (status, body) = server
        .call_as("POST", &format!("/customers/{old_id}/unmerge"), &key, None)
        .await;
    assert_error(status, &body, 422, "customer_inactive");
}
