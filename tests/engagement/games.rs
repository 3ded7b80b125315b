//! Games: listed with a Customer's plays, played with a free play of the
//! period or a participation given (by a Reward here), participations used
//! exactly once under concurrent plays, prizes credited, and the draws of
//! many plays fair to the weights.

use super::rewards::MONDAY;
use super::*;

/// A wheel with one free spin a week (points, coffee, nothing), a dice with
/// no free plays whose only prize is 50 points, the points campaign they
/// give, and a Reward that gives a dice participation.
const GAMES: [(&str, &str); 5] = [
    (
        "wheel.yaml",
        "id: 501\nkind: game\nname: Wheel\nonce: week\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - id: points\n      name: Points\n      outcome: { promotion_type: points, promotion_id: 204 }\n      weight: 0.3\n    - id: coffee\n      name: Coffee\n      outcome: { promotion_type: reward, promotion_id: 401 }\n      weight: 0.2\n      stock: 5\n    - id: none\n      name: Nothing\n      weight: 0.5\n",
    ),
    (
        "dice.yaml",
        "id: 502\nkind: game\nname: Dice\ninstant_win:\n  instant_win_prizes:\n    - id: points\n      name: Fifty points\n      outcome: { promotion_type: points, promotion_id: 204 }\n      weight: 1\n",
    ),
    (
        "prize-points.yaml",
        "id: 204\nkind: points\nname: Prize points\npoints:\n  fixed: 50\n",
    ),
    ("coffee.yaml", "id: 401\nkind: reward\nname: Coffee\n"),
    (
        "dice-roll.yaml",
        "id: 420\nkind: reward\nname: A dice roll\npoints_cost: 1\ngives: { game: 502 }\n",
    ),
];

async fn play(server: &TestServer, key: &CreatedApiKey, game: i64, customer: &str) -> (u16, Value) {
    server
        .call_as(
            "POST",
            &format!("/games/{game}/play"),
            key,
            Some(json!({"customer_id": customer})),
        )
        .await
}

/// Gives `customer` `count` dice participations through the Reward.
async fn give_rolls(server: &TestServer, key: &CreatedApiKey, customer: &str, count: i64) {
    credit(server, key, customer, count, false).await;
    for _ in 0..count {
        let (status, body) = server
            .call_as(
                "POST",
                "/rewards/420/redeem",
                key,
                Some(json!({"customer_id": customer})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
}

async fn plays_left(server: &TestServer, key: &CreatedApiKey, game: i64, customer: &str) -> i64 {
    let (status, game) = server
        .get_as(&format!("/games/{game}?customer_id={customer}"), key)
        .await;
    assert_eq!(status, 200, "{game}");
    game["participations_left"].as_i64().unwrap()
}

#[tokio::test]
async fn a_free_play_of_the_week_then_none_left_then_a_new_week() {
    let (server, _dir) = server_with(&GAMES, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    let (status, list) = server
        .get_as(&format!("/games?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{list}");
    let wheel = &list["games"][0];
    assert_eq!(wheel["id"], 501, "{list}");
    assert_eq!(wheel["free_plays"], json!({"count": 1, "per": "week"}));
    assert_eq!(wheel["prizes"]["instant_win_prizes"][1]["stock"], 5);
    assert_eq!(
        (
            wheel["participations_left"].as_i64(),
            wheel["available_participations"].as_i64()
        ),
        (Some(1), Some(0))
    );
    assert_eq!(
        list["games"][1]["participations_left"], 0,
        "the dice has no free plays"
    );

    let (status, played) = play(&server, &key, 501, &ana).await;
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["participations_left"], 0);
    assert!(
        played["winned_prize_index"].as_i64().unwrap() >= 0,
        "{played}"
    );
    let (status, body) = play(&server, &key, 501, &ana).await;
    assert_error(status, &body, 422, "game_no_participations");
    assert_eq!(plays_left(&server, &key, 501, &ana).await, 0);
    let (status, body) = play(&server, &key, 502, &ana).await;
    assert_error(status, &body, 422, "game_no_participations");

    server.set_time("2026-11-30T09:00:00Z");
    assert_eq!(plays_left(&server, &key, 501, &ana).await, 1, "a new week");
    let (status, played) = play(&server, &key, 501, &ana).await;
    assert_eq!(status, 200, "{played}");

    let (status, body) = play(&server, &key, 999, &ana).await;
    assert_error(status, &body, 404, "game_not_found");
    let (status, body) = play(&server, &key, 501, "cus_nobody").await;
    assert_error(status, &body, 404, "customer_not_found");
    let (status, body) = server.get_as("/games/999", &key).await;
    assert_error(status, &body, 404, "game_not_found");
}

#[tokio::test]
async fn a_participation_given_is_played_once_and_its_prize_credited() {
    let (server, _dir) = server_with(&GAMES, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    give_rolls(&server, &key, &ana, 1).await;
    assert_eq!(plays_left(&server, &key, 502, &ana).await, 1);
    let (status, played) = play(&server, &key, 502, &ana).await;
    assert_eq!(status, 200, "{played}");
    assert_eq!(
        played["prize"],
        json!({"id": "points", "name": "Fifty points", "promotion_type": "points", "promotion_id": 204})
    );
    assert_eq!(played["participations_left"], 0);
    assert_eq!(
        balances(&server, &key, &ana).await,
        (50, 0),
        "credited by the play"
    );
    let (status, body) = play(&server, &key, 502, &ana).await;
    assert_error(status, &body, 422, "game_no_participations");
    assert_eq!(balances(&server, &key, &ana).await, (50, 0));
}

#[tokio::test]
async fn twenty_plays_at_once_with_three_participations_give_three_draws() {
    let (server, _dir) = server_with(&GAMES, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    give_rolls(&server, &key, &ana, 3).await;
    let answers = all_at_once(
        (0..20)
            .map(|_| {
                server
                    .request_as("POST", "/games/502/play", &key)
                    .json(&json!({"customer_id": ana}))
            })
            .collect(),
    )
    .await;
    let played = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(played, 3, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(*status, body, 422, "game_no_participations");
    }
    assert_eq!(plays_left(&server, &key, 502, &ana).await, 0);
    assert_eq!(
        balances(&server, &key, &ana).await,
        (150, 0),
        "three prizes"
    );
}

#[tokio::test]
async fn the_draws_of_many_plays_follow_the_weights() {
    use loyalty::resources::instant_wins::rules::fairness::{chi_square, chi_square_critical_at};
    let files = [
        (
            "fair.yaml",
            "id: 510\nkind: game\nname: Fair\nonce: campaign\nonce_limit: 1000\ninstant_win:\n  instant_win_prizes:\n    - id: a\n      name: A\n      outcome: { promotion_type: points, promotion_id: 204 }\n      weight: 0.2\n    - id: b\n      name: B\n      outcome: { promotion_type: points, promotion_id: 204 }\n      weight: 0.3\n    - id: none\n      name: Nothing\n      weight: 0.5\n",
        ),
        GAMES[2],
    ];
    // Seeded, so the test gives the same draws every run.
    let (server, _dir) = seeded_server_with(&files, MONDAY, Some(7)).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    const PLAYS: usize = 300;
    let mut observed = [0usize; 3];
    for _ in 0..PLAYS {
        let (status, played) = play(&server, &key, 510, &ana).await;
        assert_eq!(status, 200, "{played}");
        observed[played["winned_prize_index"].as_u64().unwrap() as usize] += 1;
    }
    let statistic = chi_square(&observed, &[0.2, 0.3, 0.5], PLAYS);
    // z for a significance of 0.001, as `loyalty campaigns draws` uses.
    let critical = chi_square_critical_at(2, 3.090);
    assert!(
        statistic < critical,
        "{observed:?}: chi-square {statistic} over {critical}"
    );
    assert_eq!(
        balances(&server, &key, &ana).await.0,
        50 * (observed[0] + observed[1]) as i64
    );
}

#[tokio::test]
async fn a_merge_moves_participations_and_the_merged_customer_is_inactive() {
    let (server, _dir) = server_with(&GAMES, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    let old = customer(&server, &key, "ana.old@example.org").await;
    give_rolls(&server, &key, &old, 2).await;
    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": old, "to_customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(plays_left(&server, &key, 502, &ana).await, 2);
    for path in [
        format!("/games?customer_id={old}"),
        format!("/games/502?customer_id={old}"),
    ] {
        let (status, body) = server.get_as(&path, &key).await;
        assert_error(status, &body, 422, "customer_inactive");
    }
    let (status, body) = play(&server, &key, 502, &old).await;
    assert_error(status, &body, 422, "customer_inactive");
}
