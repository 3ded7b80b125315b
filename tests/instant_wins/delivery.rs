//! Prize delivery: after a crash, together and exactly once, and across
//! merges and deletions.

use super::*;

/// The Reward transactions listed for `customer`.
fn rewards_of(customer: &str) -> String {
    format!("/rewards/transactions?customer_id={customer}")
}

/// How many Reward transactions a listing holds.
fn reward_count(listing: &Value) -> usize {
    listing["reward_transactions"].as_array().unwrap().len()
}

#[tokio::test]
async fn a_prize_won_before_a_crash_is_delivered_after_the_restart() {
    let data = tempfile::tempdir().unwrap();
    let store = format!("surrealkv://{}", data.path().join("store").display());
    let held = setup_with(&store, |settings| settings.deliver_prizes = false).await;
    let customer = held.customer("restart@example.com").await;
    let answer = held.event(&customer, "treat", json!({})).await;
    assert_eq!(draw_of(&answer, 29).unwrap()["prize_rule_id"], 11);
    let (_, rewards) = held.get(&rewards_of(&customer)).await;
    assert_eq!(
        reward_count(&rewards),
        0,
        "delivery is held: the prize waits in the outbox"
    );
    let campaigns = held._campaigns;
    held.server.running.shutdown().await.unwrap();

    let mut settings = ServerSettings::for_store(&store, common::OPERATOR_TOKEN);
    settings.campaigns = campaigns.path().to_path_buf();
    let restarted = TestServer::start_with(settings).await;
    let key = {
        // The restarted store keeps the demo key; make a new one to call it.
        restarted
            .back_office()
            .await
            .create_key(loyalty::resources::companies::keys::NewKey {
                company: "demo".into(),
                description: "after restart".into(),
                enabled: true,
            })
            .await
            .unwrap()
    };
    let mut delivered = false;
    for _ in 0..200 {
        let (_, rewards) = restarted.get_as(&rewards_of(&customer), &key).await;
        if reward_count(&rewards) == 1 {
            delivered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        delivered,
        "the outbox delivered the prize after the restart"
    );
    // Delivery is idempotent: running it again changes nothing.
    restarted
        .running
        .services
        .deliver_pending_prizes()
        .await
        .unwrap();
    let (_, rewards) = restarted.get_as(&rewards_of(&customer), &key).await;
    assert_eq!(reward_count(&rewards), 1);
    restarted.running.shutdown().await.unwrap();
}

#[tokio::test]
async fn prizes_won_together_are_delivered_together_and_each_exactly_once() {
    let setup = setup_with("mem://", |settings| settings.deliver_prizes = false).await;
    let winners = setup.customers("batch", 4).await;
    for winner in &winners {
        let answer = setup.event(winner, "treat", json!({})).await;
        assert!(draw_of(&answer, 29).unwrap().get("prize_name").is_some());
    }
    let services = &setup.server.running.services;
    let store = services.store();
    let pending = store.pending_prizes(100).await.unwrap();
    assert_eq!(pending.len(), 4);
    // Another process delivers one of them meanwhile: delivering the four
    // together refuses and writes nothing.
    store
        .deliver_prize(&pending[0], None, loyalty::common::time::Timestamp::now())
        .await
        .unwrap();
    let together: Vec<_> = pending.iter().map(|prize| (prize.clone(), None)).collect();
    let refused = store
        .deliver_prizes("demo", &together, loyalty::common::time::Timestamp::now())
        .await
        .unwrap_err();
    assert_eq!(
        refused.code,
        loyalty::error::ErrorCode::ConcurrentModification
    );
    for prize in &pending[1..] {
        let (_, rewards) = setup.get(&rewards_of(&prize.customer_id)).await;
        assert_eq!(reward_count(&rewards), 0, "the refused batch wrote nothing");
    }
    let delivered = services.deliver_pending_prizes().await.unwrap();
    assert_eq!(delivered, 3, "the three left are delivered");
    for winner in &winners {
        let (_, rewards) = setup.get(&rewards_of(winner)).await;
        assert_eq!(reward_count(&rewards), 1, "{winner}: one prize, once");
    }
    assert_eq!(services.deliver_pending_prizes().await.unwrap(), 0);
}

#[tokio::test]
async fn a_prize_follows_its_winner_into_a_merge_and_is_dropped_for_a_deleted_one() {
    let setup = setup_with("mem://", |settings| settings.deliver_prizes = false).await;
    let winner = setup.customer("dup@example.com").await;
    let survivor = setup.customer("main@example.com").await;
    let gone = setup.customer("gone@example.com").await;
    let answer = setup.event(&winner, "treat", json!({})).await;
    assert!(draw_of(&answer, 29).unwrap().get("prize_name").is_some());
    let answer = setup.event(&gone, "treat", json!({})).await;
    assert!(draw_of(&answer, 29).unwrap().get("prize_name").is_some());
    let (status, merged) = setup
        .server
        .call_as(
            "POST",
            "/customers/transfer",
            &setup.key,
            Some(json!({"from_customer_id": winner, "to_customer_id": survivor})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    let (status, deleted) = setup
        .server
        .call_as("DELETE", &format!("/customers/{gone}"), &setup.key, None)
        .await;
    assert_eq!(status, 200, "{deleted}");

    let delivered = setup
        .server
        .running
        .services
        .deliver_pending_prizes()
        .await
        .unwrap();
    assert_eq!(
        delivered, 1,
        "the prize of the anonymized Customer is not sent"
    );
    let (_, rewards) = setup.get(&rewards_of(&survivor)).await;
    assert_eq!(
        reward_count(&rewards),
        1,
        "the survivor of the merge gets the prize"
    );
    let given = setup
        .server
        .running
        .services
        .store()
        .raw_documents("reward_transaction", "demo")
        .await
        .unwrap();
    assert_eq!(given.len(), 1, "an anonymized Customer gets nothing");
    assert_eq!(given[0]["customer_id"], survivor.as_str());
    let again = setup
        .server
        .running
        .services
        .deliver_pending_prizes()
        .await
        .unwrap();
    assert_eq!(again, 0, "nothing is left pending");
}

#[tokio::test]
async fn a_merge_moves_rewards_game_participations_and_vouchers_and_an_unmerge_returns_them() {
    let setup = setup().await;
    let dup = setup.customer("dup2@example.com").await;
    let main = setup.customer("main2@example.com").await;
    setup.event(&dup, "scratch", json!({})).await;
    setup.event(&dup, "limited", json!({})).await;
    setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 24, std::slice::from_ref(&dup))
        .await
        .unwrap();
    let games_of = |customer: &str| format!("/games?customer_id={customer}");
    setup
        .eventually(&rewards_of(&dup), |b| {
            b["reward_transactions"].as_array().unwrap().len() == 1
        })
        .await;
    setup
        .eventually(&games_of(&dup), |b| {
            b["games"][0]["available_participations"] == 1
        })
        .await;

    let (status, merged) = setup
        .server
        .call_as(
            "POST",
            "/customers/transfer",
            &setup.key,
            Some(json!({"from_customer_id": dup, "to_customer_id": main})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    let (_, rewards) = setup.get(&rewards_of(&main)).await;
    assert_eq!(rewards["reward_transactions"].as_array().unwrap().len(), 1);
    let (_, rewards) = setup.get(&rewards_of(&dup)).await;
    assert!(
        rewards["reward_transactions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let (_, games) = setup.get(&games_of(&main)).await;
    assert_eq!(games["games"][0]["available_participations"], 1);
    let (_, held) = setup
        .get(&format!(
            "/instant_wins?customer_id={main}&campaign_audience=targeted"
        ))
        .await;
    assert_eq!(held["instant_wins"][0]["id"], 24, "{held}");

    let (status, unmerged) = setup
        .server
        .call_as(
            "POST",
            &format!("/customers/{dup}/unmerge"),
            &setup.key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{unmerged}");
    let (_, rewards) = setup.get(&rewards_of(&dup)).await;
    assert_eq!(rewards["reward_transactions"].as_array().unwrap().len(), 1);
    let (_, games) = setup.get(&games_of(&dup)).await;
    assert_eq!(games["games"][0]["available_participations"], 1);
    let (_, games) = setup.get(&games_of(&main)).await;
    assert_eq!(games["games"][0]["available_participations"], 0);
    let (_, held) = setup
        .get(&format!(
            "/instant_wins?customer_id={dup}&campaign_audience=targeted"
        ))
        .await;
    assert_eq!(held["instant_wins"][0]["id"], 24, "{held}");
}
