//! Redemptions, transfers and adjustments over HTTP: what they take and
//! give, the documented refusals changing nothing, the author kept, and
//! concurrent redemptions and transfers never overdrawing or losing points.

use super::*;

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
