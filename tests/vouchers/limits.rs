//! Budgets and caps over HTTP: a Coupon's or discount campaign's `limits`
//! refuse what would go past them (`voucher_limit_reached`,
//! `discount_limit_reached`), carts go through without what is refused,
//! cancellations and rollbacks give back, and a race never goes past.

use super::carts::{MONDAY, cart, effects_of, post_cart_ok, rejections};
use super::*;

/// Money the discount campaign `rule_id` took off `answer`, in cents.
fn campaign_cents(answer: &Value, rule_id: i64) -> i64 {
    effects_of(answer, "discount")
        .into_iter()
        .filter(|effect| effect["rule_id"] == rule_id)
        .map(|effect| (effect["value"].as_f64().unwrap() * 100.0).round() as i64)
        .sum()
}

async fn create_discount(server: &TestServer, key: &CreatedApiKey, body: Value) -> i64 {
    let (status, created) = server.call_as("POST", "/discounts", key, Some(body)).await;
    assert_eq!(status, 200, "{created}");
    created["id"].as_i64().unwrap()
}

#[tokio::test]
async fn a_coupons_redemption_limit_refuses_the_next_use_until_one_is_given_back() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Two only", "discount": {"amount": 5}, "limits": [{"redemptions": 2}]}),
    )
    .await;
    assert_eq!(coupon["limits"], json!([{"redemptions": 2}]), "{coupon}");
    let mut codes = Vec::new();
    for _ in 0..3 {
        codes.push(issued_code(&server, &key, &ana, &coupon).await);
    }
    for (n, code) in codes[..2].iter().enumerate() {
        let answer =
            post_cart_ok(&server, &key, cart(&ana, &format!("L-{n}"), json!([code]))).await;
        assert!(!effects_of(&answer, "voucher").is_empty(), "{answer}");
    }
    // The third Voucher is refused in a cart, which goes through without it,
    // and outside one.
    let answer = post_cart_ok(&server, &key, cart(&ana, "L-2", json!([codes[2]]))).await;
    assert_eq!(
        rejections(&answer),
        [(codes[2].clone(), "voucher_limit_reached".to_string())]
    );
    let redeem = json!({"customer_id": ana, "codes": [codes[2]], "location_code": "S1"});
    let (status, refused) = server
        .call_as("POST", "/vouchers/redeem", &key, Some(redeem.clone()))
        .await;
    assert_error(status, &refused, 422, "voucher_limit_reached");
    let (_, third) = server
        .get_as(&format!("/vouchers/{}?customer_id={ana}", codes[2]), &key)
        .await;
    assert_eq!(third["uses_left"], 1, "nothing was taken: {third}");

    // Cancelling a cart gives its redemption back to the limit.
    let (status, cancelled) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "L-1"})),
        )
        .await;
    assert_eq!(status, 200, "{cancelled}");
    let (status, redeemed) = server
        .call_as("POST", "/vouchers/redeem", &key, Some(redeem))
        .await;
    assert_eq!(status, 200, "{redeemed}");
    // And so does a rollback.
    let redemption_id = redeemed["redemptions"][0]["redemption_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, rolled_back) = server
        .call_as(
            "POST",
            "/vouchers/rollback",
            &key,
            Some(json!({"redemption_ids": [redemption_id]})),
        )
        .await;
    assert_eq!(status, 200, "{rolled_back}");
    let answer = post_cart_ok(&server, &key, cart(&ana, "L-3", json!([codes[2]]))).await;
    assert!(rejections(&answer).is_empty(), "{answer}");
}

#[tokio::test]
async fn a_campaign_budget_gives_what_is_left_of_it_then_stops() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let budget = create_discount(
        &server,
        &key,
        json!({"name": "Budget", "discount": {"amount": 4}, "limits": [{"amount": 10}]}),
    )
    .await;
    let mut given = Vec::new();
    for n in 0..4 {
        let answer = post_cart_ok(&server, &key, cart(&ana, &format!("B-{n}"), json!([]))).await;
        given.push(campaign_cents(&answer, budget));
    }
    assert_eq!(given, [400, 400, 200, 0]);
    let (status, explained) = server
        .call_as(
            "POST",
            "/carts/simulate?explain=true",
            &key,
            Some(cart(&ana, "B-9", json!([]))),
        )
        .await;
    assert_eq!(status, 200, "{explained}");
    let explanation = explained["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == budget)
        .unwrap();
    assert_eq!(
        explanation["reason"], "its limit of a budget of 10 ever is spent",
        "{explanation}"
    );
    // Outside a cart the budget refuses too.
    let (status, refused) = server
        .call_as(
            "POST",
            "/discounts/redeem",
            &key,
            Some(json!({"customer_id": ana, "discount_id": budget, "base_amount": 50})),
        )
        .await;
    assert_error(status, &refused, 422, "discount_limit_reached");
    // A cancelled cart gives its money back to the budget.
    let (status, _) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "B-0"})),
        )
        .await;
    assert_eq!(status, 200);
    let answer = post_cart_ok(&server, &key, cart(&ana, "B-5", json!([]))).await;
    assert_eq!(campaign_cents(&answer, budget), 400);
}

#[tokio::test]
async fn limits_count_per_customer_per_week_and_per_location_per_day() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    create_coupon(
        &server,
        &key,
        json!({
            "name": "Weekly", "discount": {"amount": 1}, "static_code": "WEEKLY",
            "uses_per_voucher": 100,
            "limits": [
                {"redemptions": 1, "per": "week", "each": "customer"},
                {"redemptions": 2, "per": "day", "each": "location"}
            ]
        }),
    )
    .await;
    let used = |answer: &Value| !effects_of(answer, "voucher").is_empty();
    let ana_cart = |code: &str| cart(&ana, code, json!(["WEEKLY"]));
    assert!(used(&post_cart_ok(&server, &key, ana_cart("W-1")).await));
    let again = post_cart_ok(&server, &key, ana_cart("W-2")).await;
    assert_eq!(
        rejections(&again),
        [("WEEKLY".to_string(), "voucher_limit_reached".to_string())]
    );
    assert!(
        effects_of(&again, "voucher_rejected")[0]["error"]
            .as_str()
            .unwrap()
            .contains("1 redemption per week for this Customer"),
        "{again}"
    );
    // Bob has his own week; S1 has had its 2 for the day after him.
    assert!(used(
        &post_cart_ok(&server, &key, cart(&bob, "W-3", json!(["WEEKLY"]))).await
    ));
    let carol = customer(&server, &key, "carol@example.com").await;
    let at_s1 = post_cart_ok(&server, &key, cart(&carol, "W-4", json!(["WEEKLY"]))).await;
    assert_eq!(
        rejections(&at_s1),
        [("WEEKLY".to_string(), "voucher_limit_reached".to_string())]
    );
    let mut at_s2 = cart(&carol, "W-5", json!(["WEEKLY"]));
    at_s2["location_code"] = json!("S2");
    assert!(used(&post_cart_ok(&server, &key, at_s2).await));
    // The next Monday Ana's week starts again.
    server.set_time("2026-07-13T08:00:00Z");
    assert!(used(&post_cart_ok(&server, &key, ana_cart("W-6")).await));
}

#[tokio::test]
async fn limits_hold_under_a_64_way_race_of_carts_and_redemptions() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Five winners", "discount": {"amount": 2}, "static_code": "FIVE",
               "limits": [{"redemptions": 5}]}),
    )
    .await;
    let capped = create_discount(
        &server,
        &key,
        json!({"name": "Seven carts", "discount": {"amount": 1}, "limits": [{"redemptions": 7}]}),
    )
    .await;
    let mut customers = Vec::new();
    for n in 0..64 {
        customers.push(customer(&server, &key, &format!("racer{n}@example.com")).await);
    }
    let requests = customers
        .iter()
        .enumerate()
        .map(|(n, racer)| {
            if n % 2 == 0 {
                server
                    .request_as("POST", "/carts/realtime", &key)
                    .json(&cart(racer, &format!("R-{n}"), json!(["FIVE"])))
            } else {
                server
                    .request_as("POST", "/vouchers/redeem", &key)
                    .json(&json!({"customer_id": racer, "codes": ["FIVE"], "location_code": "S1"}))
            }
        })
        .collect();
    let answers = all_at_once(requests).await;
    let (mut uses, mut discounted) = (0, 0);
    for (status, body) in &answers {
        if body.get("cart").is_some() {
            assert_eq!(*status, 200, "every sale goes through: {body}");
            if effects_of(body, "voucher").is_empty() {
                assert_eq!(
                    rejections(body),
                    [("FIVE".to_string(), "voucher_limit_reached".to_string())]
                );
            } else {
                uses += 1;
            }
            if campaign_cents(body, capped) > 0 {
                discounted += 1;
            }
        } else if *status == 200 {
            uses += 1;
        } else {
            assert_error(*status, body, 422, "voucher_limit_reached");
        }
    }
    assert_eq!(uses, 5, "{answers:?}");
    assert_eq!(discounted, 7, "{answers:?}");
    let _ = coupon;
}
