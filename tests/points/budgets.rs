//! Points budgets over HTTP: a points campaign's `limits` give what is left
//! of a budget and then nothing (explained at `limits:`), count per
//! Customer, per period and per event type, are given back by a cart's
//! cancellation, and never go past under concurrent carts and Custom
//! Events.

use super::*;

/// The points the campaign `rule_id` gave in an answer's effects.
fn points_of(answer: &Value, rule_id: i64) -> i64 {
    answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|effect| effect["type"] == "points" && effect["rule_id"] == rule_id)
        .map(|effect| effect["points"].as_i64().unwrap())
        .sum()
}

/// Creates the points campaign `spec`; its id.
async fn create_points_campaign(server: &TestServer, key: &CreatedApiKey, spec: Value) -> i64 {
    let (status, created) = post(server, key, "/points", spec).await;
    assert_eq!(status, 200, "{created}");
    created["id"].as_i64().unwrap()
}

/// A cart of `customer` coded `code`, of one line worth `total`.
fn cart(customer: &str, code: &str, total: f64) -> Value {
    json!({
        "customer_id": customer, "code": code, "date": "2026-07-06T10:00:00Z",
        "lines": [{"product_code": "TEA", "quantity": 1, "price": total}]
    })
}

/// Why `rule_id` did not apply to `cart`, from a simulation.
async fn explained(server: &TestServer, key: &CreatedApiKey, cart: Value, rule_id: i64) -> Value {
    let (status, answer) = post(server, key, "/carts/simulate?explain=true", cart).await;
    assert_eq!(status, 200, "{answer}");
    answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == rule_id)
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn a_points_budget_per_customer_and_week_gives_what_is_left_and_cancellations_give_back() {
    let server = TestServer::start_at("2026-07-06T10:00:00Z").await;
    let key = server.bootstrap_key();
    let weekly = create_points_campaign(
        &server,
        &key,
        json!({
            "name": "Double points, 100 a week", "on": "cart",
            "points": {"per_amount": 2},
            "limits": [{"points": 100, "per": "week", "each": "customer"}]
        }),
    )
    .await;
    let (_, shown) = server.get_as(&format!("/points/{weekly}"), &key).await;
    assert_eq!(
        shown["limits"],
        json!([{"points": 100, "per": "week", "each": "customer"}])
    );
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let mut given = Vec::new();
    for n in 0..3 {
        let (status, answer) = post(
            &server,
            &key,
            "/carts/realtime",
            cart(&ana, &format!("A-{n}"), 30.0),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        given.push(points_of(&answer, weekly));
    }
    assert_eq!(given, [60, 40, 0], "60, what is left of 100, then nothing");
    let explanation = explained(&server, &key, cart(&ana, "A-9", 30.0), weekly).await;
    assert_eq!(
        explanation["reason"], "its limit of 100 points per week for this Customer is spent",
        "{explanation}"
    );
    assert!(
        explanation["at"]
            .as_str()
            .unwrap()
            .starts_with(&format!("api/points/{weekly}:")),
        "{explanation}"
    );
    // Bob has his own budget.
    let (_, answer) = post(&server, &key, "/carts/realtime", cart(&bob, "B-0", 30.0)).await;
    assert_eq!(points_of(&answer, weekly), 60);
    // Cancelling Ana's first cart gives its 60 back to her week.
    let (status, cancelled) = post(
        &server,
        &key,
        "/carts/cancellation",
        json!({"cart_id": "A-0"}),
    )
    .await;
    assert_eq!(status, 200, "{cancelled}");
    let (_, answer) = post(&server, &key, "/carts/realtime", cart(&ana, "A-3", 40.0)).await;
    assert_eq!(points_of(&answer, weekly), 60);
    // The next Monday her week starts again.
    server.set_time("2026-07-13T10:00:00Z");
    let mut next_week = cart(&ana, "A-4", 10.0);
    next_week["date"] = json!("2026-07-13T10:00:00Z");
    let (_, answer) = post(&server, &key, "/carts/realtime", next_week).await;
    assert_eq!(points_of(&answer, weekly), 20);
    assert_ledger_consistent(&server, &ana).await;
}

#[tokio::test]
async fn custom_events_and_triggers_count_against_their_campaigns_budgets() {
    let server = TestServer::start_at("2026-07-06T10:00:00Z").await;
    let key = server.bootstrap_key();
    let reviews = create_points_campaign(
        &server,
        &key,
        json!({
            "name": "Two reviews a day", "on": {"custom_event": "review_written"},
            "points": {"fixed": 30}, "limits": [{"redemptions": 2, "per": "day"}]
        }),
    )
    .await;
    let visits = create_points_campaign(
        &server,
        &key,
        json!({
            "name": "Visits", "on": {"trigger": "store_visit"},
            "points": {"fixed": 15}, "limits": [{"points": 20}]
        }),
    )
    .await;
    let mut given = Vec::new();
    for n in 0..3 {
        let who = customer(&server, &key, &format!("writer{n}@example.com")).await;
        let (status, answer) = post(
            &server,
            &key,
            "/custom_events",
            json!({"customer_id": who, "type": "review_written"}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        given.push(points_of(&answer, reviews));
    }
    assert_eq!(given, [30, 30, 0], "two events a day for the Company");
    let visitor = customer(&server, &key, "visitor@example.com").await;
    let mut given = Vec::new();
    for _ in 0..3 {
        let (status, answer) = post(
            &server,
            &key,
            "/trigger",
            json!({"customer_id": visitor, "type": "store_visit"}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        given.push(points_of(&answer, visits));
    }
    assert_eq!(given, [15, 5, 0], "20 points ever");
    assert_eq!(balances(&server, &key, &visitor).await.0, 20);
    assert_ledger_consistent(&server, &visitor).await;
}

#[tokio::test]
async fn a_points_budget_is_refused_where_it_means_nothing_and_changes_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    for (limits, says) in [
        (json!([{"amount": 50}]), "`amount` is the money budget"),
        (
            json!([{"per": "day"}]),
            "counts `redemptions`, `points` or both",
        ),
        (
            json!([{"points": 10, "per": "day"}, {"redemptions": 1, "per": "day"}]),
            "two limits count the same",
        ),
    ] {
        let (status, refused) = post(
            &server,
            &key,
            "/points",
            json!({"name": "Bad", "on": "cart", "points": {"fixed": 5}, "limits": limits}),
        )
        .await;
        assert_eq!(status, 400, "{refused}");
        assert!(
            refused["error"].as_str().unwrap().contains(says),
            "{refused}"
        );
    }
    let (status, refused) = post(
        &server,
        &key,
        "/discounts",
        json!({"name": "Bad", "discount": {"amount": 1}, "limits": [{"points": 10}]}),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    let (_, listed) = server.get_as("/points", &key).await;
    assert!(
        listed["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["source"] == "file"),
        "nothing was created: {listed}"
    );
}

#[tokio::test]
async fn a_points_budget_holds_under_a_64_way_race_of_carts_and_custom_events() {
    let server = TestServer::start_at("2026-07-06T10:00:00Z").await;
    let key = server.bootstrap_key();
    // 7 points a cart from a budget of 250: 35 carts in full, one gets 5.
    let carts = create_points_campaign(
        &server,
        &key,
        json!({"name": "Launch", "on": "cart", "points": {"fixed": 7}, "limits": [{"points": 250}]}),
    )
    .await;
    let events = create_points_campaign(
        &server,
        &key,
        json!({
            "name": "Nine sign-ups", "on": {"custom_event": "newsletter"},
            "points": {"fixed": 50}, "limits": [{"redemptions": 9}]
        }),
    )
    .await;
    let mut racers = Vec::new();
    for n in 0..64 {
        racers.push(customer(&server, &key, &format!("racer{n}@example.com")).await);
    }
    let requests = racers
        .iter()
        .enumerate()
        .flat_map(|(n, racer)| {
            let mut requests = vec![
                server
                    .request_as("POST", "/carts/realtime", &key)
                    .json(&cart(racer, &format!("R-{n}"), 5.0)),
            ];
            if n % 2 == 0 {
                requests.push(
                    server
                        .request_as("POST", "/custom_events", &key)
                        .json(&json!({"customer_id": racer, "type": "newsletter"})),
                );
            }
            requests
        })
        .collect();
    let answers = all_at_once(requests).await;
    let (mut cart_points, mut credited_events) = (Vec::new(), 0);
    for (status, body) in &answers {
        assert_eq!(*status, 200, "every event goes through: {body}");
        if body.get("cart").is_some() {
            cart_points.push(points_of(body, carts));
        } else if points_of(body, events) > 0 {
            assert_eq!(points_of(body, events), 50);
            credited_events += 1;
        }
    }
    assert_eq!(cart_points.iter().sum::<i64>(), 250, "{cart_points:?}");
    assert_eq!(cart_points.iter().filter(|p| **p == 7).count(), 35);
    assert_eq!(credited_events, 9);
    // The ledger agrees with the answers.
    let mut credited = 0;
    for racer in &racers {
        let (_, page) = server
            .get_as(
                &format!("/points/transactions?customer_id={racer}&limit=50"),
                &key,
            )
            .await;
        credited += page["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|entry| entry["rule_id"] == carts || entry["rule_id"] == events)
            .map(|entry| entry["points"].as_i64().unwrap())
            .sum::<i64>();
        assert_ledger_consistent(&server, racer).await;
    }
    assert_eq!(credited, 250 + 9 * 50);
}
