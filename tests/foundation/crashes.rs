//! A crash between the commit of a keyed request's work and the completion
//! of its Idempotency-Key loses nothing: the answer was written in the same
//! transaction as the work, so the retry gets it back byte for byte (with
//! its headers) and nothing is applied twice.

use super::*;
use crate::crash_runs::{
    catalogue_and_campaigns, customers_and_links, engagement_and_vouchers, points_carts_and_events,
};
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
    send_keyed(server, key, ("POST", path), idempotency_key, body).await
}

/// Sends `body` to `method` `path` with `idempotency_key`.
async fn send_keyed(
    server: &TestServer,
    key: &CreatedApiKey,
    (method, path): (&str, &str),
    idempotency_key: &str,
    body: &Value,
) -> Answer {
    let response = server
        .request_as(method, path, key)
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

/// Keyed writes each followed by a "crash" between the commit of its work
/// and the completion of its key (the key stays running, as a killed
/// server leaves it), then retried after the "restart".
pub(super) struct Crashing<'a> {
    server: &'a TestServer,
    key: &'a CreatedApiKey,
    /// Each write sent: method, path, body and its first answer.
    sent: Vec<(String, String, Value, Answer)>,
}

impl<'a> Crashing<'a> {
    pub(super) fn new(server: &'a TestServer, key: &'a CreatedApiKey) -> Crashing<'a> {
        server.running.services.crash_before_key_completion(true);
        Crashing {
            server,
            key,
            sent: Vec::new(),
        }
    }

    /// Sends one keyed write, which must succeed; its answer's body.
    pub(super) async fn send(&mut self, method: &str, path: &str, body: Value) -> Value {
        let idempotency_key = format!("crash-{}", self.sent.len());
        let answer = send_keyed(
            self.server,
            self.key,
            (method, path),
            &idempotency_key,
            &body,
        )
        .await;
        assert_eq!((answer.0, answer.4), (200, false), "{path}: {}", answer.3);
        let parsed = serde_json::from_str(&answer.3).expect("a JSON answer");
        self.sent
            .push((method.to_string(), path.to_string(), body, answer));
        parsed
    }

    /// "Restarts": each write retried gets its first answer back, byte for
    /// byte with its headers, as a replay. Answers each write's method and
    /// path.
    pub(super) async fn retry_all(self) -> Vec<(String, String)> {
        self.server
            .running
            .services
            .crash_before_key_completion(false);
        for (n, (method, path, body, first)) in self.sent.iter().enumerate() {
            let retry = send_keyed(
                self.server,
                self.key,
                (method, path),
                &format!("crash-{n}"),
                body,
            )
            .await;
            assert!(retry.4, "{method} {path} is replayed: {}", retry.3);
            assert_eq!(
                (retry.0, &retry.1, &retry.2, &retry.3),
                (first.0, &first.1, &first.2, &first.3),
                "{method} {path}: the first answer, byte for byte"
            );
        }
        self.sent
            .into_iter()
            .map(|(method, path, _, _)| (method, path))
            .collect()
    }
}

/// Keyed operations that are not run through a crash, and why; every
/// other POST, PATCH and PUT of the spec must be covered by the crash runs
/// above.
const ANSWERED_AFTER_THEIR_WORK: [(&str, &str, &str); 2] = [
    ("POST", "/carts/simulate", "writes nothing"),
    ("POST", "/customers/search", "writes nothing"),
];

/// Whether `path` is an instance of the spec's path `template`.
fn instance_of(path: &str, template: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    let (parts, pattern): (Vec<&str>, Vec<&str>) =
        (path.split('/').collect(), template.split('/').collect());
    parts.len() == pattern.len()
        && parts
            .iter()
            .zip(&pattern)
            .all(|(part, expected)| expected.starts_with('{') || part == expected)
}

#[tokio::test]
async fn every_keyed_write_keeps_its_answer_through_a_crash_before_the_keys_completion() {
    let mut covered = points_carts_and_events().await;
    covered.extend(engagement_and_vouchers().await);
    covered.extend(customers_and_links().await);
    covered.extend(catalogue_and_campaigns().await);
    // Every POST, PATCH and PUT of the spec (the methods Idempotency-Key is
    // honoured on) is run above, or is listed with the reason it is not.
    let server = TestServer::start().await;
    let spec = server.spec().await;
    let mut uncovered = Vec::new();
    let mut listed_but_covered = Vec::new();
    let mut listed_not_in_spec: Vec<String> = ANSWERED_AFTER_THEIR_WORK
        .iter()
        .filter(|(method, template, _)| spec["paths"][*template][method.to_lowercase()].is_null())
        .map(|(method, template, _)| format!("{method} {template}"))
        .collect();
    listed_not_in_spec.sort();
    for (template, operations) in spec["paths"].as_object().expect("paths") {
        for method in operations.as_object().expect("operations").keys() {
            let method = method.to_uppercase();
            if !["POST", "PATCH", "PUT"].contains(&method.as_str()) {
                continue;
            }
            let run = covered
                .iter()
                .any(|(sent, path)| *sent == method && instance_of(path, template));
            let listed = ANSWERED_AFTER_THEIR_WORK
                .iter()
                .any(|(m, t, _)| *m == method && t == template);
            match (run, listed) {
                (false, false) => uncovered.push(format!("{method} {template}")),
                (true, true) => listed_but_covered.push(format!("{method} {template}")),
                _ => {}
            }
        }
    }
    assert!(
        uncovered.is_empty(),
        "keyed operations neither run through a crash nor listed: {uncovered:?}"
    );
    assert!(
        listed_not_in_spec.is_empty(),
        "listed but not in the spec: {listed_not_in_spec:?}"
    );
    assert!(
        listed_but_covered.is_empty(),
        "covered now, drop them from the list: {listed_but_covered:?}"
    );
}

#[tokio::test]
async fn keyed_redemptions_racing_carts_answer_exact_balances_and_replay_them() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = server
        .create_customer(&key, json!({"email": "racer@example.com"}))
        .await;
    server.credit(&key, &customer, 100).await;
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
    // The answers are what some order of the twenty writes leaves: the k-th
    // redemption to commit, after c carts, leaves 100 + 10c - 5k, and c
    // never goes down. (The ledger lists entries by the id given when a
    // write is prepared, and a cart waiting for its batch can commit after
    // a redemption prepared later, so its order is not the commits'.)
    assert!(
        some_order_leaves(answered.clone(), 100, 10, 5, 10),
        "no order of the writes leaves {answered:?}"
    );
    let (_, page) = server
        .get_as(
            &format!("/points/transactions?customer_id={customer}&limit=100"),
            &key,
        )
        .await;
    let entries = page["transactions"].as_array().unwrap();
    let redemptions = entries
        .iter()
        .filter(|entry| entry["reason"] == "redemption" && entry["points"] == -5)
        .count();
    assert_eq!(redemptions, 10, "{entries:?}");
}

#[test]
fn answers_no_order_leaves_are_told_apart() {
    // Read before any cart, then after all of them, in turn.
    assert!(some_order_leaves(vec![95, 90, 185, 180], 100, 10, 5, 10));
    // Two redemptions answering the balance of one read.
    assert!(!some_order_leaves(vec![95, 95], 100, 10, 5, 10));
    // More carts than there were.
    assert!(!some_order_leaves(vec![205], 100, 10, 5, 10));
}

/// Whether redemptions of `debit` and `credits` credits of `credit`, from
/// `start`, interleaved in some order, leave exactly the balances `answers`
/// after the redemptions. Taking at each step the lowest answer the next
/// redemption can have leaves the most room for the ones after it.
fn some_order_leaves(
    mut answers: Vec<i64>,
    start: i64,
    credit: i64,
    debit: i64,
    credits: i64,
) -> bool {
    answers.sort_unstable();
    let mut carts_before = 0;
    for k in 1..=answers.len() as i64 {
        let next = answers.iter().position(|&answer| {
            let carts = answer - start + debit * k;
            carts % credit == 0 && (carts_before..=credits).contains(&(carts / credit))
        });
        let Some(index) = next else {
            return false;
        };
        carts_before = (answers.remove(index) - start + debit * k) / credit;
    }
    true
}
