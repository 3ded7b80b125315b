//! The rows of the interface's "Interpreting an event response" table: a
//! points prize in the balance the answer leaves, no prize, unmet
//! conditions and reached limits, and exhausted prizes.

use super::*;

#[tokio::test]
async fn a_points_prize_is_in_the_balance_the_response_leaves() {
    // Held delivery: the points cannot come from the outbox.
    let setup = setup_with("mem://", |settings| settings.deliver_prizes = false).await;
    let customer = setup.customer("win@example.com").await;
    let answer = setup.event(&customer, "visit", json!({})).await;
    let effect = draw_of(&answer, 20).expect("one instant_win effect");
    insta::assert_json_snapshot!("win_effect", effect);
    assert_eq!(
        answer["effects"].as_array().unwrap().len(),
        1,
        "exactly one effect"
    );
    assert_eq!(
        answer["custom_event"]["points_earned"], 0,
        "a prize is not points earned by campaigns"
    );
    let (_, balance) = setup.get(&format!("/customers/{customer}/points")).await;
    assert_eq!(balance["points"], 25);
    let (_, ledger) = setup
        .get(&format!("/points/transactions?customer_id={customer}"))
        .await;
    let entry = &ledger["transactions"][0];
    assert_eq!(
        (&entry["reason"], &entry["rule_id"], &entry["points"]),
        (&json!("instant_win"), &json!(10), &json!(25)),
        "{ledger}"
    );
    let draws = setup
        .server
        .running
        .services
        .store()
        .draws("demo", None)
        .await
        .unwrap();
    assert_eq!(entry["draw_id"], draws[0]["draw_id"], "{ledger}");
    let store = setup.server.running.services.store();
    let outbox = store.raw_documents("prize_outbox", "demo").await.unwrap();
    assert!(outbox.is_empty(), "nothing to deliver: {outbox:?}");
}

#[tokio::test]
async fn no_prize_is_an_effect_without_prize_data() {
    let setup = setup().await;
    let customer = setup.customer("none@example.com").await;
    let answer = setup.event(&customer, "nothing", json!({})).await;
    let effect = draw_of(&answer, 23).expect("the Customer took part");
    assert_eq!(effect["winned_prize_index"], 0);
    for field in ["prize_name", "prize_description", "prize_rule_id"] {
        assert!(
            effect.get(field).is_none(),
            "{field} only on a win: {effect}"
        );
    }
    assert_eq!(
        (
            &effect["value"],
            &effect["effect_type"],
            &effect["distribution_type"]
        ),
        (&json!(0.0), &json!(""), &json!(""))
    );
    assert_eq!(effect["select_customers"], "loyalty");
    assert!(effect.get("coupon_info").is_none() && effect.get("campaign_history_id").is_none());
    let store = setup.server.running.services.store();
    let outbox = store.raw_documents("prize_outbox", "demo").await.unwrap();
    assert!(outbox.is_empty(), "nothing to deliver: {outbox:?}");
    assert_eq!(store.draws("demo", None).await.unwrap().len(), 1);
}

#[tokio::test]
async fn unmet_conditions_and_reached_limits_return_no_effect() {
    let setup = setup().await;
    let customer = setup.customer("limit@example.com").await;
    let date = json!({"date": "2026-03-02T10:00:00Z"});
    for _ in 0..2 {
        let answer = setup.event(&customer, "visit", date.clone()).await;
        assert!(draw_of(&answer, 20).is_some());
    }
    let third = setup.event(&customer, "visit", date.clone()).await;
    assert!(
        draw_of(&third, 20).is_none(),
        "once_limit 2 per day reached"
    );
    assert_eq!(
        reason_of(&third, 20),
        "participation limit reached: 2 of 2 per day"
    );
    let next_day = setup
        .event(&customer, "visit", json!({"date": "2026-03-03T10:00:00Z"}))
        .await;
    assert!(draw_of(&next_day, 20).is_some(), "a new day, a new period");

    // Victory condition unmet: a Customer who is not a loyalty member.
    let (status, outsider) = setup
        .server
        .call_as(
            "POST",
            "/customers",
            &setup.key,
            Some(json!({"email": "outsider@example.com", "enroll": false})),
        )
        .await;
    assert_eq!(status, 200, "{outsider}");
    let answer = setup
        .event(outsider["id"].as_str().unwrap(), "visit", json!({}))
        .await;
    assert!(draw_of(&answer, 20).is_none());
    assert!(reason_of(&answer, 20).starts_with("condition is false"));
}

#[tokio::test]
async fn remove_prize_passes_an_exhausted_prize_to_no_prize() {
    let setup = setup().await;
    let first = setup.customer("first@example.com").await;
    let second = setup.customer("second@example.com").await;
    let won = setup.event(&first, "scratch", json!({})).await;
    let won = draw_of(&won, 21).unwrap();
    assert_eq!(
        (&won["prize_name"], &won["prize_rule_id"]),
        (&json!("Coffee"), &json!(11))
    );
    let after = setup.event(&second, "scratch", json!({})).await;
    let after = draw_of(&after, 21).expect("still a participation");
    assert!(after.get("prize_name").is_none(), "{after}");
    assert_eq!(after["winned_prize_index"], 1, "the No Prize entry");
    let (_, detail) = setup.get("/instant_wins/21").await;
    let prizes = &detail["instant_win"]["instant_win_prizes"];
    assert_eq!(prizes[0]["stock"], 0);
    assert_eq!(prizes[1]["stock"], -1);
}

#[tokio::test]
async fn keep_probabilities_draws_an_exhausted_prize_without_giving_it() {
    let setup = setup().await;
    let customer = setup.customer("keep@example.com").await;
    let first = setup.event(&customer, "keep", json!({})).await;
    assert_eq!(draw_of(&first, 22).unwrap()["prize_rule_id"], 12);
    let second = setup.event(&customer, "keep", json!({})).await;
    let second = draw_of(&second, 22).expect("a participation");
    assert_eq!(
        second["winned_prize_index"], 0,
        "the exhausted prize was drawn"
    );
    assert!(second.get("prize_name").is_none(), "but not won: {second}");
    let games = setup
        .eventually(&format!("/games?customer_id={customer}"), |b| {
            b["games"][0]["available_participations"] == 1
        })
        .await;
    assert_eq!(games["games"][0]["id"], 12);
}
