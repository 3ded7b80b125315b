//! A Company's rate limits hold for the cluster: with two nodes, each admits
//! its share, so the rate accepted over both is the limit plus the burst,
//! and a 429's Retry-After is honest; when a node stops, the other takes the
//! whole quota within a few seconds.

use std::time::{Duration, Instant};

use loyalty::resources::companies::model::{CreatedApiKey, RateLimits};

use crate::harness::Cluster;
use crate::races::CAMPAIGNS;

/// Tier 2 (GET /check) admits 20 requests a second, and a burst of 20.
const METERED: RateLimits = RateLimits {
    critical: 100,
    moderate: 20,
    low: 5,
};

/// How long after a node starts or stops every node shares the quotas
/// anew: a lease renewal, with room.
const RESHARED: Duration = Duration::from_millis(2500);

/// Sends GET /check as `key` from eight clients, spread over every node, for
/// `length`; how many were admitted, between the first admission and the
/// last, and the Retry-After of each refusal with the node that gave it.
async fn drive(
    cluster: &Cluster,
    key: &CreatedApiKey,
    length: Duration,
) -> (usize, Duration, Vec<(usize, u64)>) {
    let started = Instant::now();
    let mut clients = tokio::task::JoinSet::new();
    for client in 0..8 {
        let requests: Vec<(usize, reqwest::RequestBuilder)> = (0..)
            .take(10_000)
            .map(|n: usize| {
                let node = (client + n) % cluster.nodes.len();
                (node, cluster.nodes[node].request_as("GET", "/check", key))
            })
            .collect();
        clients.spawn(async move {
            let mut admitted = Vec::new();
            let mut refusals = Vec::new();
            for (node, request) in requests {
                if started.elapsed() >= length {
                    break;
                }
                let response = request.send().await.expect("answered");
                match response.status().as_u16() {
                    200 => admitted.push(started.elapsed()),
                    429 => {
                        let retry_after = response
                            .headers()
                            .get("retry-after")
                            .and_then(|v| v.to_str().ok())
                            .and_then(|v| v.parse().ok())
                            .expect("a 429 says when to retry");
                        refusals.push((node, retry_after));
                    }
                    other => panic!("GET /check answered {other}"),
                }
            }
            (admitted, refusals)
        });
    }
    let mut admitted = Vec::new();
    let mut refusals = Vec::new();
    while let Some(client) = clients.join_next().await {
        let (client_admitted, client_refusals) = client.expect("ran");
        admitted.extend(client_admitted);
        refusals.extend(client_refusals);
    }
    // The window runs from the first admission: before it the nodes read the
    // key and the Company's settings, as any first request does.
    let first = admitted.iter().min().copied().unwrap_or_default();
    let last = admitted.iter().max().copied().unwrap_or_default();
    (admitted.len(), last - first, refusals)
}

/// Asserts `admitted` over `took` is the tier-2 limit plus its burst, ±10 %.
fn assert_limit_plus_burst(admitted: usize, took: Duration, nodes: &str) {
    let limit = f64::from(METERED.moderate);
    let expected = limit * took.as_secs_f64() + limit;
    let admitted = admitted as f64;
    assert!(
        (admitted - expected).abs() <= expected * 0.10,
        "{nodes}: admitted {admitted} in {took:?}, expected {expected:.0} ± 10 %"
    );
}

#[tokio::test]
async fn a_companys_limit_holds_over_two_nodes_and_passes_to_the_survivor() {
    let mut cluster = Cluster::start_alone(2, CAMPAIGNS).await;
    let key = cluster.nodes[0]
        .company_with_limits("metered", Some(METERED))
        .await;
    // Each node reads the key and the Company's settings once before the
    // measured run; its quota is full again after the wait.
    for node in &cluster.nodes {
        assert_eq!(node.get_as("/check", &key).await.0, 200);
    }
    tokio::time::sleep(RESHARED).await;
    for node in &cluster.nodes {
        assert_eq!(node.running.services.processes_sharing_the_store(), 2);
    }
    let (admitted, took, refusals) = drive(&cluster, &key, Duration::from_secs(3)).await;
    assert_limit_plus_burst(admitted, took, "two nodes");
    assert!(!refusals.is_empty(), "eight clients exceed 20 a second");
    // Honest: after waiting what Retry-After said, the node admits again.
    let (node, longest) = refusals
        .iter()
        .copied()
        .max_by_key(|(_, seconds)| *seconds)
        .expect("a refusal");
    assert!(longest >= 1);
    tokio::time::sleep(Duration::from_secs(longest)).await;
    assert_eq!(cluster.nodes[node].get_as("/check", &key).await.0, 200);

    // Node 1 stops: node 0 alone admits the whole quota.
    let stopped = cluster.nodes.remove(1);
    stopped.running.shutdown().await.expect("node 1 stops");
    tokio::time::sleep(RESHARED).await;
    assert_eq!(
        cluster.nodes[0]
            .running
            .services
            .processes_sharing_the_store(),
        1
    );
    let (admitted, took, _) = drive(&cluster, &key, Duration::from_secs(2)).await;
    assert_limit_plus_burst(admitted, took, "one node");
}
