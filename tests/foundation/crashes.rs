//! A crash between the commit of a keyed request's work and the completion
//! of its Idempotency-Key loses nothing: the answer was written in the same
//! transaction as the work, so the retry gets it back byte for byte (with
//! its headers) and nothing is applied twice.

use super::*;
use loyalty::resources::companies::model::CreatedApiKey;

/// What a keyed POST answered: status, `Content-Type`, `Content-Language`,
/// body, and whether it was a replay.
type Answer = (u16, Option<String>, Option<String>, String, bool);

async fn post_keyed(
    server: &TestServer,
    key: &CreatedApiKey,
    path: &str,
    idempotency_key: &str,
    body: &Value,
) -> Answer {
    let response = server
        .request_as("POST", path, key)
        .header("Idempotency-Key", idempotency_key)
        .header("Accept-Language", "es")
        .json(body)
        .send()
        .await
        .expect("sent");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    };
    let (content_type, content_language) = (header("content-type"), header("content-language"));
    let replayed = response.headers().get("idempotent-replayed").is_some();
    let status = response.status().as_u16();
    let body = response.text().await.expect("body");
    (status, content_type, content_language, body, replayed)
}

#[tokio::test]
async fn keyed_writes_keep_their_answer_through_a_crash_before_the_keys_completion() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = server
        .create_customer(&key, json!({"email": "crash@example.com"}))
        .await;
    server
        .create_customer(
            &key,
            json!({"email": "friend@example.com", "code": "friend"}),
        )
        .await;
    for (on, points) in [
        (json!({"custom_event": "review"}), 30),
        (json!({"trigger": "visit"}), 5),
    ] {
        let (status, campaign) = server
            .call_as(
                "POST",
                "/points",
                &key,
                Some(json!({"name": "Bonus", "on": on, "points": {"fixed": points}})),
            )
            .await;
        assert_eq!(status, 200, "{campaign}");
    }
    let balance = || async {
        let (_, points) = server
            .get_as(&format!("/customers/{customer}/points"), &key)
            .await;
        points["points"].as_i64().unwrap()
    };
    server.running.services.crash_before_key_completion(true);
    let requests = [
        (
            "/carts/realtime",
            json!({
                "customer_id": customer, "code": "CRASH-1",
                "lines": [{"product_code": "TEA", "quantity": 2, "price": 10.0}]
            }),
        ),
        (
            "/custom_events",
            json!({"customer_id": customer, "type": "review"}),
        ),
        (
            "/trigger",
            json!({"customer_id": customer, "type": "visit"}),
        ),
        ("/carts/cancellation", json!({"cart_id": "CRASH-1"})),
        ("/customers", json!({"email": "second@example.com"})),
        (
            "/scores/trigger",
            json!({"customer_id": customer, "points": 100, "description": "goodwill"}),
        ),
        (
            "/points/redeem",
            json!({"customer_id": customer, "points": 40}),
        ),
        (
            "/points/transfer",
            json!({"from_customer_id": customer, "to_customer_code": "friend", "points": 10}),
        ),
        (
            "/carts/realtime",
            json!({
                "customer_id": customer, "code": "CRASH-2",
                "lines": [{"product_code": "TEA", "quantity": 1, "price": 8.0}]
            }),
        ),
        (
            "/points/redeem_cart",
            json!({"cart_id": "CRASH-2", "points": 5}),
        ),
    ];
    let mut first_answers = Vec::new();
    for (n, (path, body)) in requests.iter().enumerate() {
        let answer = post_keyed(&server, &key, path, &format!("crash-{n}"), body).await;
        assert_eq!((answer.0, answer.4), (200, false), "{path}: {}", answer.3);
        first_answers.push(answer);
    }
    let credited = balance().await;
    assert_eq!(
        credited,
        30 + 5 + 100 - 40 - 10 + 8 - 5,
        "the cart's 20 points taken back by its cancellation; the review; the visit; \
         the goodwill; the redemption; the transfer; the second cart and its redemption"
    );
    // The process "restarted": retries find the answers written with the
    // work, and apply nothing again.
    server.running.services.crash_before_key_completion(false);
    for (n, (path, body)) in requests.iter().enumerate() {
        let retry = post_keyed(&server, &key, path, &format!("crash-{n}"), body).await;
        let first = &first_answers[n];
        assert!(retry.4, "{path} is replayed: {}", retry.3);
        assert_eq!(
            (retry.0, &retry.1, &retry.2, &retry.3),
            (first.0, &first.1, &first.2, &first.3),
            "{path}: the first answer, byte for byte"
        );
    }
    assert_eq!(balance().await, credited, "nothing was applied twice");
    let (_, events) = server
        .get_as(&format!("/custom_events?customer_id={customer}"), &key)
        .await;
    assert_eq!(events["custom_events"].as_array().unwrap().len(), 1);
    let (_, found) = server
        .call_as(
            "POST",
            "/customers/search",
            &key,
            Some(json!({"filters": {"email": "second@example.com"}})),
        )
        .await;
    assert_eq!(found["customers"].as_array().unwrap().len(), 1, "{found}");
}

#[tokio::test]
async fn keyed_redemptions_racing_carts_answer_exact_balances_and_replay_them() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = server
        .create_customer(&key, json!({"email": "racer@example.com"}))
        .await;
    let (status, _) = server
        .call_as(
            "POST",
            "/scores/trigger",
            &key,
            Some(json!({"customer_id": customer, "points": 100})),
        )
        .await;
    assert_eq!(status, 200);
    // Ten keyed redemptions of 5 and ten carts of 10.00 (10 points each) for
    // the same Customer at once: the carts move the balance between a
    // redemption's read and its write, and the redemption reads again.
    let mut requests = Vec::new();
    for n in 0..10 {
        requests.push(
            server
                .request_as("POST", "/points/redeem", &key)
                .header("Idempotency-Key", format!("race-{n}"))
                .header("Accept-Language", "es")
                .json(&json!({"customer_id": customer, "points": 5})),
        );
        requests.push(
            server
                .request_as("POST", "/carts/realtime", &key)
                .json(&json!({
                    "customer_id": customer, "code": format!("RACE-{n}"),
                    "lines": [{"product_code": "TEA", "quantity": 1, "price": 10.0}]
                })),
        );
    }
    let answers = all_at_once(requests).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );
    let (_, points) = server
        .get_as(&format!("/customers/{customer}/points"), &key)
        .await;
    assert_eq!(points["points"], 100 + 10 * 10 - 10 * 5);
    // Each redemption's answer says the balance its own write left, and a
    // retry gets that answer back.
    let mut answered: Vec<i64> = Vec::new();
    for n in 0..10 {
        let body = json!({"customer_id": customer, "points": 5});
        let retry = post_keyed(&server, &key, "/points/redeem", &format!("race-{n}"), &body).await;
        assert!(retry.4, "{}", retry.3);
        let answer: Value = serde_json::from_str(&retry.3).unwrap();
        answered.push(answer["balance"].as_i64().unwrap());
    }
    answered.sort_unstable();
    answered.dedup();
    assert_eq!(answered.len(), 10, "ten different balances: {answered:?}");
    let (_, page) = server
        .get_as(
            &format!("/points/transactions?customer_id={customer}&limit=100"),
            &key,
        )
        .await;
    let entries = page["transactions"].as_array().unwrap();
    // Every answered balance is the sum of the ledger up to that redemption.
    let mut running = 0;
    let mut after_redemptions = Vec::new();
    for entry in entries.iter().rev() {
        running += entry["points"].as_i64().unwrap();
        if entry["reason"] == "redemption" {
            after_redemptions.push(running);
        }
    }
    after_redemptions.sort_unstable();
    assert_eq!(after_redemptions, answered);
}
