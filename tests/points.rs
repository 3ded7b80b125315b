//! Points and wallet over HTTP: balances and the ledger, redemptions (also
//! for a cart, given back by its cancellation), transfers, adjustments with
//! their author, every error, balances under concurrent debits, and the
//! budgets of points campaigns.

#[path = "points/budgets.rs"]
mod budgets;
mod common;

use common::{TestServer, all_at_once};
use loyalty::resources::companies::model::CreatedApiKey;
use loyalty::resources::points::model::PointsKind;
use serde_json::{Value, json};

async fn customer(server: &TestServer, key: &CreatedApiKey, email: &str) -> String {
    let (status, customer) = server
        .call_as("POST", "/customers", key, Some(json!({"email": email})))
        .await;
    assert_eq!(status, 200, "{customer}");
    customer["id"].as_str().unwrap().to_string()
}

async fn post(server: &TestServer, key: &CreatedApiKey, path: &str, body: Value) -> (u16, Value) {
    server.call_as("POST", path, key, Some(body)).await
}

async fn credit(server: &TestServer, key: &CreatedApiKey, customer: &str, points: i64) {
    let (status, body) = post(
        server,
        key,
        "/scores/trigger",
        json!({"customer_id": customer, "points": points, "description": "welcome gift"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

async fn balances(server: &TestServer, key: &CreatedApiKey, customer: &str) -> (i64, i64) {
    let (status, body) = server
        .get_as(&format!("/customers/{customer}/points"), key)
        .await;
    assert_eq!(status, 200, "{body}");
    (
        body["points"].as_i64().unwrap(),
        body["wallet"].as_i64().unwrap(),
    )
}

fn assert_error(status: u16, body: &Value, expected_status: u16, code: &str) {
    assert_eq!(
        (status, body["code"].as_str()),
        (expected_status, Some(code)),
        "{body}"
    );
    assert!(body["error"].is_string(), "{body}");
}

/// The cached balance equals the sum of the ledger entries.
async fn assert_ledger_consistent(server: &TestServer, customer: &str) {
    let store = server.running.services.store();
    for kind in [PointsKind::Points, PointsKind::Wallet] {
        let cached = store.balance("demo", customer, kind).await.unwrap();
        let summed = store.ledger_sum("demo", customer, kind).await.unwrap();
        assert_eq!(cached, summed, "{kind:?} of {customer}");
        assert!(cached >= 0, "{kind:?} of {customer} is {cached}");
    }
}

#[tokio::test]
async fn redemptions_take_from_the_balance_and_are_listed_with_their_cause() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "redeem@example.com").await;
    credit(&server, &key, &id, 100).await;
    let (status, redeemed) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 30, "description": "coffee"}),
    )
    .await;
    assert_eq!(status, 200, "{redeemed}");
    assert_eq!(
        (&redeemed["points"], &redeemed["balance"], &redeemed["kind"]),
        (&json!(30), &json!(70), &json!("points"))
    );
    let (status, refused) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 71}),
    )
    .await;
    assert_error(status, &refused, 422, "customer_not_enough_score");
    assert_eq!(balances(&server, &key, &id).await, (70, 0), "nothing taken");

    let (status, page) = server
        .get_as(&format!("/points/transactions?customer_id={id}"), &key)
        .await;
    assert_eq!(status, 200, "{page}");
    let entries = page["transactions"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["reason"], "redemption", "newest first");
    assert_eq!(entries[0]["points"], -30);
    assert_eq!(entries[0]["operation_id"], redeemed["operation_id"]);
    assert_eq!(entries[0]["description"], "coffee");
    assert_eq!(entries[1]["reason"], "adjustment");
    assert_ledger_consistent(&server, &id).await;
}

#[tokio::test]
async fn bad_requests_get_the_documented_errors_and_change_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "bad@example.com").await;
    credit(&server, &key, &id, 50).await;
    for (path, body, status, code) in [
        (
            "/points/redeem",
            json!({"customer_id": id, "points": 0}),
            400,
            "invalid_request",
        ),
        (
            "/points/redeem",
            json!({"customer_id": id, "points": -5}),
            400,
            "invalid_request",
        ),
        (
            "/points/redeem",
            json!({"customer_id": id, "points": 2_000_000_000i64}),
            400,
            "invalid_request",
        ),
        (
            "/points/redeem",
            json!({"points": 5}),
            400,
            "invalid_request",
        ),
        (
            "/points/redeem",
            json!({"customer_id": id, "customer_code": "X", "points": 5}),
            404,
            "customer_not_found",
        ),
        (
            "/points/redeem",
            json!({"customer_id": id, "points": 5, "kind": "gold"}),
            400,
            "invalid_request",
        ),
        (
            "/points/redeem",
            json!({"customer_id": "cus_nobody", "points": 5}),
            404,
            "customer_not_found",
        ),
        (
            "/points/redeem",
            json!({"customer_id": id, "points": 5, "description": "x".repeat(501)}),
            400,
            "invalid_request",
        ),
        (
            "/points/redeem_cart",
            json!({"cart_id": "NO-SUCH-CART", "points": 5}),
            404,
            "cart_not_found",
        ),
        (
            "/points/transfer",
            json!({"from_customer_id": id, "to_customer_id": id, "points": 5}),
            422,
            "same_customer",
        ),
        (
            "/points/transfer",
            json!({"from_customer_id": id, "to_customer_id": "cus_nobody", "points": 5}),
            404,
            "customer_not_found",
        ),
        (
            "/points/transfer",
            json!({"from_customer_id": id, "points": 5}),
            400,
            "invalid_request",
        ),
        (
            "/scores/trigger",
            json!({"customer_id": id, "points": 0}),
            400,
            "invalid_request",
        ),
        (
            "/scores/trigger",
            json!({"customer_id": id, "points": -51}),
            422,
            "customer_not_enough_score",
        ),
    ] {
        let (got, answer) = post(&server, &key, path, body.clone()).await;
        assert_eq!(
            (got, answer["code"].as_str()),
            (status, Some(code)),
            "{path} {body}: {answer}"
        );
    }
    let (status, answer) = server.get_as("/points/transactions", &key).await;
    assert_error(status, &answer, 400, "invalid_request");
    assert_eq!(balances(&server, &key, &id).await, (50, 0));

    // An inactive Customer cannot redeem.
    let (status, _) = server
        .call_as(
            "PATCH",
            &format!("/customers/{id}"),
            &key,
            Some(json!({"active": false})),
        )
        .await;
    assert_eq!(status, 200);
    let (status, answer) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 5}),
    )
    .await;
    assert_error(status, &answer, 422, "customer_inactive");
    assert_eq!(balances(&server, &key, &id).await, (50, 0));
}

#[tokio::test]
async fn concurrent_redemptions_leave_exactly_the_ones_that_fit() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "rush@example.com").await;
    credit(&server, &key, &id, 100).await;
    let requests = (0..25)
        .map(|_| {
            server
                .request_as("POST", "/points/redeem", &key)
                .json(&json!({"customer_id": id, "points": 10}))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let accepted = answers.iter().filter(|(status, _)| *status == 200).count();
    for (status, body) in &answers {
        assert!(
            *status == 200 || (*status == 422 && body["code"] == "customer_not_enough_score"),
            "{status} {body}"
        );
    }
    assert_eq!(
        accepted, 10,
        "100 points pay for exactly ten redemptions of 10"
    );
    assert_eq!(balances(&server, &key, &id).await, (0, 0));
    assert_ledger_consistent(&server, &id).await;
}

#[tokio::test]
async fn transfers_move_both_legs_or_neither_and_conserve_points_under_concurrency() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let a = customer(&server, &key, "a@example.com").await;
    let b = customer(&server, &key, "b@example.com").await;
    credit(&server, &key, &a, 60).await;
    credit(&server, &key, &b, 40).await;
    let (status, moved) = post(
        &server,
        &key,
        "/points/transfer",
        json!({"from_customer_id": a, "to_customer_id": b, "points": 25}),
    )
    .await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(
        (&moved["balance"], &moved["to_balance"]),
        (&json!(35), &json!(65))
    );
    let (status, refused) = post(
        &server,
        &key,
        "/points/transfer",
        json!({"from_customer_id": a, "to_customer_id": b, "points": 36}),
    )
    .await;
    assert_error(status, &refused, 422, "customer_not_enough_score");
    assert_eq!(balances(&server, &key, &a).await.0, 35);
    assert_eq!(balances(&server, &key, &b).await.0, 65);

    // Transfers both ways at once: the total is conserved and nobody goes below zero.
    let requests = (0..30)
        .map(|n| {
            let (from, to) = if n % 2 == 0 { (&a, &b) } else { (&b, &a) };
            server
                .request_as("POST", "/points/transfer", &key)
                .json(&json!({"from_customer_id": from, "to_customer_id": to, "points": 15}))
        })
        .collect();
    for (status, body) in all_at_once(requests).await {
        assert!(
            status == 200 || body["code"] == "customer_not_enough_score",
            "{status} {body}"
        );
    }
    let total = balances(&server, &key, &a).await.0 + balances(&server, &key, &b).await.0;
    assert_eq!(total, 100, "transfers conserve points");
    assert_ledger_consistent(&server, &a).await;
    assert_ledger_consistent(&server, &b).await;
}

#[tokio::test]
async fn the_author_header_is_kept_on_transfers_and_adjustments() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let a = customer(&server, &key, "from@example.com").await;
    let b = customer(&server, &key, "to@example.com").await;
    let (status, body) = server
        .send(
            server
                .request_as("POST", "/scores/trigger", &key)
                .header("X-Author-Email", "agent@shop.example")
                .json(&json!({"customer_id": a, "points": 80, "description": "complaint #42"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .send(
            server
                .request_as("POST", "/scores/transfer", &key)
                .header("X-Author-Email", "agent@shop.example")
                .json(&json!({"from_customer_id": a, "to_customer_id": b, "points": 30})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    for customer in [&a, &b] {
        let (_, page) = server
            .get_as(
                &format!("/points/transactions?customer_id={customer}"),
                &key,
            )
            .await;
        let newest = &page["transactions"][0];
        assert_eq!(newest["reason"], "transfer");
        assert_eq!(newest["author_email"], "agent@shop.example");
        assert_eq!(newest["operation_id"], body["operation_id"]);
    }
    let (status, refused) = server
        .send(
            server
                .request_as("POST", "/scores/trigger", &key)
                .header("X-Author-Email", "not an email")
                .json(&json!({"customer_id": a, "points": 1})),
        )
        .await;
    assert_error(status, &refused, 400, "invalid_request");
    assert_eq!(balances(&server, &key, &a).await.0, 50);
}

#[tokio::test]
async fn a_cart_redemption_is_given_back_once_by_the_cancellation() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "cart@example.com").await;
    credit(&server, &key, &id, 100).await;
    let cart = json!({
        "customer_id": id, "code": "RC-1", "date": "2026-05-04T16:00:00Z",
        "lines": [{"product_code": "TEA", "quantity": 1, "price": 20.0}]
    });
    let (status, recorded) = post(&server, &key, "/carts/realtime", cart).await;
    assert_eq!(status, 200, "{recorded}");
    let earned = recorded["cart"]["points_earned"].as_i64().unwrap();
    assert_eq!(earned, 20, "one point per euro");
    let (status, redeemed) = post(
        &server,
        &key,
        "/points/redeem_cart",
        json!({"cart_id": "RC-1", "points": 50}),
    )
    .await;
    assert_eq!(status, 200, "{redeemed}");
    assert_eq!(
        (&redeemed["cart_id"], &redeemed["balance"]),
        (&json!("RC-1"), &json!(70))
    );

    let (status, cancelled) = post(
        &server,
        &key,
        "/carts/cancellation",
        json!({"cart_id": "RC-1"}),
    )
    .await;
    assert_eq!(status, 200, "{cancelled}");
    // The 20 earned are taken back, the 50 redeemed given back: 70 - 20 + 50.
    assert_eq!(balances(&server, &key, &id).await.0, 100);
    let (status, again) = post(
        &server,
        &key,
        "/carts/cancellation",
        json!({"cart_id": "RC-1"}),
    )
    .await;
    assert_error(status, &again, 409, "cart_already_cancelled");
    let (status, late) = post(
        &server,
        &key,
        "/points/redeem_cart",
        json!({"cart_id": "RC-1", "points": 5}),
    )
    .await;
    assert_error(status, &late, 409, "cart_already_cancelled");
    assert_eq!(balances(&server, &key, &id).await.0, 100);
    assert_ledger_consistent(&server, &id).await;
}

#[tokio::test]
async fn a_cancellation_takes_back_only_the_points_left() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "spender@example.com").await;
    let cart = json!({
        "customer_id": id, "code": "SP-1", "date": "2026-05-04T16:00:00Z",
        "lines": [{"product_code": "TEA", "quantity": 1, "price": 30.0}]
    });
    let (status, _) = post(&server, &key, "/carts/realtime", cart).await;
    assert_eq!(status, 200);
    let (status, _) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 25}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, cancelled) = post(
        &server,
        &key,
        "/carts/cancellation",
        json!({"cart_id": "SP-1"}),
    )
    .await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(
        cancelled["cart"]["points_earned"], -5,
        "only the 5 points left are taken back"
    );
    assert_eq!(balances(&server, &key, &id).await.0, 0);
    // A cancellation is no cart to redeem for.
    let cancellation = cancelled["cart"]["id"].as_str().unwrap().to_string();
    let (status, refused) = post(
        &server,
        &key,
        "/points/redeem_cart",
        json!({"cart_id": cancellation, "points": 1}),
    )
    .await;
    assert_error(status, &refused, 422, "cart_is_cancellation");
    assert_ledger_consistent(&server, &id).await;
}

#[tokio::test]
async fn wallet_money_is_a_balance_of_its_own_and_transactions_page() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "wallet@example.com").await;
    let (status, body) = post(
        &server,
        &key,
        "/scores/trigger",
        json!({"customer_id": id, "points": 500, "kind": "wallet"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    credit(&server, &key, &id, 7).await;
    let (status, body) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 200, "kind": "wallet"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(balances(&server, &key, &id).await, (7, 300));
    let (status, refused) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 8}),
    )
    .await;
    assert_error(status, &refused, 422, "customer_not_enough_score");

    let (_, wallet) = server
        .get_as(
            &format!("/points/transactions?customer_id={id}&kind=wallet"),
            &key,
        )
        .await;
    assert_eq!(wallet["transactions"].as_array().unwrap().len(), 2);
    let (_, first) = server
        .get_as(
            &format!("/points/transactions?customer_id={id}&per_page=2"),
            &key,
        )
        .await;
    assert_eq!(first["transactions"].as_array().unwrap().len(), 2);
    let token = first["next_token_starts_after"].as_str().unwrap();
    let (_, rest) = server
        .get_as(
            &format!("/points/transactions?customer_id={id}&per_page=2&starting_after={token}"),
            &key,
        )
        .await;
    assert_eq!(rest["transactions"].as_array().unwrap().len(), 1);
    assert!(rest.get("next_token_starts_after").is_none());
    assert_eq!(
        rest["transactions"][0]["points"], 500,
        "the oldest comes last"
    );
    assert_ledger_consistent(&server, &id).await;
}

mod sequences {
    //! Property test: any sequence of accruals, cart earnings, redemptions
    //! (alone and for carts), transfers, cancellations and expiries leaves every
    //! balance equal to the sum of its entries, never negative, and exactly
    //! as a simple model of the rules predicts; transfers conserve points.

    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Accrue(usize, i64),
        AccrueExpiring(usize, i64),
        Expire,
        Earn(usize, u32),
        Redeem(usize, i64),
        Transfer(usize, usize, i64),
        RedeemCart(usize, i64),
        Cancel(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..3usize, 1..60i64).prop_map(|(c, n)| Op::Accrue(c, n)),
            (0..3usize, 1..60i64).prop_map(|(c, n)| Op::AccrueExpiring(c, n)),
            Just(Op::Expire),
            (0..3usize, 1..50u32).prop_map(|(c, t)| Op::Earn(c, t)),
            (0..3usize, 1..60i64).prop_map(|(c, n)| Op::Redeem(c, n)),
            (0..3usize, 0..3usize, 1..60i64).prop_map(|(a, b, n)| Op::Transfer(a, b, n)),
            (0..6usize, 1..40i64).prop_map(|(c, n)| Op::RedeemCart(c, n)),
            (0..6usize).prop_map(Op::Cancel),
        ]
    }

    /// A recorded cart in the model.
    struct ModelCart {
        code: String,
        owner: usize,
        earned: i64,
        redeemed: i64,
        cancelled: bool,
    }

    async fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let mut ids = Vec::new();
        for n in 0..3 {
            ids.push(customer(&server, &key, &format!("p{n}@example.com")).await);
        }
        let mut model = [0i64; 3];
        let mut carts: Vec<ModelCart> = Vec::new();
        for (step, op) in ops.into_iter().enumerate() {
            match op {
                Op::Accrue(c, n) => {
                    let (status, body) = post(
                        &server,
                        &key,
                        "/scores/trigger",
                        json!({"customer_id": ids[c], "points": n}),
                    )
                    .await;
                    prop_assert_eq!(status, 200, "{}", body);
                    model[c] += n;
                }
                Op::AccrueExpiring(c, n) => {
                    let soon = loyalty::common::time::Timestamp::from(
                        chrono::Utc::now() + chrono::Duration::days(1),
                    );
                    let (status, body) = post(
                        &server,
                        &key,
                        "/scores/trigger",
                        json!({"customer_id": ids[c], "points": n, "expires_at": soon}),
                    )
                    .await;
                    prop_assert_eq!(status, 200, "{}", body);
                    model[c] += n;
                }
                Op::Expire => {
                    // Everything expiring so far expires; what is left of it is
                    // for the ledger to say, so the model takes the new
                    // balances, which may only have gone down.
                    let later = loyalty::common::time::Timestamp::from(
                        chrono::Utc::now() + chrono::Duration::days(2),
                    );
                    server.running.services.expire_points(later).await.unwrap();
                    for (c, id) in ids.iter().enumerate() {
                        let (points, _) = balances(&server, &key, id).await;
                        prop_assert!(
                            points <= model[c] && points >= 0,
                            "expiry moved {} to {}",
                            model[c],
                            points
                        );
                        model[c] = points;
                        let (_, expiring) = server
                            .get_as(&format!("/customers/{id}/points_expiring"), &key)
                            .await;
                        prop_assert_eq!(
                            &expiring["expiring"],
                            &json!([]),
                            "everything due expired"
                        );
                    }
                    prop_assert_eq!(
                        server.running.services.expire_points(later).await.unwrap(),
                        0,
                        "expiry is idempotent"
                    );
                }
                Op::Earn(c, total) => {
                    let code = format!("S{step}");
                    let cart = json!({"customer_id": ids[c], "code": code, "date": "2026-05-04T16:00:00Z",
                        "lines": [{"product_code": "TEA", "quantity": 1, "price": total}]});
                    let (status, body) = post(&server, &key, "/carts/realtime", cart).await;
                    prop_assert_eq!(status, 200, "{}", body);
                    model[c] += i64::from(total);
                    carts.push(ModelCart {
                        code,
                        owner: c,
                        earned: i64::from(total),
                        redeemed: 0,
                        cancelled: false,
                    });
                }
                Op::Redeem(c, n) => {
                    let (status, _) = post(
                        &server,
                        &key,
                        "/points/redeem",
                        json!({"customer_id": ids[c], "points": n}),
                    )
                    .await;
                    let fits = model[c] >= n;
                    prop_assert_eq!(status, if fits { 200 } else { 422 });
                    if fits {
                        model[c] -= n;
                    }
                }
                Op::Transfer(a, b, n) => {
                    let (status, answer) = post(
                        &server,
                        &key,
                        "/points/transfer",
                        json!({"from_customer_id": ids[a], "to_customer_id": ids[b], "points": n}),
                    )
                    .await;
                    if a == b {
                        prop_assert_eq!(
                            (status, answer["code"].as_str()),
                            (422, Some("same_customer"))
                        );
                        continue;
                    }
                    let expected = if model[a] >= n { 200 } else { 422 };
                    prop_assert_eq!(status, expected);
                    if expected == 200 {
                        model[a] -= n;
                        model[b] += n;
                    }
                }
                Op::RedeemCart(index, n) => {
                    let Some(cart) = carts.get_mut(index) else {
                        continue;
                    };
                    let (status, _) = post(
                        &server,
                        &key,
                        "/points/redeem_cart",
                        json!({"cart_id": cart.code, "points": n}),
                    )
                    .await;
                    let expected = if cart.cancelled {
                        409
                    } else if model[cart.owner] >= n {
                        200
                    } else {
                        422
                    };
                    prop_assert_eq!(status, expected);
                    if expected == 200 {
                        model[cart.owner] -= n;
                        cart.redeemed += n;
                    }
                }
                Op::Cancel(index) => {
                    let Some(cart) = carts.get_mut(index) else {
                        continue;
                    };
                    let (status, _) = post(
                        &server,
                        &key,
                        "/carts/cancellation",
                        json!({"cart_id": cart.code}),
                    )
                    .await;
                    prop_assert_eq!(status, if cart.cancelled { 409 } else { 200 });
                    if !cart.cancelled {
                        cart.cancelled = true;
                        let available = model[cart.owner] + cart.redeemed;
                        model[cart.owner] = available - cart.earned.min(available);
                    }
                }
            }
            prop_assert!(model.iter().all(|balance| *balance >= 0));
        }
        for (c, id) in ids.iter().enumerate() {
            let (points, _) = balances(&server, &key, id).await;
            prop_assert_eq!(points, model[c], "customer {}", c);
            let summed = server
                .running
                .services
                .store()
                .ledger_sum("demo", id, PointsKind::Points)
                .await
                .unwrap();
            prop_assert_eq!(summed, points);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        #[test]
        fn any_sequence_keeps_balances_equal_to_their_entries_and_never_negative(
            ops in prop::collection::vec(op(), 1..25),
        ) {
            let runtime = common::proptest_runtime();
            runtime.block_on(run(ops))?;
        }
    }
}

#[tokio::test]
async fn points_expire_first_in_first_out_once() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "expiry@example.com").await;
    let soon =
        loyalty::common::time::Timestamp::from(chrono::Utc::now() + chrono::Duration::hours(1));
    let (status, body) = post(
        &server,
        &key,
        "/scores/trigger",
        json!({"customer_id": id, "points": 100, "expires_at": soon}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    credit(&server, &key, &id, 50).await;
    let (status, _) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 30}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, expiring) = server
        .get_as(&format!("/customers/{id}/points_expiring"), &key)
        .await;
    assert_eq!(status, 200, "{expiring}");
    assert_eq!(
        expiring["expiring"],
        json!([{"expires_at": soon, "points": 70}]),
        "the redemption used the oldest points first"
    );

    let later =
        loyalty::common::time::Timestamp::from(soon.as_datetime() + chrono::Duration::seconds(1));
    let services = &server.running.services;
    assert_eq!(services.expire_points(later).await.unwrap(), 1);
    assert_eq!(balances(&server, &key, &id).await.0, 50);
    assert_eq!(
        services.expire_points(later).await.unwrap(),
        0,
        "idempotent"
    );
    let (_, page) = server
        .get_as(&format!("/points/transactions?customer_id={id}"), &key)
        .await;
    assert_eq!(page["transactions"][0]["reason"], "expiry");
    assert_eq!(page["transactions"][0]["points"], -70);
    let (_, expiring) = server
        .get_as(&format!("/customers/{id}/points_expiring"), &key)
        .await;
    assert_eq!(expiring["expiring"], json!([]));
    assert_ledger_consistent(&server, &id).await;

    // A credit written after a run, expiring before that run's instant, is
    // still expired by the next run.
    let (status, _) = post(
        &server,
        &key,
        "/scores/trigger",
        json!({"customer_id": id, "points": 9, "expires_at": soon}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(services.expire_points(later).await.unwrap(), 1);
    assert_eq!(balances(&server, &key, &id).await.0, 50);

    let past = json!({"customer_id": id, "points": 5, "expires_at": "2020-01-01T00:00:00Z"});
    let (status, body) = post(&server, &key, "/scores/trigger", past).await;
    assert_error(status, &body, 400, "invalid_request");
}

#[tokio::test]
async fn a_merge_moves_points_and_wallet_and_an_unmerge_gives_them_back() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let dup = customer(&server, &key, "dup@example.com").await;
    let main = customer(&server, &key, "main@example.com").await;
    credit(&server, &key, &dup, 40).await;
    let (status, _) = post(
        &server,
        &key,
        "/scores/trigger",
        json!({"customer_id": dup, "points": 300, "kind": "wallet"}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, merged) = post(
        &server,
        &key,
        "/customers/transfer",
        json!({"from_customer_id": dup, "to_customer_id": main}),
    )
    .await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(balances(&server, &key, &main).await, (40, 300));
    assert_eq!(balances(&server, &key, &dup).await, (0, 0));
    let (status, unmerged) = post(
        &server,
        &key,
        &format!("/customers/{dup}/unmerge"),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(balances(&server, &key, &dup).await, (40, 300));
    assert_eq!(balances(&server, &key, &main).await, (0, 0));
    assert_ledger_consistent(&server, &dup).await;
    assert_ledger_consistent(&server, &main).await;
}

#[tokio::test]
async fn cashback_exchanges_and_thresholds_by_location() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "cashback@example.com").await;
    credit(&server, &key, &id, 780).await;
    let (status, all) = server.get_as("/cashbacks", &key).await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["cashbacks"].as_array().unwrap().len(), 2);
    let (status, flagship) = server
        .get_as(
            &format!("/cashbacks?location_code=STORE1&customer_id={id}"),
            &key,
        )
        .await;
    assert_eq!(status, 200, "{flagship}");
    assert_eq!(
        flagship["cashbacks"][0],
        json!({
            "location_code": "STORE1", "exchange_location": "STORE1", "points": 100, "amount": 600,
            "customer_id": id, "balance": 780, "convertible_points": 700, "convertible_amount": 4200
        })
    );
    let (_, elsewhere) = server.get_as("/cashbacks?location_id=STORE7", &key).await;
    assert_eq!(elsewhere["cashbacks"][0]["exchange_location"], "default");
    let (_, thresholds) = server
        .get_as("/cashback_thresholds?location_code=STORE1", &key)
        .await;
    assert_eq!(
        thresholds["cashback_thresholds"],
        json!([{"location": "default", "min_points": 500, "step": 100}])
    );

    // A Company without a cashback file has no exchange anywhere.
    let other = server.company_with_key("nocash").await;
    let (status, body) = server
        .get_as("/cashbacks?location_code=STORE1", &other)
        .await;
    assert_error(status, &body, 404, "exchange_not_found");
    let (status, body) = server
        .get_as("/cashback_thresholds?location_code=STORE1", &other)
        .await;
    assert_error(status, &body, 404, "exchange_not_found");
    let (status, body) = server
        .get_as("/cashbacks?location_code=A&location_id=B", &key)
        .await;
    assert_error(status, &body, 404, "location_not_found");
}

#[tokio::test]
async fn points_campaigns_are_created_updated_and_evaluated_through_the_api() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let (status, listed) = server.get_as("/points", &key).await;
    assert_eq!(status, 200, "{listed}");
    let files: Vec<(i64, String)> = listed["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_i64().unwrap(),
                c["source"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(files.iter().all(|(_, source)| source == "file"));
    assert!(files.iter().any(|(id, _)| *id == 201));

    let spec = json!({
        "name": {"en": "Review bonus", "es": "Bonus por reseña"},
        "on": {"custom_event": "review_written"},
        "points": {"fixed": 30, "expires_after_days": 90}
    });
    let (status, created) = post(&server, &key, "/points", spec).await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(
        (&created["id"], &created["source"]),
        (&json!(1_000_000), &json!("api"))
    );
    assert_eq!(
        created["points"],
        json!({"fixed": 30, "expires_after_days": 90})
    );

    let id = customer(&server, &key, "reviewer@example.com").await;
    let (status, answer) = post(
        &server,
        &key,
        "/custom_events",
        json!({"customer_id": id, "type": "review_written"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["effects"][0]["rule_id"], 1_000_000);
    assert_eq!(answer["effects"][0]["points"], 30);
    let (_, page) = server
        .get_as(&format!("/points/transactions?customer_id={id}"), &key)
        .await;
    assert!(page["transactions"][0]["expires_at"].is_string(), "{page}");

    let (status, updated) = server
        .call_as(
            "PATCH",
            "/points/1000000",
            &key,
            Some(json!({"points": {"fixed": 40}})),
        )
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["points"], json!({"fixed": 40}));
    assert_eq!(updated["name"], "Review bonus", "fields not sent are kept");
    let (_, answer) = post(
        &server,
        &key,
        "/custom_events",
        json!({"customer_id": id, "type": "review_written"}),
    )
    .await;
    assert_eq!(
        answer["effects"][0]["points"], 40,
        "the update applies at once"
    );
    let (status, fetched) = server.get_as("/points/1000000", &key).await;
    assert_eq!((status, &fetched["points"]["fixed"]), (200, &json!(40)));

    let (status, second) = post(
        &server,
        &key,
        "/points",
        json!({"name": "Prize points", "points": {"fixed": 5}}),
    )
    .await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["id"], 1_000_001);
    assert!(second.get("on").is_none(), "no `on`: given only as a prize");

    for (method, path, body, status, code) in [
        (
            "POST",
            "/points",
            json!({"points": {"fixed": 5}}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/points",
            json!({"name": "X", "points": {"fixed": 5}, "on": "sometimes"}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/points",
            json!({"name": "X", "points": {"fixed": 5}, "on": "cart", "when": "basket.total > 1.0"}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/points",
            json!({"name": "X", "points": {"fixed": 0}}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/points",
            json!({"name": "X", "points": {"fixed": 5}, "colour": "red"}),
            400,
            "invalid_request",
        ),
        (
            "PATCH",
            "/points/201",
            json!({"active": false}),
            403,
            "forbidden_request",
        ),
        (
            "PATCH",
            "/points/1999999",
            json!({"active": false}),
            404,
            "points_campaign_not_found",
        ),
        (
            "PATCH",
            "/points/1000000",
            json!({"points": {"fixed": -3}}),
            400,
            "invalid_request",
        ),
    ] {
        let (got, answer) = server.call_as(method, path, &key, Some(body.clone())).await;
        assert_eq!(
            (got, answer["code"].as_str()),
            (status, Some(code)),
            "{method} {path} {body}: {answer}"
        );
    }
    let (status, body) = server.get_as("/points/abc", &key).await;
    assert_error(status, &body, 404, "points_campaign_not_found");
    let (_, listed) = server.get_as("/points", &key).await;
    assert_eq!(
        listed["points"].as_array().unwrap().len(),
        files.len() + 2,
        "refused requests created nothing"
    );
}

#[tokio::test]
async fn points_campaigns_created_through_the_api_survive_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let store = format!("surrealkv://{}", data.path().join("store").display());
    let settings = || loyalty::server::ServerSettings::for_store(&store, common::OPERATOR_TOKEN);
    let server = TestServer::start_with(settings()).await;
    let key = server.bootstrap_key();
    let spec = json!({"name": "Signup", "on": {"trigger": "signup"}, "points": {"fixed": 15}});
    let (status, created) = post(&server, &key, "/points", spec).await;
    assert_eq!(status, 200, "{created}");
    let id = customer(&server, &key, "durable@example.com").await;
    server.running.shutdown().await.unwrap();

    let restarted = TestServer::start_with(settings()).await;
    let (status, fetched) = restarted.get_as("/points/1000000", &key).await;
    assert_eq!(
        (status, &fetched["name"]),
        (200, &json!("Signup")),
        "{fetched}"
    );
    let (status, answer) = post(
        &restarted,
        &key,
        "/trigger",
        json!({"customer_id": id, "type": "signup"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["effects"][0]["points"], 15);
    let (status, next) = post(
        &restarted,
        &key,
        "/points",
        json!({"name": "Next", "points": {"fixed": 1}}),
    )
    .await;
    assert_eq!(
        (status, &next["id"]),
        (200, &json!(1_000_001)),
        "ids continue after a restart"
    );
    restarted.running.shutdown().await.unwrap();
}

mod bounds {
    //! Property test: carts near every bound (prices up to the maximum
    //! amount, quantities up to the maximum, many lines, totals at and
    //! around their lines' sum) are either refused with 400 or earn at most
    //! the per-event cap, and no balance ever leaves the range every JSON
    //! client reads exactly; the service never answers 5xx.

    use super::*;
    use proptest::prelude::*;

    /// 2^53: the largest integer every JSON client reads exactly.
    const EXACT_INTEGERS: i64 = 9_007_199_254_740_992;
    const MAX_POINTS_PER_EVENT: i64 = 1_000_000_000;

    fn near(bound: f64) -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(bound),
            Just(bound + 0.01),
            Just(bound * 10.0),
            (1u64..=100).prop_map(move |n| bound - n as f64 / 100.0),
            (0.01f64..=1.0).prop_map(move |f| (bound * f * 100.0).round() / 100.0),
        ]
    }

    fn line() -> impl Strategy<Value = Value> {
        (near(10_000_000_000.0), prop_oneof![near(1_000_000.0), Just(1.0)]).prop_map(
            |(price, quantity)| json!({"product_code": "P", "quantity": quantity, "price": price}),
        )
    }

    fn cart() -> impl Strategy<Value = (Vec<Value>, Option<f64>)> {
        (
            prop::collection::vec(line(), 1..4),
            prop_oneof![Just(None), near(10_000_000_000.0).prop_map(Some)],
        )
    }

    async fn run(carts: Vec<(Vec<Value>, Option<f64>)>) -> Result<(), TestCaseError> {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let id = customer(&server, &key, "bounds@example.com").await;
        let mut earned = 0i64;
        for (n, (lines, total)) in carts.into_iter().enumerate() {
            let mut body = json!({"customer_id": id, "code": format!("B-{n}"), "lines": lines});
            if let Some(total) = total {
                body["total"] = json!(total);
            }
            let (status, answer) = server
                .call_as("POST", "/carts/realtime", &key, Some(body))
                .await;
            prop_assert!(status == 200 || status == 400, "{} {}", status, answer);
            if status == 200 {
                let points = answer["cart"]["points_earned"].as_i64().unwrap();
                prop_assert!((0..=MAX_POINTS_PER_EVENT).contains(&points), "{}", answer);
                earned += points;
            } else {
                prop_assert_eq!(&answer["code"], "invalid_request");
            }
        }
        let (_, balance) = server
            .call_as("GET", &format!("/customers/{id}/points"), &key, None)
            .await;
        let points = balance["points"].as_i64().unwrap();
        prop_assert_eq!(points, earned);
        prop_assert!(points < EXACT_INTEGERS);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10))]

        #[test]
        fn carts_near_every_bound_never_take_a_balance_out_of_range(
            carts in prop::collection::vec(cart(), 1..4),
        ) {
            let runtime = common::proptest_runtime();
            runtime.block_on(run(carts))?;
        }
    }
}
