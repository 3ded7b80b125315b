//! Stock and participation limits under simultaneous draws.

use super::*;

#[tokio::test]
async fn many_customers_racing_for_the_last_unit_leave_exactly_one_winner() {
    let setup = setup().await;
    let customers = setup.customers("racer", 12).await;
    let winners = setup.simultaneous_winners(&customers, "scratch", 21).await;
    assert_eq!(winners, 1, "stock 1: one winner");
    let (_, detail) = setup.get("/instant_wins/21").await;
    assert_eq!(detail["instant_win"]["instant_win_prizes"][0]["stock"], 0);
}

/// A stock spread over several counter shards still gives exactly its units
/// when more Customers than units draw at once, and nothing after.
#[tokio::test]
async fn a_sharded_stock_gives_exactly_its_units_to_simultaneous_winners() {
    let setup = setup().await;
    let customers = setup.customers("rusher", 45).await;
    let winners = setup
        .simultaneous_winners(&customers[..40], "rush", 28)
        .await;
    assert_eq!(winners, 20, "stock 20: twenty winners out of 40");
    for customer in &customers[40..] {
        let answer = setup.event(customer, "rush", json!({})).await;
        let effect = draw_of(&answer, 28).expect("takes part");
        assert!(effect.get("prize_name").is_none(), "{effect}");
    }
    let (_, detail) = setup.get("/instant_wins/28").await;
    assert_eq!(detail["instant_win"]["instant_win_prizes"][0]["stock"], 0);
}

#[tokio::test]
async fn simultaneous_events_of_one_customer_respect_once_limit() {
    let setup = setup().await;
    let customer = setup.customer("eager@example.com").await;
    // Warm the path once, so the burst's requests overlap instead of queueing
    // behind the first request's one-time work.
    setup.event(&customer, "warm_up", json!({})).await;
    let requests = (0..30)
        .map(|_| {
            setup
                .server
                .request_as("POST", "/custom_events?explain=true", &setup.key)
                .json(&json!({"customer_id": customer, "type": "limited"}))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let mut participations = 0;
    for (status, answer) in &answers {
        assert_eq!(*status, 200, "{answer}");
        participations += usize::from(draw_of(answer, 26).is_some());
    }
    assert_eq!(participations, 1, "once_limit 1 per day");
    let games = setup
        .eventually(&format!("/games?customer_id={customer}"), |b| {
            b["games"][0]["available_participations"] == 1
        })
        .await;
    assert_eq!(games["games"][0]["available_participations"], 1);
}
