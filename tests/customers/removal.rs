//! Anonymizing and deleting Customers.

use super::*;

#[tokio::test]
async fn anonymization_erases_personal_data_for_good() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = create(
        &server,
        &key,
        json!({
            "code": "PII-1", "email": "pii@example.com", "phone": "+34600999999",
            "first_name": "Secreta", "last_name": "Persona", "birth_date": "1970-05-05",
            "postal_code": "28001", "cards": [{"number": "PII-CARD"}], "attributes": {"note": "lives at Calle Falsa 123"}
        }),
    )
    .await;
    let id = customer["id"].as_str().unwrap();
    let (status, deleted) = server
        .call_as("DELETE", &format!("/customers/{id}"), &key, None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(deleted, json!({"id": id, "result": "anonymized"}));

    for path in [
        "/customers/PII-1?search_by=code",
        "/customers/pii@example.com?search_by=email",
        "/customers/%2B34600999999?search_by=phone",
        "/customers/PII-CARD?search_by=card",
    ] {
        let (status, _) = server.call_as("GET", path, &key, None).await;
        assert_eq!(status, 404, "{path}");
    }
    let (status, shell) = server
        .call_as("GET", &format!("/customers/{id}"), &key, None)
        .await;
    assert_eq!(status, 200);
    assert!(shell["anonymized_at"].is_string());
    assert_eq!(shell["active"], false);

    // What is stored, not only what the API shows, holds no personal data.
    let store = server.running.services.store();
    let mut stored = store.raw_documents("customer", "demo").await.unwrap();
    stored.extend(store.raw_documents("customer_claim", "demo").await.unwrap());
    let text = serde_json::to_string(&stored).unwrap();
    for personal in [
        "PII-1",
        "pii@example.com",
        "600999999",
        "Secreta",
        "Persona",
        "1970-05-05",
        "28001",
        "PII-CARD",
        "Calle Falsa",
    ] {
        assert!(
            !text.contains(personal),
            "{personal} is still stored: {text}"
        );
    }

    let (status, body) = server
        .call_as(
            "PATCH",
            &format!("/customers/{id}"),
            &key,
            Some(json!({"email": "back@example.com"})),
        )
        .await;
    assert_error(status, &body, 422, "customer_inactive");
    // Its former identifiers are free for a new Customer.
    create(
        &server,
        &key,
        json!({"email": "pii@example.com", "cards": [{"number": "PII-CARD"}]}),
    )
    .await;
}

#[tokio::test]
async fn delete_mode_removes_the_customer_outright() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = create(
        &server,
        &key,
        json!({"code": "GONE", "email": "gone@example.com"}),
    )
    .await;
    let (status, deleted) = server
        .call_as(
            "DELETE",
            "/customers/GONE?search_by=code&mode=delete",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(deleted, json!({"id": customer["id"], "result": "deleted"}));
    let (status, body) = server
        .call_as(
            "GET",
            &format!("/customers/{}", customer["id"].as_str().unwrap()),
            &key,
            None,
        )
        .await;
    assert_error(status, &body, 404, "customer_not_found");
    let store = server.running.services.store();
    assert_eq!(
        store.raw_documents("customer", "demo").await.unwrap(),
        Vec::<Value>::new()
    );
    assert_eq!(
        store.raw_documents("customer_claim", "demo").await.unwrap(),
        Vec::<Value>::new()
    );
    let (status, body) = server
        .call_as("DELETE", "/customers/GONE?search_by=code", &key, None)
        .await;
    assert_error(status, &body, 404, "customer_not_found");
}
