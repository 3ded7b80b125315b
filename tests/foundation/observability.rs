//! What operators read of a running server, over real HTTP: request ids on
//! both listeners, and `GET /metrics` behind the operator token counting
//! requests by operation, error answers by code, the group commit and the
//! campaign loads.

use crate::common::{OPERATOR_TOKEN, TestServer, all_at_once, metric_sample};
use serde_json::json;

async fn metrics(server: &TestServer) -> String {
    let response = reqwest::Client::new()
        .get(format!("{}/metrics", server.admin_url()))
        .bearer_auth(OPERATOR_TOKEN)
        .send()
        .await
        .expect("scraped");
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    response.text().await.expect("text")
}

#[tokio::test]
async fn every_answer_carries_the_callers_request_id_or_a_new_one() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let check = |id: Option<&str>| {
        let mut request = server.request_as("GET", "/check", &key);
        if let Some(id) = id {
            request = request.header("X-Request-Id", id);
        }
        async move {
            let response = request.send().await.expect("sent");
            response.headers()["x-request-id"]
                .to_str()
                .unwrap()
                .to_string()
        }
    };
    assert_eq!(check(Some("till-12:sale-0042")).await, "till-12:sale-0042");
    let generated = check(None).await;
    assert_eq!(generated.len(), 24, "{generated}");
    assert_ne!(generated, check(None).await, "each request gets its own");
    let replaced = check(Some("evil value with spaces")).await;
    assert_eq!(
        replaced.len(),
        24,
        "a caller's id with spaces is replaced: {replaced}"
    );

    // Error answers and the back-office carry one too.
    let refused = server
        .http
        .get(server.url("/check"))
        .header("X-Request-Id", "no-key-1")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    assert_eq!(refused.headers()["x-request-id"], "no-key-1");
    let page = server
        .http
        .get(format!("{}/login", server.admin_url()))
        .header("X-Request-Id", "operator-1")
        .send()
        .await
        .unwrap();
    assert_eq!(page.headers()["x-request-id"], "operator-1");
}

#[tokio::test]
async fn metrics_need_the_operator_token() {
    let server = TestServer::start().await;
    let url = format!("{}/metrics", server.admin_url());
    let none = server.http.get(&url).send().await.unwrap();
    assert_eq!(none.status(), 401);
    assert_eq!(none.headers()["www-authenticate"], "Bearer");
    let wrong = server
        .http
        .get(&url)
        .bearer_auth("guess")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    let api_key = server.bootstrap_key();
    let on_the_api = server
        .request_as("GET", "/metrics", &api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(on_the_api.status(), 404, "only the back-office serves them");
}

#[tokio::test]
async fn metrics_count_requests_by_operation_errors_by_code_and_the_group_commit() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let (status, customer) = server
        .call_as("POST", "/customers", &key, Some(json!({"code": "m-1"})))
        .await;
    assert_eq!(status, 200, "{customer}");
    let id = customer["id"].as_str().unwrap();
    let carts = (0..3)
        .map(|n| {
            server
                .request_as("POST", "/carts/realtime", &key)
                .json(&json!({
                    "customer_id": id, "code": format!("M-{n}"), "date": "2026-11-23T10:00:00Z",
                    "lines": [{"product_code": "A", "quantity": 1, "price": 4.5}]
                }))
        })
        .collect();
    for (status, body) in all_at_once(carts).await {
        assert_eq!(status, 200, "{body}");
    }
    for missing in ["nobody-1", "nobody-2"] {
        let (status, _) = server
            .call_as("GET", &format!("/customers/{missing}"), &key, None)
            .await;
        assert_eq!(status, 404);
    }

    let text = metrics(&server).await;
    let requests = |operation: &str, status: &str| {
        metric_sample(
            &text,
            &format!(
                "loyalty_http_requests_total{{listener=\"api\",operation=\"{operation}\",status=\"{status}\"}}"
            ),
        )
    };
    assert_eq!(requests("POST /carts/realtime", "200"), Some(3.0), "{text}");
    assert_eq!(requests("GET /customers/{value}", "404"), Some(2.0));
    assert_eq!(
        metric_sample(
            &text,
            "loyalty_http_errors_total{code=\"customer_not_found\",status=\"404\"}"
        ),
        Some(2.0)
    );
    assert_eq!(
        metric_sample(
            &text,
            "loyalty_http_request_duration_seconds_count{listener=\"api\",operation=\"POST /carts/realtime\"}"
        ),
        Some(3.0)
    );
    let batched = metric_sample(&text, "loyalty_group_commit_batch_size_sum").unwrap();
    assert_eq!(batched, 3.0, "every cart went through the group commit");
    assert_eq!(
        metric_sample(
            &text,
            "loyalty_campaign_reloads_total{company=\"demo\",outcome=\"loaded\"}"
        ),
        Some(1.0)
    );
    assert!(text.contains("loyalty_build_info{version="));
    // The store's round trips: one more cart adds its queries (a cart reads
    // and writes) and the time they took.
    let queries = metric_sample(&text, "loyalty_store_queries_total").unwrap();
    let waited = metric_sample(&text, "loyalty_store_query_seconds_total").unwrap();
    assert!(queries >= 6.0 && waited > 0.0, "{text}");
    let (status, body) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(json!({
                "customer_code": "m-1", "code": "M-9", "date": "2026-11-23T10:00:00Z",
                "lines": [{"product_code": "A", "quantity": 1, "price": 4.5}]
            })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let later = metrics(&server).await;
    let more = metric_sample(&later, "loyalty_store_queries_total").unwrap() - queries;
    assert!(more >= 2.0, "a cart and a scrape: {more} queries");
    assert!(metric_sample(&later, "loyalty_store_query_seconds_total").unwrap() > waited);
    assert!(
        !text.contains(id),
        "no Customer id in a label: operations are named by template"
    );
}

/// Log lines written while a test runs, for the assertions about them.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn one_cart_can_be_read_in_the_logs_by_its_request_id() {
    // This test's thread logs at debug to a buffer: the server runs on the
    // test's own single-threaded runtime, so every line of the cart lands here.
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("loyalty=debug"))
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _logging = tracing::subscriber::set_default(subscriber);

    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let (_, customer) = server
        .call_as("POST", "/customers", &key, Some(json!({"code": "slow-1"})))
        .await;
    // Other tests of this binary, on other threads without this subscriber,
    // may have met the log's callsites first and cached them as never
    // logged: weigh them again now that every one of them is registered.
    tracing::callsite::rebuild_interest_cache();
    let response = server
        .request_as("POST", "/carts/realtime", &key)
        .header("X-Request-Id", "slow-cart-1")
        .json(&json!({
            "customer_id": customer["id"], "code": "SLOW-1", "date": "2026-11-23T10:00:00Z",
            "lines": [{"product_code": "A", "quantity": 1, "price": 4.5}]
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let of_the_cart: Vec<&str> = text
        .lines()
        .filter(|line| line.contains("request{id=slow-cart-1"))
        .collect();
    let has = |needle: &str| of_the_cart.iter().any(|line| line.contains(needle));
    assert!(
        has("campaign{id=201}: loyalty::engine::evaluate: campaign evaluated"),
        "{text}"
    );
    assert!(has("recorded by the group commit"), "{text}");
    assert!(has("answered status=200"), "{text}");
    assert!(
        text.lines()
            .any(|line| line.contains("group_commit_batch{lane=") && line.contains("events=1")),
        "{text}"
    );
}
