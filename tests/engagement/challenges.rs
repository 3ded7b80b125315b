//! Challenges: carts counted towards a goal in their own transaction, the
//! reward given once, enrolment, streaks across weeks, returns giving
//! progress back (and revoking once), and completions under concurrent carts.

use super::rewards::MONDAY;
use super::*;

/// Three carts of at least 5.00 for 100 points, once.
const THREE_CARTS: (&str, &str) = (
    "three-carts.yaml",
    "id: 601\nkind: challenge\nname: { en: Three visits, es: Tres visitas }\non: cart\nwhen: cart.total >= 5.0\ngoal: { count: 3 }\nreward: { points: 100 }\n",
);

/// Spend 50.00 after enrolling, for a dice participation.
const SPEND: [(&str, &str); 3] = [
    (
        "spend.yaml",
        "id: 602\nkind: challenge\nname: Spend fifty\non: cart\nenrollment: required\ngoal: { sum: cart.total, target: 50 }\nreward: { game: 502 }\n",
    ),
    (
        "dice.yaml",
        "id: 502\nkind: game\nname: Dice\ninstant_win:\n  instant_win_prizes:\n    - id: points\n      name: Fifty points\n      outcome: { promotion_type: points, promotion_id: 204 }\n      weight: 1\n",
    ),
    (
        "prize-points.yaml",
        "id: 204\nkind: points\nname: Prize points\npoints:\n  fixed: 50\n",
    ),
];

/// A cart of `total` (one line) for `customer`.
fn cart(customer: &str, code: &str, total: f64) -> Value {
    json!({
        "customer_id": customer,
        "code": code,
        "lines": [{"product_code": "COFFEE", "quantity": 1, "price": total}],
    })
}

/// Records a cart with `explain=true`; its answer.
async fn buy(
    server: &TestServer,
    key: &CreatedApiKey,
    customer: &str,
    code: &str,
    total: f64,
) -> Value {
    let (status, body) = server
        .call_as(
            "POST",
            "/carts/realtime?explain=true",
            key,
            Some(cart(customer, code, total)),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

/// The `challenge` effect of `answer`, if any.
fn challenge_effect(answer: &Value) -> Option<&Value> {
    answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|effect| effect["type"] == "challenge")
}

/// A number of a response (amounts are JSON numbers, `3` or `3.0`).
fn num(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

/// Why `answer`'s campaign `rule_id` did not apply.
fn reason(answer: &Value, rule_id: i64) -> String {
    answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == rule_id)
        .and_then(|e| e["reason"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// The Customer's standing in Challenge `id`.
async fn standing(server: &TestServer, key: &CreatedApiKey, customer: &str, id: i64) -> Value {
    let (status, body) = server
        .get_as(&format!("/customers/{customer}/challenges/{id}"), key)
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn cancel(server: &TestServer, key: &CreatedApiKey, code: &str) -> Value {
    let (status, body) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            key,
            Some(json!({"cart_id": code})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn a_count_challenge_counts_its_carts_and_completes_once() {
    let (server, _dir) = server_with(&[THREE_CARTS], MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;

    let small = buy(&server, &key, &ana, "C0", 2.0).await;
    assert!(challenge_effect(&small).is_none(), "{small}");
    assert!(reason(&small, 601).contains("condition"), "{small}");
    for (i, code) in ["C1", "C2"].iter().enumerate() {
        let answer = buy(&server, &key, &ana, code, 6.0).await;
        let effect = challenge_effect(&answer).expect("a challenge effect");
        assert_eq!(
            (
                effect["progress"].as_f64(),
                effect["target"].as_f64(),
                &effect["completed"]
            ),
            (Some(i as f64 + 1.0), Some(3.0), &json!(false)),
            "{answer}"
        );
        assert!(effect.get("granted").is_none(), "{effect}");
    }
    let third = buy(&server, &key, &ana, "C3", 6.0).await;
    let effect = challenge_effect(&third).unwrap();
    assert_eq!(effect["completed"], true, "{third}");
    assert_eq!(effect["granted"], json!({"type": "points", "points": 100}));
    assert_eq!(effect["rule_name"], "Three visits");
    assert_eq!(balances(&server, &key, &ana).await, (100, 0));

    // Without a recurrence it completes once: nothing counts any more.
    let fourth = buy(&server, &key, &ana, "C4", 6.0).await;
    assert!(challenge_effect(&fourth).is_none(), "{fourth}");
    assert!(reason(&fourth, 601).contains("does not repeat"), "{fourth}");
    assert_eq!(balances(&server, &key, &ana).await, (100, 0));

    let mine = standing(&server, &key, &ana, 601).await;
    assert_eq!(
        (
            num(&mine["progress"]),
            num(&mine["target"]),
            &mine["completed"],
            &mine["completions"]
        ),
        (3.0, 3.0, &json!(true), &json!(1)),
        "{mine}"
    );
    assert_eq!(mine["enrolled"], true, "automatic enrolment");
    let history = mine["history"].as_array().unwrap();
    assert_eq!(history.len(), 1, "{mine}");
    assert_eq!(
        history[0]["events"],
        json!(["cart:C1", "cart:C2", "cart:C3"])
    );
    assert_eq!(history[0]["granted"]["points"], 100);

    let (status, list) = server
        .get_as(&format!("/challenges?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{list}");
    let listed = &list["challenges"][0];
    assert_eq!(
        (
            &listed["id"],
            &listed["goal"],
            num(&listed["target"]),
            &listed["repeat"]
        ),
        (&json!(601), &json!("count"), 3.0, &json!("never"))
    );
    assert_eq!(listed["reward"], json!({"type": "points", "points": 100}));
    assert_eq!(listed["customer"]["completed"], true, "{list}");
    let (status, all) = server
        .get_as(&format!("/customers/{ana}/challenges"), &key)
        .await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(num(&all["challenges"][0]["progress"]), 3.0);
    assert!(all["challenges"][0].get("history").is_none(), "{all}");

    let (status, body) = server.get_as("/challenges/999", &key).await;
    assert_error(status, &body, 404, "challenge_not_found");
    let (status, body) = server
        .get_as(&format!("/customers/{ana}/challenges/999"), &key)
        .await;
    assert_error(status, &body, 404, "challenge_not_found");
    let (status, body) = server
        .get_as("/customers/cus_nobody/challenges", &key)
        .await;
    assert_error(status, &body, 404, "customer_not_found");
}

#[tokio::test]
async fn a_spend_challenge_counts_only_after_enrolment_and_gives_a_game_play() {
    let (server, _dir) = server_with(&SPEND, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;

    let before = buy(&server, &key, &ana, "B1", 40.0).await;
    assert!(challenge_effect(&before).is_none(), "{before}");
    assert!(reason(&before, 602).contains("not enrolled"), "{before}");
    let mine = standing(&server, &key, &ana, 602).await;
    assert_eq!(
        (&mine["enrolled"], num(&mine["progress"])),
        (&json!(false), 0.0)
    );

    let enroll =
        |customer: Value| server.call_as("POST", "/challenges/602/enroll", &key, Some(customer));
    let (status, enrolled) = enroll(json!({"customer_id": ana})).await;
    assert_eq!(status, 200, "{enrolled}");
    assert_eq!(enrolled["enrolled"], true);
    let at = enrolled["enrolled_at"].clone();
    let (status, again) = enroll(json!({"customer_id": ana})).await;
    assert_eq!(
        (status, &again["enrolled_at"]),
        (200, &at),
        "enrolling again changes nothing"
    );
    let (status, body) = enroll(json!({"customer_id": "cus_nobody"})).await;
    assert_error(status, &body, 404, "customer_not_found");
    let (status, body) = enroll(json!({})).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = server
        .call_as(
            "POST",
            "/challenges/999/enroll",
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_error(status, &body, 404, "challenge_not_found");

    let first = buy(&server, &key, &ana, "B2", 30.0).await;
    assert_eq!(num(&challenge_effect(&first).unwrap()["progress"]), 30.0);
    let second = buy(&server, &key, &ana, "B3", 25.5).await;
    let effect = challenge_effect(&second).unwrap();
    assert_eq!(
        (num(&effect["progress"]), &effect["completed"]),
        (50.0, &json!(true)),
        "progress stops at the target: {effect}"
    );
    assert_eq!(effect["granted"], json!({"type": "game", "game_id": 502}));
    let (status, game) = server
        .get_as(&format!("/games/502?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["participations_left"], 1, "{game}");
}

#[tokio::test]
async fn a_weekly_streak_completes_on_its_third_week_in_a_row() {
    let streak = (
        "streak.yaml",
        "id: 603\nkind: challenge\nname: Three weeks in a row\non: cart\ngoal: { streak: { weeks: 3 } }\nreward: { points: 30 }\n",
    );
    let (server, _dir) = server_with(&[streak], MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    let progress = |answer: &Value| challenge_effect(answer).map(|e| num(&e["progress"]));

    let week1 = buy(&server, &key, &ana, "W1", 3.0).await;
    assert_eq!(progress(&week1), Some(1.0));
    // A second cart of the same week is counted, but the streak is still one week.
    let week1b = buy(&server, &key, &ana, "W1b", 3.0).await;
    assert_eq!(progress(&week1b), Some(1.0));
    server.set_time("2026-12-06T20:00:00Z"); // Sunday of the next week
    let week2 = buy(&server, &key, &ana, "W2", 3.0).await;
    assert_eq!(progress(&week2), Some(2.0));
    // A week missed: the streak starts again.
    server.set_time("2026-12-15T09:00:00Z");
    assert_eq!(
        num(&standing(&server, &key, &ana, 603).await["progress"]),
        0.0
    );
    let again = buy(&server, &key, &ana, "W4", 3.0).await;
    assert_eq!(progress(&again), Some(1.0));
    server.set_time("2026-12-22T09:00:00Z");
    buy(&server, &key, &ana, "W5", 3.0).await;
    server.set_time("2026-12-29T09:00:00Z");
    let done = buy(&server, &key, &ana, "W6", 3.0).await;
    let effect = challenge_effect(&done).unwrap();
    assert_eq!(
        (num(&effect["progress"]), &effect["completed"]),
        (3.0, &json!(true))
    );
    assert_eq!(balances(&server, &key, &ana).await, (30, 0));
}

/// Two carts a week for 100 points, each week, revoked by a return.
fn weekly(on_return: &str) -> String {
    format!(
        "id: 604\nkind: challenge\nname: Two a week\non: cart\ngoal: {{ count: 2 }}\nperiod: week\nrepeat: each_period\non_return: {on_return}\nreward: {{ points: 100 }}\n"
    )
}

#[tokio::test]
async fn a_return_gives_progress_back_and_revokes_the_completion_once() {
    let file = weekly("revoke");
    let (server, _dir) = server_with(&[("weekly.yaml", &file)], MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    buy(&server, &key, &ana, "R1", 4.0).await;
    let done = buy(&server, &key, &ana, "R2", 4.0).await;
    assert_eq!(challenge_effect(&done).unwrap()["completed"], true);
    assert_eq!(balances(&server, &key, &ana).await, (100, 0));

    let cancelled = cancel(&server, &key, "R2").await;
    assert_eq!(cancelled["cart"]["points_earned"], -100, "{cancelled}");
    assert_eq!(
        balances(&server, &key, &ana).await,
        (0, 0),
        "the grant reversed"
    );
    let mine = standing(&server, &key, &ana, 604).await;
    assert_eq!(
        (
            num(&mine["progress"]),
            &mine["completed"],
            &mine["completions"]
        ),
        (1.0, &json!(false), &json!(0)),
        "{mine}"
    );
    assert!(mine["history"][0]["revoked_at"].is_string(), "{mine}");
    assert_eq!(mine["counted"], json!(["cart:R1"]));

    // Completed again in the same week: completed, but its grant was given.
    let again = buy(&server, &key, &ana, "R3", 4.0).await;
    let effect = challenge_effect(&again).unwrap();
    assert_eq!(effect["completed"], true, "{again}");
    assert!(effect.get("granted").is_none(), "{effect}");
    assert_eq!(balances(&server, &key, &ana).await, (0, 0));

    // A new week: it counts and grants again.
    server.set_time("2026-11-30T09:00:00Z");
    buy(&server, &key, &ana, "R4", 4.0).await;
    let next = buy(&server, &key, &ana, "R5", 4.0).await;
    assert_eq!(challenge_effect(&next).unwrap()["granted"]["points"], 100);
    assert_eq!(balances(&server, &key, &ana).await, (100, 0));
}

#[tokio::test]
async fn with_on_return_keep_a_return_takes_only_the_progress_back() {
    let file = weekly("keep");
    let (server, _dir) = server_with(&[("weekly.yaml", &file)], MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    buy(&server, &key, &ana, "K1", 4.0).await;
    buy(&server, &key, &ana, "K2", 4.0).await;
    let cancelled = cancel(&server, &key, "K2").await;
    assert_eq!(cancelled["cart"]["points_earned"], 0, "{cancelled}");
    assert_eq!(balances(&server, &key, &ana).await, (100, 0));
    let mine = standing(&server, &key, &ana, 604).await;
    assert_eq!(
        (&mine["completed"], &mine["completions"]),
        (&json!(true), &json!(1)),
        "{mine}"
    );
}

#[tokio::test]
async fn carts_completing_a_challenge_at_once_grant_it_once() {
    let (server, _dir) = server_with(&[THREE_CARTS], MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    buy(&server, &key, &ana, "S1", 6.0).await;
    buy(&server, &key, &ana, "S2", 6.0).await;
    let answers = all_at_once(
        (0..12)
            .map(|i| {
                server
                    .request_as("POST", "/carts/realtime", &key)
                    .json(&cart(&ana, &format!("P{i}"), 6.0))
            })
            .collect(),
    )
    .await;
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );
    let completed: Vec<&Value> = answers
        .iter()
        .filter_map(|(_, body)| challenge_effect(body))
        .filter(|effect| effect["completed"] == true)
        .collect();
    assert_eq!(completed.len(), 1, "{answers:?}");
    assert_eq!(balances(&server, &key, &ana).await, (100, 0));
    let mine = standing(&server, &key, &ana, 601).await;
    assert_eq!(
        (&mine["completions"], num(&mine["progress"])),
        (&json!(1), 3.0),
        "{mine}"
    );
}

#[tokio::test]
async fn a_merge_folds_challenge_progress_into_the_target_and_an_unmerge_gives_it_back() {
    let (server, _dir) = server_with(&[THREE_CARTS], MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    let old = customer(&server, &key, "ana.old@example.org").await;
    buy(&server, &key, &ana, "M1", 6.0).await;
    buy(&server, &key, &old, "M2", 6.0).await;
    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": old, "to_customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    let mine = standing(&server, &key, &ana, 601).await;
    assert_eq!(num(&mine["progress"]), 2.0, "{mine}");
    assert_eq!(mine["counted"], json!(["cart:M1", "cart:M2"]));
    let (status, body) = server
        .call_as(
            "POST",
            "/challenges/601/enroll",
            &key,
            Some(json!({"customer_id": old})),
        )
        .await;
    assert_error(status, &body, 422, "customer_inactive");
    let (status, body) = server
        .get_as(&format!("/customers/{old}/challenges"), &key)
        .await;
    assert_error(status, &body, 422, "customer_inactive");
    let (status, body) = server
        .get_as(&format!("/challenges?customer_id={old}"), &key)
        .await;
    assert_error(status, &body, 422, "customer_inactive");

    let (status, unmerged) = server
        .call_as("POST", &format!("/customers/{old}/unmerge"), &key, None)
        .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(
        standing(&server, &key, &ana, 601).await["counted"],
        json!(["cart:M1"])
    );
    let theirs = standing(&server, &key, &old, 601).await;
    assert_eq!(theirs["counted"], json!(["cart:M2"]), "{theirs}");
    // Each counts on from where they stood.
    buy(&server, &key, &old, "M3", 6.0).await;
    assert_eq!(
        num(&standing(&server, &key, &old, 601).await["progress"]),
        2.0
    );
}

#[tokio::test]
async fn triggers_count_and_a_challenge_can_give_a_voucher() {
    let files = [
        (
            "coupon.yaml",
            "id: 31\nkind: coupon\nname: Five off\ncoupon:\n  discount: { amount: 5 }\n  code_pattern: CHL-######\n",
        ),
        (
            "app-opens.yaml",
            "id: 605\nkind: challenge\nname: Open the app on two days\non: { trigger: app_open }\ngoal: { streak: { days: 2 } }\nrepeat: once_completed\nreward: { coupon: 31 }\n",
        ),
    ];
    let (server, _dir) = server_with(&files, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    let open = || {
        server.call_as(
            "POST",
            "/trigger",
            &key,
            Some(json!({"customer_id": ana, "type": "app_open"})),
        )
    };
    let (status, first) = open().await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(num(&challenge_effect(&first).unwrap()["progress"]), 1.0);
    server.set_time("2026-11-24T08:00:00Z");
    let (status, second) = open().await;
    assert_eq!(status, 200, "{second}");
    let effect = challenge_effect(&second).unwrap();
    assert_eq!(effect["completed"], true, "{second}");
    assert_eq!(effect["granted"]["type"], "voucher");
    let code = effect["granted"]["voucher_code"].as_str().unwrap();
    assert!(code.starts_with("CHL-"), "{code}");
    let issued = second["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "voucher_issued")
        .unwrap_or_else(|| panic!("{second}"));
    assert_eq!(issued["voucher_code"], code);
    let (status, held) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{held}");
    // Repeating once completed: it starts again at once.
    server.set_time("2026-11-25T08:00:00Z");
    let (_, third) = open().await;
    let effect = challenge_effect(&third).unwrap();
    assert_eq!(
        (num(&effect["progress"]), &effect["completed"]),
        (1.0, &json!(false))
    );
    assert_eq!(standing(&server, &key, &ana, 605).await["completions"], 1);
}

#[tokio::test]
async fn an_ended_challenge_cannot_be_joined_and_counts_nothing() {
    let ended = (
        "ended.yaml",
        "id: 606\nkind: challenge\nname: Last year\non: cart\nenrollment: required\navailable_to: 2026-01-31T23:59:59Z\ngoal: { count: 1 }\nreward: { points: 5 }\n",
    );
    let (server, _dir) = server_with(&[ended], MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    let (status, body) = server
        .call_as(
            "POST",
            "/challenges/606/enroll",
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_error(status, &body, 422, "challenge_not_available");
    let answer = buy(&server, &key, &ana, "E1", 9.0).await;
    assert!(challenge_effect(&answer).is_none(), "{answer}");
    assert!(!reason(&answer, 606).is_empty(), "{answer}");
    let (status, body) = server
        .get_as("/challenges/606?customer_id=cus_nobody", &key)
        .await;
    assert_error(status, &body, 404, "customer_not_found");
    let (status, listed) = server.get_as("/challenges/606", &key).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["available_to"], "2026-01-31T23:59:59Z", "{listed}");
    assert!(listed.get("customer").is_none(), "{listed}");
}
