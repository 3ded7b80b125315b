//! Associations between Customers.

use super::*;

#[tokio::test]
async fn customers_are_linked_listed_retyped_and_unlinked() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
    let bob = create(&server, &key, json!({"email": "bob@example.com"})).await;
    let eva = create(&server, &key, json!({"email": "eva@example.com"})).await;
    let (ana_id, bob_id, eva_id) = (
        ana["id"].as_str().unwrap(),
        bob["id"].as_str().unwrap(),
        eva["id"].as_str().unwrap(),
    );
    let (status, link) = server
        .call_as(
            "POST",
            "/associations",
            &key,
            Some(json!({"customer_id": ana_id, "associate_id": bob_id, "type": "family"})),
        )
        .await;
    assert_eq!(status, 200, "{link}");
    assert_eq!(link["type"], "family");
    server
        .call_as(
            "POST",
            "/associations",
            &key,
            Some(json!({"customer_id": eva_id, "associate_id": ana_id, "type": "company_account"})),
        )
        .await;

    // Either direction of an existing pair is refused.
    let (status, body) = server
        .call_as(
            "POST",
            "/associations",
            &key,
            Some(json!({"customer_id": bob_id, "associate_id": ana_id, "type": "friends"})),
        )
        .await;
    assert_error(status, &body, 409, "association_already_exists");

    let (status, list) = server
        .call_as(
            "GET",
            &format!("/customers/{ana_id}/associates"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    let associates = list["associates"].as_array().unwrap();
    assert_eq!(associates.len(), 2);
    assert_eq!(associates[0]["customer"]["id"], bob_id);
    assert_eq!(associates[0]["type"], "family");
    assert_eq!(associates[1]["customer"]["id"], eva_id);
    let (_, from_bob) = server
        .call_as(
            "GET",
            &format!("/customers/{bob_id}/associates"),
            &key,
            None,
        )
        .await;
    assert_eq!(from_bob["associates"][0]["customer"]["id"], ana_id);

    let (status, retyped) = server
        .call_as(
            "PATCH",
            "/associations",
            &key,
            Some(json!({"customer_id": bob_id, "associate_id": ana_id, "type": "partner"})),
        )
        .await;
    assert_eq!(status, 200, "{retyped}");
    assert_eq!(retyped["type"], "partner");

    let (status, deleted) = server
        .call_as(
            "DELETE",
            &format!("/associations?customer_id={bob_id}&associate_id={ana_id}"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["deleted"], true);
    let (status, body) = server
        .call_as(
            "DELETE",
            &format!("/associations?customer_id={bob_id}&associate_id={ana_id}"),
            &key,
            None,
        )
        .await;
    assert_error(status, &body, 404, "association_not_found");
    let (status, body) = server
        .call_as(
            "PATCH",
            "/associations",
            &key,
            Some(json!({"customer_id": bob_id, "associate_id": ana_id, "type": "x"})),
        )
        .await;
    assert_error(status, &body, 404, "association_not_found");
    let (_, left) = server
        .call_as(
            "GET",
            &format!("/customers/{ana_id}/associates"),
            &key,
            None,
        )
        .await;
    assert_eq!(left["associates"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn bad_associations_are_refused() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let acme = server.company_with_key("acme").await;
    let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
    let gone = create(&server, &key, json!({"email": "gone@example.com"})).await;
    let foreign = create(&server, &acme, json!({"email": "x@example.com"})).await;
    let (ana_id, gone_id, foreign_id) = (
        ana["id"].as_str().unwrap(),
        gone["id"].as_str().unwrap(),
        foreign["id"].as_str().unwrap(),
    );
    server
        .call_as("DELETE", &format!("/customers/{gone_id}"), &key, None)
        .await;
    let cases = [
        (
            json!({"customer_id": ana_id, "associate_id": ana_id, "type": "self"}),
            422,
            "same_customer",
        ),
        (
            json!({"customer_id": ana_id, "associate_id": "cus_nope", "type": "family"}),
            404,
            "customer_not_found",
        ),
        (
            json!({"customer_id": ana_id, "associate_id": foreign_id, "type": "family"}),
            404,
            "customer_not_found",
        ),
        (
            json!({"customer_id": ana_id, "associate_id": gone_id, "type": "family"}),
            422,
            "customer_inactive",
        ),
        (
            json!({"customer_id": ana_id, "associate_id": gone_id, "type": "bad type"}),
            400,
            "invalid_request",
        ),
    ];
    for (body, status_expected, code) in cases {
        let (status, answer) = server
            .call_as("POST", "/associations", &key, Some(body.clone()))
            .await;
        assert_error(status, &answer, status_expected, code);
    }
    let (_, list) = server
        .call_as(
            "GET",
            &format!("/customers/{ana_id}/associates"),
            &key,
            None,
        )
        .await;
    assert_eq!(list["associates"], json!([]));
}

#[tokio::test]
async fn anonymizing_a_customer_removes_its_links() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
    let bob = create(&server, &key, json!({"email": "bob@example.com"})).await;
    let (ana_id, bob_id) = (ana["id"].as_str().unwrap(), bob["id"].as_str().unwrap());
    server
        .call_as(
            "POST",
            "/associations",
            &key,
            Some(json!({"customer_id": ana_id, "associate_id": bob_id, "type": "family"})),
        )
        .await;
    server
        .call_as("DELETE", &format!("/customers/{bob_id}"), &key, None)
        .await;
    let (_, list) = server
        .call_as(
            "GET",
            &format!("/customers/{ana_id}/associates"),
            &key,
            None,
        )
        .await;
    assert_eq!(list["associates"], json!([]));
    let stored = server
        .running
        .services
        .store()
        .raw_documents("association", "demo")
        .await
        .unwrap();
    assert!(stored.is_empty(), "{stored:?}");
}

#[tokio::test]
async fn one_pair_is_linked_once_under_concurrent_requests() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
    let bob = create(&server, &key, json!({"email": "bob@example.com"})).await;
    let mut requests = Vec::new();
    for n in 0..16 {
        let (from, to) = if n % 2 == 0 {
            (&ana, &bob)
        } else {
            (&bob, &ana)
        };
        let request = server
            .request_as("POST", "/associations", &key)
            .json(&json!({"customer_id": from["id"], "associate_id": to["id"], "type": "family"}));
        requests.push(request);
    }
    let mut created = 0;
    for (status, body) in all_at_once(requests).await {
        match status {
            200 => created += 1,
            _ => assert_error(status, &body, 409, "association_already_exists"),
        }
    }
    assert_eq!(created, 1);
    let stored = server
        .running
        .services
        .store()
        .raw_documents("association", "demo")
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
}
