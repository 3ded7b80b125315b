//! Background work is done once for the cluster: one node holds each job
//! and another takes it over when it stops; and when two nodes run a job at
//! once anyway, the store lets each change happen once.

use std::time::Duration;

use loyalty::common::time::Timestamp;
use loyalty::resources::points::model::PointsKind;
use loyalty::server::ServerSettings;
use loyalty::storage::duties::Duty;
use serde_json::{Value, json};

use crate::harness::Cluster;
use crate::races::{CAMPAIGNS, draw_of};

/// The races' campaigns and a draw every Customer wins a Reward in.
fn campaigns_with_treat() -> Vec<(&'static str, &'static str)> {
    let mut files = CAMPAIGNS.to_vec();
    files.push((
        "treat.yaml",
        "id: 29
kind: instant_win
name: Treat
on: { custom_event: treat }
once: campaign
once_limit: 100
instant_win:
  instant_win_prizes:
    - id: coffee
      name: Coffee
      outcome: { promotion_type: reward, promotion_id: 11 }
      weight: 1
",
    ));
    files
}

/// Prizes wait in the outbox until a test delivers them.
fn held_delivery(settings: &mut ServerSettings) {
    settings.deliver_prizes = false;
}

#[tokio::test]
async fn each_job_is_held_by_one_node_and_taken_over_when_it_stops() {
    let mut cluster = Cluster::start(2, CAMPAIGNS).await;
    let first = cluster.nodes[0].running.services.instance_id().to_string();
    let store = cluster.nodes[1].running.services.store().clone();
    // Node 0 started first and took every job at once.
    for duty in [
        Duty::PointsExpiry,
        Duty::PrizeDelivery,
        Duty::IdempotencyPurge,
    ] {
        let holder = store.duty_holder(duty).await.expect("read");
        assert_eq!(holder.as_deref(), Some(first.as_str()), "{duty:?}");
    }
    let second = cluster.nodes[1].running.services.instance_id().to_string();
    assert!(
        !store
            .holds_duty(Duty::PointsExpiry, &second, Timestamp::now())
            .await
            .expect("asked"),
        "a job held by a running node is not taken"
    );
    let stopped = cluster.nodes.remove(0);
    stopped.running.shutdown().await.expect("node 0 stops");
    // Prize delivery looks every two seconds: node 1 takes it over.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while store
        .duty_holder(Duty::PrizeDelivery)
        .await
        .expect("read")
        .as_deref()
        != Some(second.as_str())
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "node 1 never took prize delivery over"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        store
            .holds_duty(Duty::PointsExpiry, &second, Timestamp::now())
            .await
            .expect("asked"),
        "the job of a stopped node is free"
    );
}

#[tokio::test]
async fn two_nodes_delivering_at_once_deliver_each_prize_once() {
    let files = campaigns_with_treat();
    let cluster = Cluster::start_with("memory", 2, &files, held_delivery).await;
    let mut winners = Vec::new();
    for n in 0..8 {
        let winner = cluster.customer(&format!("winner{n}@example.com")).await;
        let (status, answer) = cluster
            .call(
                n,
                "POST",
                "/custom_events",
                json!({"customer_id": winner, "type": "treat"}),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        assert!(
            draw_of(&answer, 29)
                .and_then(|d| d.get("prize_name"))
                .is_some(),
            "{answer}"
        );
        winners.push(winner);
    }
    let deliveries = (0..6).map(|n| {
        let services = cluster.node(n).running.services.clone();
        tokio::spawn(async move { services.deliver_pending_prizes().await })
    });
    let mut delivered = 0;
    for delivery in deliveries {
        delivered += delivery.await.expect("ran").expect("delivered");
    }
    assert_eq!(delivered, 8, "each prize counted delivered once");
    for winner in &winners {
        let (_, rewards) = cluster
            .get(1, &format!("/rewards/transactions?customer_id={winner}"))
            .await;
        let count = rewards["reward_transactions"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(count, 1, "{winner}: one prize, once: {rewards}");
    }
}

#[tokio::test]
async fn two_nodes_expiring_at_once_expire_each_balance_once() {
    let cluster = Cluster::start(2, CAMPAIGNS).await;
    let soon = Timestamp::from(Timestamp::now().as_datetime() + chrono::Duration::minutes(5));
    let later = Timestamp::from(soon.as_datetime() + chrono::Duration::minutes(1));
    let mut customers = Vec::new();
    for n in 0..10 {
        let customer = cluster.customer(&format!("saver{n}@example.com")).await;
        let credits: [(i64, Option<Timestamp>); 2] = [(30, Some(soon)), (20, None)];
        for (points, expires_at) in credits {
            let mut body: Value = json!({"customer_id": customer, "points": points});
            if let Some(at) = expires_at {
                body["expires_at"] = json!(at.to_string());
            }
            let (status, answer) = cluster.call(n, "POST", "/scores/trigger", body).await;
            assert_eq!(status, 200, "{answer}");
        }
        customers.push(customer);
    }
    let runs = (0..4).map(|n| {
        let services = cluster.node(n).running.services.clone();
        tokio::spawn(async move { services.expire_points(later).await })
    });
    let mut written = 0;
    for run in runs {
        written += run.await.expect("ran").expect("expired");
    }
    assert_eq!(written, 10, "one expiry per balance, whoever wrote it");
    let store = cluster.nodes[0].running.services.store();
    for customer in &customers {
        let balance = store
            .balance("demo", customer, PointsKind::Points)
            .await
            .expect("read");
        let summed = store
            .ledger_sum("demo", customer, PointsKind::Points)
            .await
            .expect("read");
        assert_eq!((balance, summed), (20, 20), "{customer}: 30 expired once");
    }
}
