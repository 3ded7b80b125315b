//! The concurrency guarantees of one node, raced with requests spread over
//! two nodes sharing one SurrealDB server: each node's in-process shortcuts
//! (balance locks, the prize stock view, caches) only spare work; the store's
//! transactions decide.

use serde_json::{Value, json};

use crate::harness::Cluster;

/// The demo Company's campaigns: a prize of one unit, a draw limited per
/// day, the points and Reward they give.
pub const CAMPAIGNS: &[(&str, &str)] = &[
    (
        "prizes.yaml",
        "id: 10\nkind: points\nname: Prize points\npoints: { fixed: 25 }\n",
    ),
    ("reward.yaml", "id: 11\nkind: reward\nname: Free coffee\n"),
    (
        "visit.yaml",
        "id: 20
kind: instant_win
name: Visit draw
on: { custom_event: visit }
once: day
once_limit: 2
instant_win:
  instant_win_prizes:
    - id: points
      name: 25 points
      outcome: { promotion_type: points, promotion_id: 10 }
      weight: 1
",
    ),
    ("scratch.yaml", crate::common::LAST_UNIT_PRIZE),
];

/// The instant_win effect of campaign `rule` in an event's answer.
pub fn draw_of(answer: &Value, rule: i64) -> Option<&Value> {
    answer["effects"]
        .as_array()?
        .iter()
        .find(|effect| effect["type"] == "instant_win" && effect["rule_id"] == rule)
}

/// The points balance of `customer`, read on node `n`.
async fn points_on(cluster: &Cluster, n: usize, customer: &str) -> i64 {
    let (status, body) = cluster
        .get(n, &format!("/customers/{customer}/points"))
        .await;
    assert_eq!(status, 200, "{body}");
    body["points"].as_i64().expect("a balance")
}

#[tokio::test]
async fn the_last_unit_of_a_prize_has_exactly_one_winner_across_nodes() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    let mut bodies = Vec::new();
    for n in 0..16 {
        let customer = cluster.customer(&format!("racer{n}@example.com")).await;
        bodies.push(json!({"customer_id": customer, "type": "scratch"}));
    }
    let answers = cluster.spread("POST", "/custom_events", &bodies).await;
    let mut winners = 0;
    for (status, answer) in &answers {
        assert_eq!(*status, 200, "{answer}");
        let draw = draw_of(answer, 21).expect("everyone takes part");
        winners += usize::from(draw.get("prize_name").is_some());
    }
    assert_eq!(winners, 1, "one unit, one winner: {answers:?}");
    for n in 0..2 {
        let (_, detail) = cluster.get(n, "/instant_wins/21").await;
        assert_eq!(
            detail["instant_win"]["instant_win_prizes"][0]["stock"], 0,
            "node {n}: {detail}"
        );
    }
}

#[tokio::test]
async fn once_limit_holds_for_one_customer_across_nodes() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    let customer = cluster.customer("eager@example.com").await;
    let bodies = vec![json!({"customer_id": customer, "type": "visit"}); 20];
    let answers = cluster.spread("POST", "/custom_events", &bodies).await;
    let mut draws = 0;
    for (status, answer) in &answers {
        assert_eq!(*status, 200, "{answer}");
        draws += usize::from(draw_of(answer, 20).is_some());
    }
    assert_eq!(draws, 2, "once_limit 2 a day: {answers:?}");
    for n in 0..2 {
        assert_eq!(points_on(&cluster, n, &customer).await, 50, "node {n}");
    }
}

#[tokio::test]
async fn redemptions_spread_over_nodes_never_overdraw() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    let customer = cluster.customer("rush@example.com").await;
    cluster.nodes[1].credit(&cluster.key, &customer, 100).await;
    let bodies = vec![json!({"customer_id": customer, "points": 10}); 30];
    let answers = cluster.spread("POST", "/points/redeem", &bodies).await;
    let mut accepted = 0;
    for (status, body) in &answers {
        match status {
            200 => accepted += 1,
            _ => assert_eq!(
                (*status, body["code"].as_str()),
                (422, Some("customer_not_enough_score")),
                "{body}"
            ),
        }
    }
    assert_eq!(accepted, 10, "100 points pay for ten redemptions of 10");
    for n in 0..2 {
        assert_eq!(points_on(&cluster, n, &customer).await, 0, "node {n}");
    }
    let store = cluster.nodes[0].running.services.store();
    let kind = loyalty::resources::points::model::PointsKind::Points;
    let summed = store
        .ledger_sum("demo", &customer, kind)
        .await
        .expect("the ledger");
    assert_eq!(summed, 0, "the ledger agrees with the balance");
}

#[tokio::test]
async fn a_single_use_voucher_raced_on_both_nodes_is_used_once() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    let ana = cluster.customer("ana@example.com").await;
    let (status, coupon) = cluster
        .call(
            0,
            "POST",
            "/coupons",
            json!({"name": "Once", "discount": {"percent": 10}}),
        )
        .await;
    assert_eq!(status, 200, "{coupon}");
    let (status, voucher) = cluster
        .call(
            0,
            "POST",
            "/discounts/trigger",
            json!({"customer_id": ana, "coupon_id": coupon["id"]}),
        )
        .await;
    assert_eq!(status, 200, "{voucher}");
    let code = voucher["code"].as_str().expect("a code").to_string();
    crate::sharing::wait_for_campaign(&cluster, 1, &ana, &code).await;

    let bodies: Vec<Value> = (0..32)
        .map(|n| match n % 4 {
            // Carts go to both nodes (n = 0, 1 mod 4), so do redemptions.
            0 | 1 => crate::sharing::cart(&ana, &format!("RACE-{n}"), &code),
            _ => json!({"customer_id": ana, "codes": [code], "location_code": "S1"}),
        })
        .collect();
    let requests = bodies
        .iter()
        .enumerate()
        .map(|(n, body)| {
            let path = if body.get("lines").is_some() {
                "/carts/realtime"
            } else {
                "/vouchers/redeem"
            };
            cluster.request(n, "POST", path, body)
        })
        .collect();
    let answers = crate::common::all_at_once(requests).await;
    let mut uses = 0;
    for (status, body) in &answers {
        if body.get("cart").is_some() {
            assert_eq!(*status, 200, "every sale goes through: {body}");
            uses += usize::from(crate::sharing::voucher_applied(body));
        } else if *status == 200 {
            uses += 1;
        } else {
            assert_eq!(
                (*status, body["code"].as_str()),
                (422, Some("voucher_redeemed")),
                "{body}"
            );
        }
    }
    assert_eq!(uses, 1, "{answers:?}");
}

#[tokio::test]
async fn an_idempotency_key_retried_on_the_other_node_replays_the_first_answer() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    let customer = cluster.customer("retry@example.com").await;
    let body = json!({"customer_id": customer, "type": "visit"});
    let first = cluster
        .request(0, "POST", "/custom_events", &body)
        .header("Idempotency-Key", "visit-1")
        .send()
        .await
        .expect("sent");
    assert_eq!(first.status(), 200);
    let first_body = first.bytes().await.expect("a body");
    let retried = cluster
        .request(1, "POST", "/custom_events", &body)
        .header("Idempotency-Key", "visit-1")
        .send()
        .await
        .expect("sent");
    assert_eq!(retried.status(), 200);
    assert_eq!(
        retried
            .headers()
            .get(loyalty::http::idempotency::REPLAYED)
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
    assert_eq!(
        retried.bytes().await.expect("a body"),
        first_body,
        "byte for byte"
    );

    // The same key sent to both nodes at once: one does the work, the other
    // replays it or says the key is in use; the event counts once.
    let requests = (0..8)
        .map(|n| {
            cluster
                .request(n, "POST", "/custom_events", &body)
                .header("Idempotency-Key", "visit-2")
        })
        .collect();
    for (status, answer) in crate::common::all_at_once(requests).await {
        assert!(
            status == 200 || (status == 409 && answer["code"] == "idempotency_key_in_use"),
            "{status} {answer}"
        );
    }
    assert_eq!(
        points_on(&cluster, 1, &customer).await,
        50,
        "two visits drawn, not more"
    );
}
