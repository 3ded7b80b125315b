//! What the nodes of one store share: keys disabled anywhere are refused
//! everywhere within a second, campaigns created through the API on one node
//! are evaluated by every node within the documented delay, and the file
//! campaigns every node reads give the same answers.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::Cluster;
use crate::races::{CAMPAIGNS, draw_of};

/// How long after a campaign is created or changed through one node every
/// node evaluates it (docs/deploy.md, "Several nodes on a SurrealDB server").
const API_CAMPAIGN_DELAY: Duration = Duration::from_secs(2);

/// How long a key disabled on one node may still be accepted by another.
const KEY_DELAY: Duration = Duration::from_secs(1);

/// A cart at store S1 of two coffees, desiring the Voucher `code`.
pub fn cart(customer: &str, code: &str, voucher: &str) -> Value {
    json!({
        "customer_id": customer,
        "code": code,
        "location_code": "S1",
        "coupons_desired": [voucher],
        "lines": [{"product_code": "COFFEE", "quantity": 2, "price": 2.5}]
    })
}

/// Whether a Voucher took something off the cart `answer` shows.
pub fn voucher_applied(answer: &Value) -> bool {
    answer["effects"]
        .as_array()
        .is_some_and(|effects| effects.iter().any(|e| e["type"] == "voucher"))
}

/// Waits until node `n` applies the Voucher `code` of `customer` to a
/// simulated cart (its Coupon, created through another node, has reached it).
pub async fn wait_for_campaign(cluster: &Cluster, n: usize, customer: &str, code: &str) {
    let deadline = tokio::time::Instant::now() + API_CAMPAIGN_DELAY;
    loop {
        let (status, answer) = cluster
            .call(n, "POST", "/carts/simulate", cart(customer, "SIM", code))
            .await;
        assert_eq!(status, 200, "{answer}");
        if voucher_applied(&answer) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "node {n} does not apply the Voucher after {API_CAMPAIGN_DELAY:?}: {answer}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_key_disabled_on_one_node_is_refused_by_the_other_within_a_second() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    let back_office = cluster.nodes[0].back_office().await;
    let key = back_office
        .create_key(loyalty::resources::companies::keys::NewKey {
            company: "demo".to_string(),
            description: "till 7".to_string(),
            enabled: true,
        })
        .await
        .expect("a key");
    // Node 1 accepts the key, and keeps it for its next requests.
    let (status, body) = cluster.nodes[1].get_as("/customers", &key).await;
    assert_eq!(status, 200, "{body}");
    back_office
        .set_key_enabled(&key.key.key, false)
        .await
        .expect("disabled");
    tokio::time::sleep(KEY_DELAY).await;
    for node in &cluster.nodes {
        let (status, body) = node.get_as("/customers", &key).await;
        assert_eq!((status, body), (403, json!({"message": "Forbidden"})));
    }
    back_office
        .set_key_enabled(&key.key.key, true)
        .await
        .expect("enabled again");
    tokio::time::sleep(KEY_DELAY).await;
    let (status, body) = cluster.nodes[1].get_as("/customers", &key).await;
    assert_eq!(status, 200, "enabled again: {body}");
}

#[tokio::test]
async fn a_campaign_created_or_changed_on_one_node_applies_on_the_other() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    let ana = cluster.customer("ana@example.com").await;
    let earned = |answer: &Value| -> i64 {
        answer["effects"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["type"] == "points")
            .filter_map(|e| e["points"].as_i64())
            .sum()
    };
    let simulate = |n: usize| {
        cluster.call(
            n,
            "POST",
            "/carts/simulate",
            json!({"customer_id": ana, "code": "S",
                   "lines": [{"product_code": "TEA", "quantity": 1, "price": 10}]}),
        )
    };
    let (_, before) = simulate(1).await;
    assert_eq!(earned(&before), 0, "{before}");

    let (status, created) = cluster
        .call(
            0,
            "POST",
            "/points",
            json!({"name": "Bonus", "on": "cart", "points": {"fixed": 5}}),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    tokio::time::sleep(API_CAMPAIGN_DELAY).await;
    let (_, after) = simulate(1).await;
    assert_eq!(
        earned(&after),
        5,
        "created on node 0, applied by node 1: {after}"
    );

    let id = created["id"].as_i64().expect("an id");
    let (status, changed) = cluster
        .call(
            1,
            "PATCH",
            &format!("/points/{id}"),
            json!({"points": {"fixed": 7}}),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    tokio::time::sleep(API_CAMPAIGN_DELAY).await;
    let (_, after) = simulate(0).await;
    assert_eq!(
        earned(&after),
        7,
        "changed on node 1, applied by node 0: {after}"
    );
}

#[tokio::test]
async fn the_file_campaigns_give_the_same_answers_on_every_node() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    for n in 0..2 {
        let customer = cluster.customer(&format!("same{n}@example.com")).await;
        let (status, answer) = cluster
            .call(
                n,
                "POST",
                "/custom_events",
                json!({"customer_id": customer, "type": "visit"}),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        assert!(draw_of(&answer, 20).is_some(), "node {n}: {answer}");
    }
    let (_, listed_0) = cluster.get(0, "/instant_wins").await;
    let (_, listed_1) = cluster.get(1, "/instant_wins").await;
    assert_eq!(listed_0, listed_1);
}
