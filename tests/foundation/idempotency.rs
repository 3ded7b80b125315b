//! Idempotency-Key: replays byte for byte, refusals of reuse, keys in use.

use super::*;
use loyalty::common::time::Timestamp;
use loyalty::resources::companies::model::CreatedApiKey;

async fn post_with_key(
    server: &TestServer,
    key: &CreatedApiKey,
    path: &str,
    idempotency_key: &str,
    body: &Value,
) -> (u16, String, bool) {
    let response = server
        .request_as("POST", path, key)
        .header("Idempotency-Key", idempotency_key)
        .json(body)
        .send()
        .await
        .expect("sent");
    let status = response.status().as_u16();
    let replayed = response.headers().get("idempotent-replayed").is_some();
    (status, response.text().await.expect("body"), replayed)
}

async fn customer_count(server: &TestServer, company: &str) -> usize {
    server
        .running
        .services
        .store()
        .raw_documents("customer", company)
        .await
        .unwrap()
        .len()
}

#[tokio::test]
async fn a_retry_writing_a_whole_number_as_1_0_is_the_same_request() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let first = json!({"email": "whole@example.com", "attributes": {"visits": 1}});
    let again = json!({"email": "whole@example.com", "attributes": {"visits": 1.0}});
    let (status, _, replayed) = post_with_key(&server, &key, "/customers", "whole-1", &first).await;
    assert_eq!((status, replayed), (200, false));
    let (status, body, replayed) =
        post_with_key(&server, &key, "/customers", "whole-1", &again).await;
    assert_eq!((status, replayed), (200, true), "{body}");
    // Another number is another request.
    let other = json!({"email": "whole@example.com", "attributes": {"visits": 1.5}});
    let (status, body, _) = post_with_key(&server, &key, "/customers", "whole-1", &other).await;
    assert_eq!(status, 422, "{body}");
}

#[tokio::test]
async fn a_method_no_route_has_answers_405_with_or_without_a_key() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    for idempotency_key in [None, Some("trace-1")] {
        let mut request = server.request_as("TRACE", "/customers", &key);
        if let Some(idempotency_key) = idempotency_key {
            request = request.header("Idempotency-Key", idempotency_key);
        }
        let response = request.send().await.expect("sent");
        assert_eq!(response.status(), 405, "{idempotency_key:?}");
        let body: Value = response.json().await.expect("a JSON body");
        assert!(body["code"].is_string(), "{body}");
    }
    // A method routes have, with a key they never take: refused as before.
    let (status, body) = read(
        server
            .request_as("GET", "/customers/nobody", &key)
            .header("Idempotency-Key", "get-1")
            .send()
            .await
            .expect("sent"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("invalid_request"))
    );
}

#[tokio::test]
async fn a_replay_is_charged_to_its_tier_and_says_so() {
    let server = TestServer::start().await;
    let key = server
        .company_with_limits(
            "replays",
            Some(loyalty::resources::companies::model::RateLimits {
                critical: 3,
                moderate: 3,
                low: 3,
            }),
        )
        .await;
    let body = json!({"email": "charged@example.com"});
    let send = || {
        server
            .request_as("POST", "/customers", &key)
            .header("Idempotency-Key", "charged-1")
            .json(&body)
            .send()
    };
    let first = send().await.unwrap();
    assert_eq!(first.status(), 200);
    let policy = first.headers()["ratelimit-policy"].clone();
    let mut remaining = Vec::new();
    let mut refused = 0;
    for _ in 0..4 {
        let replay = send().await.unwrap();
        if replay.status() == 429 {
            refused += 1;
            assert!(replay.headers().contains_key("retry-after"));
            continue;
        }
        assert_eq!(replay.headers()["idempotent-replayed"], "true");
        assert_eq!(replay.headers()["ratelimit-policy"], policy);
        remaining.push(replay.headers()["ratelimit"].to_str().unwrap().to_string());
    }
    assert!(!remaining.is_empty(), "a replay within the quota is served");
    assert!(
        refused > 0,
        "replays spend the quota like any request ({remaining:?})"
    );
}

#[tokio::test]
async fn a_retry_replays_the_first_response_byte_for_byte_and_changes_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let body = json!({"email": "once@example.com"});
    let (status, first, replayed) =
        post_with_key(&server, &key, "/customers", "order-1", &body).await;
    assert_eq!((status, replayed), (200, false), "{first}");
    let (status, second, replayed) =
        post_with_key(&server, &key, "/customers", "order-1", &body).await;
    assert_eq!((status, replayed), (200, true));
    assert_eq!(second, first, "byte for byte");
    assert_eq!(customer_count(&server, "demo").await, 1);

    // A refusal is an answer too: it is replayed, not re-evaluated.
    let duplicate = json!({"email": "once@example.com", "first_name": "again"});
    let (status, refused, _) =
        post_with_key(&server, &key, "/customers", "order-2", &duplicate).await;
    assert_eq!(status, 409, "{refused}");
    server
        .call_as(
            "DELETE",
            "/customers/once@example.com?search_by=email&mode=delete",
            &key,
            None,
        )
        .await;
    let (status, again, replayed) =
        post_with_key(&server, &key, "/customers", "order-2", &duplicate).await;
    assert_eq!((status, again, replayed), (409, refused, true));
    assert_eq!(customer_count(&server, "demo").await, 0);
}

#[tokio::test]
async fn the_same_parameters_written_differently_are_the_same_request() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let send = |body: &'static str, language: &'static str| {
        server
            .request_as("POST", "/customers", &key)
            .header("Idempotency-Key", "rewritten")
            .header("Content-Type", "application/json")
            .header("Accept-Language", language)
            .body(body)
            .send()
    };
    let first = send(r#"{"email":"same@example.com","first_name":"Ana"}"#, "en")
        .await
        .unwrap();
    assert_eq!(first.status().as_u16(), 200);
    let first_body = first.text().await.unwrap();
    // Other key order and whitespace, as a client library re-serialising
    // its retry may send: a replay, not a refusal.
    let retry = send(
        "{ \"first_name\" : \"Ana\",\n  \"email\": \"same@example.com\" }",
        "en",
    )
    .await
    .unwrap();
    assert_eq!(retry.status().as_u16(), 200);
    assert!(retry.headers().get("idempotent-replayed").is_some());
    assert_eq!(retry.text().await.unwrap(), first_body);
    // Another answer language is another request.
    let other = send(r#"{"email":"same@example.com","first_name":"Ana"}"#, "es")
        .await
        .unwrap();
    assert_eq!(other.status().as_u16(), 422);
    let refused: Value = other.json().await.unwrap();
    assert_eq!(refused["code"], "idempotency_key_reused", "{refused}");
    assert_eq!(customer_count(&server, "demo").await, 1);
}

#[tokio::test]
async fn a_key_reused_with_other_parameters_is_refused() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    post_with_key(
        &server,
        &key,
        "/customers",
        "k-1",
        &json!({"email": "a@example.com"}),
    )
    .await;
    let (status, body, _) = post_with_key(
        &server,
        &key,
        "/customers",
        "k-1",
        &json!({"email": "b@example.com"}),
    )
    .await;
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("idempotency_key_reused"))
    );
    let (status, body, _) = post_with_key(
        &server,
        &key,
        "/customers/search",
        "k-1",
        &json!({"email": "a@example.com"}),
    )
    .await;
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("idempotency_key_reused")),
        "another endpoint"
    );
    assert_eq!(customer_count(&server, "demo").await, 1);
}

#[tokio::test]
async fn the_header_is_refused_on_get_and_delete() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    for method in ["GET", "DELETE"] {
        let (status, body) = server
            .send(
                server
                    .request_as(method, "/customers/cus_x", &key)
                    .header("Idempotency-Key", "k"),
            )
            .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("invalid_request")),
            "{method}"
        );
    }
    let (status, body) = server
        .send(
            server
                .request_as("POST", "/customers", &key)
                .header("Idempotency-Key", "x".repeat(300))
                .json(&json!({})),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("invalid_request"))
    );
    assert_eq!(customer_count(&server, "demo").await, 0);
}

#[tokio::test]
async fn concurrent_identical_requests_have_exactly_one_effect() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..12 {
        let request = server
            .request_as("POST", "/customers", &key)
            .header("Idempotency-Key", "till-7-receipt-99")
            .json(&json!({"first_name": "Concurrent"}));
        tasks.spawn(async move {
            let response = request.send().await.expect("sent");
            (
                response.status().as_u16(),
                response.text().await.expect("body"),
            )
        });
    }
    let mut created_bodies = Vec::new();
    while let Some(result) = tasks.join_next().await {
        let (status, body) = result.expect("task");
        match status {
            200 => created_bodies.push(body),
            409 => assert!(body.contains("idempotency_key_in_use"), "{body}"),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert!(!created_bodies.is_empty());
    assert!(
        created_bodies.windows(2).all(|pair| pair[0] == pair[1]),
        "every 200 is the same Customer"
    );
    assert_eq!(
        customer_count(&server, "demo").await,
        1,
        "exactly one side effect"
    );
}

#[tokio::test]
async fn keys_belong_to_one_company() {
    let server = TestServer::start().await;
    let demo = server.bootstrap_key();
    let acme = server.company_with_key("acme").await;
    let body = json!({"email": "shared@example.com"});
    let (status_a, _, _) = post_with_key(&server, &demo, "/customers", "same-key", &body).await;
    let (status_b, _, replayed) =
        post_with_key(&server, &acme, "/customers", "same-key", &body).await;
    assert_eq!((status_a, status_b, replayed), (200, 200, false));
    assert_eq!(customer_count(&server, "acme").await, 1);
}

#[tokio::test]
async fn expired_keys_are_forgotten_and_purged() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    post_with_key(
        &server,
        &key,
        "/customers",
        "old-key",
        &json!({"email": "first@example.com"}),
    )
    .await;
    let store = server.running.services.store();
    assert_eq!(
        store
            .raw_documents("idempotency", "demo")
            .await
            .unwrap()
            .len(),
        1
    );
    let tomorrow = Timestamp::from(chrono::Utc::now() + chrono::Duration::hours(25));
    store.purge_idempotency_keys(tomorrow).await.unwrap();
    assert!(
        store
            .raw_documents("idempotency", "demo")
            .await
            .unwrap()
            .is_empty()
    );
    let (status, _, replayed) = post_with_key(
        &server,
        &key,
        "/customers",
        "old-key",
        &json!({"email": "second@example.com"}),
    )
    .await;
    assert_eq!(
        (status, replayed),
        (200, false),
        "a forgotten key is new again"
    );
}

#[tokio::test]
async fn replays_survive_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("surrealkv://{}", dir.path().join("store").display());
    let first = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
    let key = first.bootstrap_key();
    let body = json!({"email": "durable@example.com"});
    let (status, original, _) = post_with_key(&first, &key, "/customers", "durable-1", &body).await;
    assert_eq!(status, 200);
    first.running.shutdown().await.expect("shutdown");

    let second = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
    let (status, replay, replayed) =
        post_with_key(&second, &key, "/customers", "durable-1", &body).await;
    assert_eq!((status, replayed), (200, true));
    assert_eq!(replay, original);
    assert_eq!(customer_count(&second, "demo").await, 1);
    second.running.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn a_key_held_by_a_killed_server_is_free_as_soon_as_it_restarts() {
    use loyalty::http::idempotency::model::KeyClaim;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("surrealkv://{}", dir.path().join("store").display());
    let first = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
    let services = first.running.services.clone();
    let claim = |services: loyalty::services::Services| async move {
        loyalty::http::idempotency::service::claim_idempotency_key(
            &services,
            "demo",
            "till-3-sale-41",
            "same request",
        )
        .await
        .expect("claim")
    };
    let (claimed, running) = claim(services.clone()).await;
    assert_eq!(claimed, KeyClaim::Run);
    assert_eq!(claim(services.clone()).await.0, KeyClaim::InUse);
    // The process is killed while it runs the request: it never retires
    // and its last renewal still looks alive (what a graceful stop
    // forgets, a kill leaves behind).
    let (killed, now) = (services.instance_id().to_string(), services.now());
    drop((services, running));
    first.running.shutdown().await.expect("shutdown");
    let store = loyalty::storage::Store::connect(&db, None)
        .await
        .expect("store");
    store.renew_instance(&killed, now).await.expect("renew");
    drop(store);

    let second = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
    assert_eq!(
        claim(second.running.services.clone()).await.0,
        KeyClaim::Run,
        "the retry runs at once, not 120 s later"
    );
    second.running.shutdown().await.expect("shutdown");
}
