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
struct Crashing<'a> {
    server: &'a TestServer,
    key: &'a CreatedApiKey,
    /// Each write sent: method, path, body and its first answer.
    sent: Vec<(String, String, Value, Answer)>,
}

impl<'a> Crashing<'a> {
    fn new(server: &'a TestServer, key: &'a CreatedApiKey) -> Crashing<'a> {
        server.running.services.crash_before_key_completion(true);
        Crashing {
            server,
            key,
            sent: Vec::new(),
        }
    }

    /// Sends one keyed write, which must succeed; its answer's body.
    async fn send(&mut self, method: &str, path: &str, body: Value) -> Value {
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
    async fn retry_all(self) -> Vec<(String, String)> {
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

/// Carts, their cancellation, Custom Events, triggers, a new Customer and
/// the points operations.
async fn points_carts_and_events() -> Vec<(String, String)> {
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
            "/scores/transfer",
            json!({"from_customer_id": customer, "to_customer_code": "friend", "points": 3}),
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
    let mut crashing = Crashing::new(&server, &key);
    for (path, body) in requests {
        crashing.send("POST", path, body).await;
    }
    let credited = balance().await;
    assert_eq!(
        credited,
        30 + 5 + 100 - 40 - 10 - 3 + 8 - 5,
        "the cart's 20 points taken back by its cancellation; the review; the visit; \
         the goodwill; the redemption; the transfers; the second cart and its redemption"
    );
    let covered = crashing.retry_all().await;
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
    covered
}

/// A Reward (100 points, 3 in stock), a Reward giving a dice roll, the
/// dice (50 points a roll), a Challenge to enrol in, a goodwill discount, a
/// Coupon of generated codes and receipt messages (one printed once).
const ENGAGEMENT: [(&str, &str); 8] = [
    (
        "welcome.yaml",
        "id: 402\nkind: message\nname: Welcome\non: { custom_event: app_open }\nmessages:\n  - key: welcome\n    text: Welcome to the club!\n    once: true\n  - key: thanks\n    text: Thank you\n",
    ),
    (
        "coffee.yaml",
        "id: 401\nkind: reward\nname: Coffee\npoints_cost: 100\nstock: 3\n",
    ),
    (
        "dice-roll.yaml",
        "id: 420\nkind: reward\nname: A dice roll\npoints_cost: 10\ngives: { game: 502 }\n",
    ),
    (
        "dice.yaml",
        "id: 502\nkind: game\nname: Dice\ninstant_win:\n  instant_win_prizes:\n    - id: points\n      name: Fifty points\n      outcome: { promotion_type: points, promotion_id: 204 }\n      weight: 1\n",
    ),
    (
        "prize-points.yaml",
        "id: 204\nkind: points\nname: Prize points\npoints:\n  fixed: 50\n",
    ),
    (
        "spend.yaml",
        "id: 602\nkind: challenge\nname: Spend fifty\non: cart\nenrollment: required\ngoal: { sum: cart.total, target: 50 }\nreward: { points: 5 }\n",
    ),
    (
        "goodwill.yaml",
        "id: 11\nkind: discount\nname: Goodwill\non: cart\ndiscount:\n  applies_to: cart\n  amount: 5\n",
    ),
    (
        "five-off.yaml",
        "id: 31\nkind: coupon\nname: Five off\ncoupon:\n  discount: { amount: 5 }\n  code_pattern: FIVE-######\n",
    ),
];

/// Rewards, games, Challenges, messages, discounts and Vouchers.
async fn engagement_and_vouchers() -> Vec<(String, String)> {
    let (server, _campaigns) =
        TestServer::start_with_campaigns(&ENGAGEMENT, "2026-11-23T10:00:00Z", None).await;
    let key = server.bootstrap_key();
    let customer = server
        .create_customer(&key, json!({"email": "crash@example.com"}))
        .await;
    let (status, _) = server
        .call_as(
            "POST",
            "/scores/trigger",
            &key,
            Some(json!({"customer_id": customer, "points": 1000})),
        )
        .await;
    assert_eq!(status, 200);
    let who = json!({"customer_id": customer});
    let mut crashing = Crashing::new(&server, &key);
    let coffee = crashing
        .send("POST", "/rewards/401/redeem", who.clone())
        .await;
    let transaction = coffee["id"].as_str().unwrap().to_string();
    crashing
        .send(
            "POST",
            &format!("/rewards/transactions/{transaction}/rollback"),
            json!({"reason": "returned"}),
        )
        .await;
    crashing
        .send("POST", "/rewards/401/redeem", who.clone())
        .await;
    crashing
        .send("POST", "/rewards/420/redeem", who.clone())
        .await;
    let played = crashing.send("POST", "/games/502/play", who.clone()).await;
    assert_eq!(played["participations_left"], 0, "{played}");
    crashing
        .send("POST", "/challenges/602/enroll", who.clone())
        .await;
    let messages = json!({"customer_id": customer, "messages": ["402:welcome", "402:thanks"]});
    let printed = crashing
        .send("POST", "/messages/print", messages.clone())
        .await;
    assert_eq!(printed["messages"][0]["printed"], true, "{printed}");
    let again = crashing.send("POST", "/messages/print", messages).await;
    assert_eq!(
        again["messages"][0]["printed"], false,
        "printed once: {again}"
    );
    crashing
        .send(
            "POST",
            "/discounts/redeem",
            json!({"customer_id": customer, "discount_id": 11, "base_amount": 20.0}),
        )
        .await;
    let voucher = crashing
        .send(
            "POST",
            "/discounts/trigger",
            json!({"customer_id": customer, "coupon_id": 31}),
        )
        .await;
    let code = voucher["code"].as_str().unwrap().to_string();
    let holder_codes = json!({"customer_id": customer, "codes": [code]});
    for (method, path, body) in [
        ("POST", format!("/vouchers/{code}/select"), who.clone()),
        ("POST", format!("/vouchers/{code}/deselect"), who.clone()),
        ("PUT", "/vouchers/select".to_string(), holder_codes.clone()),
        (
            "PUT",
            "/vouchers/deselect".to_string(),
            holder_codes.clone(),
        ),
        ("PUT", "/vouchers/print".to_string(), holder_codes.clone()),
        ("POST", "/vouchers/print".to_string(), who.clone()),
    ] {
        crashing.send(method, &path, body).await;
    }
    let frozen = crashing
        .send("POST", &format!("/vouchers/{code}/freeze"), who.clone())
        .await;
    assert_eq!(frozen["voucher"]["state"], "frozen", "{frozen}");
    let released = crashing
        .send(
            "POST",
            &format!("/vouchers/{code}/unfreeze"),
            json!({"customer_id": customer, "reservation_id": frozen["reservation_id"]}),
        )
        .await;
    assert_eq!(released["state"], "active", "{released}");
    let frozen = crashing
        .send("POST", &format!("/vouchers/{code}/freeze"), who.clone())
        .await;
    let redeemed = crashing
        .send(
            "POST",
            "/vouchers/redeem",
            json!({"customer_id": customer, "codes": [code], "reservation_id": frozen["reservation_id"]}),
        )
        .await;
    assert_eq!(redeemed["vouchers"][0]["uses_left"], 0, "{redeemed}");
    let redemption = redeemed["redemptions"][0]["redemption_id"].clone();
    crashing
        .send(
            "POST",
            "/vouchers/rollback",
            json!({"redemption_ids": [redemption]}),
        )
        .await;
    // What each write left, read before and after the retries.
    let reads = vec![
        format!("/customers/{customer}/points"),
        format!("/rewards/401?customer_id={customer}"),
        format!("/rewards/transactions?customer_id={customer}"),
        format!("/games/502?customer_id={customer}"),
        format!("/challenges/602?customer_id={customer}"),
        format!("/discounts/transactions?customer_id={customer}"),
        format!("/vouchers?customer_id={customer}"),
    ];
    let state = || server.read_all(&key, &reads);
    let before = state().await;
    assert_eq!(
        before[0]["points"],
        1000 - 100 - 10 + 50,
        "a coffee kept, a roll bought and won: {}",
        before[0]
    );
    let covered = crashing.retry_all().await;
    assert_eq!(state().await, before, "nothing was applied twice");
    covered
}

/// Customer edits and cards, associations, merges and an unmerge.
async fn customers_and_links() -> Vec<(String, String)> {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = server
        .create_customer(&key, json!({"email": "ana@example.com"}))
        .await;
    let ben = server
        .create_customer(&key, json!({"email": "ben@example.com"}))
        .await;
    let cy = server
        .create_customer(&key, json!({"email": "cy@example.com"}))
        .await;
    let mut crashing = Crashing::new(&server, &key);
    crashing
        .send(
            "PATCH",
            &format!("/customers/{ana}"),
            json!({"first_name": "Ana"}),
        )
        .await;
    crashing
        .send(
            "POST",
            &format!("/customers/{ana}/cards"),
            json!({"number": "CARD-0001"}),
        )
        .await;
    let pair = |kind: &str| json!({"customer_id": ana, "associate_id": ben, "type": kind});
    crashing.send("POST", "/associations", pair("family")).await;
    crashing
        .send("PATCH", "/associations", pair("friend"))
        .await;
    let merged = crashing
        .send(
            "POST",
            "/customers/transfer",
            json!({"from_customer_id": cy, "to_customer_id": ben}),
        )
        .await;
    assert_eq!(merged["merged"]["merged_into"], ben.as_str(), "{merged}");
    crashing
        .send("POST", &format!("/customers/{cy}/unmerge"), json!({}))
        .await;
    let moved = crashing
        .send(
            "POST",
            "/customers/transfer-new",
            json!({"from_customer_id": cy}),
        )
        .await;
    let new_customer = moved["target"]["id"].as_str().unwrap().to_string();
    let reads = vec![
        format!("/customers/{ana}"),
        format!("/customers/{ben}"),
        format!("/customers/{cy}"),
        format!("/customers/{new_customer}"),
        format!("/customers/{ana}/associates"),
    ];
    let state = || server.read_all(&key, &reads);
    let before = state().await;
    let covered = crashing.retry_all().await;
    assert_eq!(state().await, before, "nothing was applied twice");
    let (_, found) = server
        .call_as(
            "POST",
            "/customers/search",
            &key,
            Some(json!({"filters": {"email": "cy@example.com"}})),
        )
        .await;
    assert_eq!(
        found["customers"].as_array().unwrap().len(),
        1,
        "one new Customer took the e-mail: {found}"
    );
    covered
}

/// The catalogue (Products, Locations, taxonomies and features of both)
/// and the campaigns written through the API.
async fn catalogue_and_campaigns() -> Vec<(String, String)> {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let mut crashing = Crashing::new(&server, &key);
    let mut reads = Vec::new();
    for scope in ["", "/locations"] {
        let (taxonomy, feature) = if scope.is_empty() {
            ("department", "dairy")
        } else {
            ("region", "north")
        };
        crashing
            .send(
                "POST",
                &format!("{scope}/taxonomies"),
                json!({"slug": taxonomy, "name": "Grouping"}),
            )
            .await;
        crashing
            .send(
                "PATCH",
                &format!("{scope}/taxonomies/{taxonomy}"),
                json!({"name": "Groupings"}),
            )
            .await;
        crashing
            .send(
                "POST",
                &format!("{scope}/taxonomies/{taxonomy}/features"),
                json!({"slug": feature, "name": "A group"}),
            )
            .await;
        crashing
            .send(
                "PATCH",
                &format!("{scope}/taxonomies/{taxonomy}/features/{feature}"),
                json!({"name": "The group"}),
            )
            .await;
        reads.push(format!("{scope}/taxonomies/{taxonomy}"));
    }
    let product = crashing
        .send(
            "POST",
            "/products",
            json!({"code": "MILK-1L", "name": "Milk", "features": {"department": ["dairy"]}}),
        )
        .await;
    let product = product["id"].as_str().unwrap().to_string();
    crashing
        .send(
            "PATCH",
            &format!("/products/{product}"),
            json!({"price": 1.29}),
        )
        .await;
    let location = crashing
        .send(
            "POST",
            "/locations",
            json!({"code": "S9", "name": "Store 9", "country": "ES", "features": {"region": ["north"]}}),
        )
        .await;
    let location = location["id"].as_str().unwrap().to_string();
    crashing
        .send(
            "PATCH",
            &format!("/locations/{location}"),
            json!({"name": "Store Nine"}),
        )
        .await;
    reads.extend([
        format!("/products/{product}"),
        format!("/locations/{location}"),
    ]);
    for (path, body, change) in [
        (
            "/coupons",
            json!({"name": "Five off", "discount": {"amount": 5}, "code_pattern": "FIVE-#####"}),
            json!({"name": "Five off!"}),
        ),
        (
            "/discounts",
            json!({"name": "Two off", "discount": {"amount": 2}}),
            json!({"active": false}),
        ),
        (
            "/points",
            json!({"name": "Reviews", "on": {"custom_event": "review"}, "points": {"fixed": 5}}),
            json!({"name": "Good reviews"}),
        ),
        (
            "/promotions",
            json!({"name": {"en": "Dairy week"}, "percent": 15, "products": ["MILK-1L"]}),
            json!({"percent": 20}),
        ),
    ] {
        let created = crashing.send("POST", path, body).await;
        let id = created["id"].to_string();
        crashing
            .send("PATCH", &format!("{path}/{id}"), change)
            .await;
        reads.push(format!("{path}/{id}"));
    }
    let state = || server.read_all(&key, &reads);
    let before = state().await;
    let covered = crashing.retry_all().await;
    assert_eq!(state().await, before, "nothing was applied twice");
    let (_, coupons) = server.get_as("/coupons", &key).await;
    let through_the_api = coupons["coupons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|coupon| coupon["source"] == "api")
        .count();
    assert_eq!(through_the_api, 1, "one Coupon created: {coupons}");
    covered
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
