//! The SurrealDB server is killed under load and started again: every
//! request is answered 200 or, fast, 503 `store_unavailable` with
//! Retry-After; the nodes reconnect by themselves; and retrying every
//! refused cart with its Idempotency-Key records each cart exactly once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::harness::Cluster;
use crate::races::CAMPAIGNS;

/// A point for every cart.
const A_POINT_A_CART: (&str, &str) = (
    "earn.yaml",
    "id: 30\nkind: points\nname: A point a cart\non: cart\npoints: { fixed: 1 }\n",
);

/// Longest a refusal may take: a request under way when the store went
/// away waits at most for the probe that finds it gone (its wait, after a
/// renewal a second later), and one arriving after is refused at once.
const LONGEST_REFUSAL: Duration =
    Duration::from_secs(loyalty::storage::health::PROBE_WAIT.as_secs() + 2);

/// One cart sent, and how it was answered.
#[derive(Debug, Clone)]
struct Sent {
    code: String,
    status: u16,
    error: Option<String>,
    retry_after: Option<String>,
    took: Duration,
}

/// A cart of `customer` coded `code`.
fn cart(customer: &str, code: &str) -> Value {
    json!({"customer_id": customer, "code": code,
           "lines": [{"product_code": "TEA", "quantity": 1, "price": 3}]})
}

/// Sends the cart `code` with its code as Idempotency-Key to node `n`.
async fn send(cluster: &Cluster, n: usize, customer: &str, code: &str) -> Sent {
    let started = Instant::now();
    let response = cluster
        .request(n, "POST", "/carts/realtime", &cart(customer, code))
        .header("Idempotency-Key", code)
        .send()
        .await
        .expect("the node answers");
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body: Value = response.json().await.unwrap_or(Value::Null);
    Sent {
        code: code.to_string(),
        status,
        error: body["code"].as_str().map(str::to_string),
        retry_after,
        took: started.elapsed(),
    }
}

/// Four tills sending carts to both nodes until `stop` is set, each waiting
/// as a refusal's Retry-After says.
async fn tills(
    cluster: &Arc<Cluster>,
    customer: &str,
    stop: &Arc<AtomicBool>,
    sent: &Arc<Mutex<Vec<Sent>>>,
) -> tokio::task::JoinSet<()> {
    let mut tasks = tokio::task::JoinSet::new();
    for till in 0..4 {
        let (cluster, customer, stop, sent) = (
            cluster.clone(),
            customer.to_string(),
            stop.clone(),
            sent.clone(),
        );
        tasks.spawn(async move {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let code = format!("T{till}-{n}");
                let answer = send(&cluster, till + n, &customer, &code).await;
                // A till waits as Retry-After says before its next sale.
                let pause = match answer.retry_after.as_deref().map(str::parse) {
                    Some(Ok(seconds)) => Duration::from_secs(seconds),
                    _ => Duration::from_millis(20),
                };
                sent.lock().await.push(answer);
                n += 1;
                tokio::time::sleep(pause).await;
            }
        });
    }
    tasks
}

#[tokio::test]
async fn a_lost_store_fails_requests_fast_and_the_nodes_come_back_by_themselves() {
    let mut files = CAMPAIGNS.to_vec();
    files.push(A_POINT_A_CART);
    let cluster = Cluster::start_on("surrealkv", 2, &files).await;
    let customer = cluster.customer("steady@example.com").await;
    // Each node serves a cart first (its key, settings and campaigns read).
    for n in 0..2 {
        assert_eq!(
            send(&cluster, n, &customer, &format!("W{n}")).await.status,
            200
        );
    }
    let cluster = Arc::new(cluster);
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = tills(&cluster, &customer, &stop, &sent).await;

    tokio::time::sleep(Duration::from_secs(1)).await;
    cluster.surreal.stop().await.expect("the store stops");
    tokio::time::sleep(Duration::from_secs(2)).await;
    // On call while the store is lost: the metrics still answer, fast, and
    // say what the tills are being told.
    let scraped = Instant::now();
    let metrics = reqwest::Client::new()
        .get(format!("{}/metrics", cluster.nodes[0].admin_url()))
        .bearer_auth(crate::common::OPERATOR_TOKEN)
        .send()
        .await
        .expect("scraped");
    let status = metrics.status();
    let text = metrics.text().await.expect("text");
    assert_eq!(status, 200, "{text}");
    assert!(
        scraped.elapsed() < LONGEST_REFUSAL,
        "{:?}",
        scraped.elapsed()
    );
    assert!(
        text.contains(r#"loyalty_http_errors_total{code="store_unavailable",status="503"}"#),
        "{text}"
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    cluster
        .surreal
        .resume()
        .await
        .expect("the store starts again");
    // The nodes find the store again by themselves.
    let back = Instant::now();
    loop {
        let recovered = sent
            .lock()
            .await
            .iter()
            .rev()
            .take(8)
            .filter(|s| s.status == 200)
            .count();
        if recovered == 8 {
            break;
        }
        assert!(
            back.elapsed() < Duration::from_secs(20),
            "the nodes never served again: {:#?}",
            sent.lock().await.iter().rev().take(12).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, Ordering::Relaxed);
    while tasks.join_next().await.is_some() {}

    let sent = sent.lock().await.clone();
    let refused: Vec<&Sent> = sent.iter().filter(|s| s.status != 200).collect();
    assert!(!refused.is_empty(), "the outage was seen");
    for answer in &sent {
        if answer.status != 200 {
            assert!(answer.took < LONGEST_REFUSAL, "refused fast: {answer:?}");
            assert_eq!(
                (
                    answer.status,
                    answer.error.as_deref(),
                    answer.retry_after.as_deref()
                ),
                (503, Some("store_unavailable"), Some("1")),
                "{answer:?}"
            );
        }
    }
    // Every refused cart retried with its key: done once, or replayed.
    for (n, answer) in refused.iter().enumerate() {
        let mut retried = send(&cluster, n, &customer, &answer.code).await;
        for _ in 0..50 {
            if retried.status == 200 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            retried = send(&cluster, n + 1, &customer, &answer.code).await;
        }
        assert_eq!(retried.status, 200, "{retried:?}");
    }
    let (status, balance) = cluster
        .get(1, &format!("/customers/{customer}/points"))
        .await;
    assert_eq!(status, 200, "{balance}");
    assert_eq!(
        balance["points"].as_i64(),
        Some(sent.len() as i64 + 2),
        "a point for each cart, each cart once: {} sent, {} refused",
        sent.len(),
        refused.len()
    );
    let store = cluster.nodes[0].running.services.store();
    let kind = loyalty::resources::points::model::PointsKind::Points;
    assert_eq!(
        store
            .ledger_sum("demo", &customer, kind)
            .await
            .expect("the ledger"),
        sent.len() as i64 + 2
    );
}
