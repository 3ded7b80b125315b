//! Carts over real HTTP with a real SurrealDB and the demo campaigns:
//! realtime and simulate, effects and explanations, the points they record,
//! one record per cart code under concurrent requests.

mod common;
#[path = "events/listing_order.rs"]
mod listing_order;
#[path = "events/money_and_time.rs"]
mod money_and_time;
#[path = "events/round_trips.rs"]
mod round_trips;

use common::{TestServer, all_at_once};
use loyalty::resources::companies::model::CreatedApiKey;
use serde_json::{Value, json};

/// A Monday-morning cart of the demo Company: coffee (discounted) and pastries (points).
fn morning_cart(customer_id: &str, code: &str) -> Value {
    json!({
        "customer_id": customer_id,
        "code": code,
        "date": "2026-05-04T09:30:00Z",
        "location_code": "STORE-1",
        "lines": [
            {"product_code": "COFFEE", "quantity": 2, "price": 1.8},
            {"product_code": "PASTRY", "quantity": 3, "price": 1.5},
            {"product_code": "COFFEE", "quantity": 1, "price": 4.6}
        ]
    })
}

/// The ledger entries held by stored `ledger_write` records.
fn ledger_entries(writes: &[Value]) -> Vec<Value> {
    writes
        .iter()
        .flat_map(|write| write["entries"].as_array().cloned().unwrap_or_default())
        .collect()
}

async fn member(server: &TestServer, key: &CreatedApiKey, email: &str) -> String {
    let (status, customer) = server
        .call_as("POST", "/customers", key, Some(json!({"email": email})))
        .await;
    assert_eq!(status, 200, "{customer}");
    customer["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_realtime_cart_returns_effects_and_records_cart_and_points() {
    let server = TestServer::start_at("2026-05-04T09:30:00Z").await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "buyer@example.com").await;
    let (status, answer) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&customer, "T1-0001")),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    insta::assert_json_snapshot!("realtime_morning_cart", answer, {".cart.created_at" => "[created_at]", ".cart.customer_id" => "[customer]"});

    let (status, stored) = server.call_as("GET", "/carts/T1-0001", &key, None).await;
    assert_eq!(status, 200);
    assert_eq!(stored, answer["cart"]);
    let (_, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(attributes["points_balance"], 27);
    assert_eq!(attributes["cart_count"], 1);
    assert_eq!(attributes["lifetime_spend"], 12.7);
    assert_eq!(attributes["last_purchase_date"], "2026-05-04");
}

#[tokio::test]
async fn simulate_answers_like_realtime_and_records_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "sim@example.com").await;
    let (status, simulated) = server
        .call_as(
            "POST",
            "/carts/simulate",
            &key,
            Some(morning_cart(&customer, "SIM-1")),
        )
        .await;
    assert_eq!(status, 200, "{simulated}");
    let (status, _) = server.call_as("GET", "/carts/SIM-1", &key, None).await;
    assert_eq!(status, 404, "nothing recorded");
    let (_, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(
        attributes["points_balance"], 0,
        "nothing consumed or earned"
    );
    let (_, real) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&customer, "SIM-1")),
        )
        .await;
    assert_eq!(real["effects"], simulated["effects"], "the same effects");
}

#[tokio::test]
async fn explain_says_why_each_campaign_applied_or_not() {
    // Received in the afternoon: the morning campaign's `hour` is the
    // service's (the wall clock it receives the cart at).
    let server = TestServer::start_at("2026-05-04T16:00:00Z").await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "why@example.com").await;
    let mut afternoon = morning_cart(&customer, "EX-1");
    afternoon["date"] = json!("2026-05-04T16:00:00Z");
    let (status, answer) = server
        .call_as(
            "POST",
            "/carts/simulate?explain=true",
            &key,
            Some(afternoon),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let explanations = answer["explanations"].as_array().unwrap();
    let demo = loyalty::engine::catalog::Catalog::load(std::path::Path::new("campaigns"))
        .0
        .company("demo")
        .campaigns
        .len();
    assert_eq!(explanations.len(), demo, "one per campaign");
    assert_eq!(explanations[0]["rule_id"], 101);
    assert_eq!(explanations[0]["applied"], false);
    assert!(
        explanations[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("condition is false")
    );
    assert_eq!(
        explanations[0]["source"],
        "campaigns/demo/campaigns/coffee-mornings.yaml:2"
    );
    assert_eq!(explanations[1]["applied"], true);
    let (_, plain) = server
        .call_as(
            "POST",
            "/carts/simulate",
            &key,
            Some(morning_cart(&customer, "EX-2")),
        )
        .await;
    assert!(plain.get("explanations").is_none(), "only when asked");
}

#[tokio::test]
async fn a_cart_code_is_recorded_once_even_under_concurrent_requests() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "race@example.com").await;
    let mut requests = Vec::new();
    for _ in 0..10 {
        let request = server
            .request_as("POST", "/carts/realtime", &key)
            .json(&morning_cart(&customer, "RACE-1"));
        requests.push(request);
    }
    let mut recorded = 0;
    for (status, body) in all_at_once(requests).await {
        match status {
            200 => recorded += 1,
            _ => assert_eq!(
                (status, body["code"].as_str()),
                (409, Some("cart_already_exists")),
                "{body}"
            ),
        }
    }
    assert_eq!(recorded, 1);
    let (_, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(attributes["points_balance"], 27, "points earned once");
    let ledger = server
        .running
        .services
        .store()
        .raw_documents("ledger_write", "demo")
        .await
        .unwrap();
    assert_eq!(ledger_entries(&ledger).len(), 1);
}

#[tokio::test]
async fn bad_carts_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "bad@example.com").await;
    let mut no_lines = morning_cart(&customer, "B-1");
    no_lines["lines"] = json!([]);
    let mut negative = morning_cart(&customer, "B-2");
    negative["lines"][0]["price"] = json!(-1.0);
    let mut zero_quantity = morning_cart(&customer, "B-3");
    zero_quantity["lines"][0]["quantity"] = json!(0);
    // An id and a code that name different Customers name none.
    let mut disagreeing = morning_cart(&customer, "B-4");
    disagreeing["customer_code"] = json!("X");
    // A date out of the window is refused; a Customer nobody is, first.
    let mut too_old = morning_cart(&customer, "B-7");
    too_old["date"] = json!("2000-01-01T00:00:00Z");
    let mut nobody_too_old = morning_cart("cus_nope", "B-8");
    nobody_too_old["date"] = json!("2000-01-01T00:00:00Z");
    let cases = [
        (no_lines, 400, "invalid_request"),
        (negative, 400, "invalid_request"),
        (zero_quantity, 400, "invalid_request"),
        (disagreeing, 404, "customer_not_found"),
        (morning_cart("cus_nope", "B-5"), 404, "customer_not_found"),
        (too_old, 400, "invalid_request"),
        (nobody_too_old, 404, "customer_not_found"),
    ];
    for (cart, status_expected, code) in cases {
        let (status, body) = server
            .call_as("POST", "/carts/realtime", &key, Some(cart))
            .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (status_expected, Some(code)),
            "{body}"
        );
    }
    server
        .call_as(
            "PATCH",
            &format!("/customers/{customer}"),
            &key,
            Some(json!({"active": false})),
        )
        .await;
    let (status, body) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&customer, "B-6")),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("customer_inactive"))
    );
    let carts = server
        .running
        .services
        .store()
        .raw_documents("cart", "demo")
        .await
        .unwrap();
    assert!(carts.is_empty());
}

#[tokio::test]
async fn carts_are_listed_by_customer_and_date_one_page_at_a_time() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = member(&server, &key, "ana@example.com").await;
    let bob = member(&server, &key, "bob@example.com").await;
    for n in 0..5 {
        let mut cart = morning_cart(&ana, &format!("A-{n}"));
        cart["date"] = json!(format!("2026-05-0{}T09:00:00Z", n + 1));
        server
            .call_as("POST", "/carts/realtime", &key, Some(cart))
            .await;
    }
    server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&bob, "B-0")),
        )
        .await;
    let (status, first) = server
        .call_as(
            "GET",
            &format!("/carts?customer_id={ana}&per_page=2"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["carts"].as_array().unwrap().len(), 2);
    let token = first["next_token_starts_after"].as_str().unwrap();
    let (_, second) = server
        .call_as(
            "GET",
            &format!("/carts?customer_id={ana}&per_page=2&starting_after={token}"),
            &key,
            None,
        )
        .await;
    assert_eq!(second["carts"][0]["id"], "A-2");
    let (_, dated) = server
        .call_as(
            "GET",
            "/carts?from=2026-05-02T00:00:00Z&to=2026-05-03T23:59:59Z",
            &key,
            None,
        )
        .await;
    let ids: Vec<&str> = dated["carts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["A-1", "A-2"]);
    let (status, body) = server.call_as("GET", "/carts/NOPE", &key, None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("cart_not_found"))
    );
    let acme = server.company_with_key("acme").await;
    let (status, _) = server.call_as("GET", "/carts/A-1", &acme, None).await;
    assert_eq!(status, 404, "another Company's cart");
}

#[tokio::test]
async fn a_merge_moves_carts_and_points_and_unmerge_gives_them_back() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let dup = member(&server, &key, "dup@example.com").await;
    let main = member(&server, &key, "main@example.com").await;
    server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&dup, "D-1")),
        )
        .await;
    server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&main, "M-1")),
        )
        .await;
    let attributes = |id: String| {
        let server = &server;
        let key = &key;
        async move {
            let (_, body) = server
                .call_as("GET", &format!("/customers/{id}/attributes"), key, None)
                .await;
            (
                body["points_balance"].as_i64().unwrap(),
                body["cart_count"].as_i64().unwrap(),
            )
        }
    };
    assert_eq!(attributes(dup.clone()).await, (27, 1));

    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": dup, "to_customer_id": main})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["merge"]["points"], 27);
    assert_eq!(merged["merge"]["carts"], json!(["D-1"]));
    assert_eq!(attributes(main.clone()).await, (54, 2));
    assert_eq!(attributes(dup.clone()).await, (0, 0));
    let (_, cart) = server.call_as("GET", "/carts/D-1", &key, None).await;
    assert_eq!(cart["customer_id"], main.as_str());

    let (status, unmerged) = server
        .call_as("POST", &format!("/customers/{dup}/unmerge"), &key, None)
        .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(unmerged["not_restored"], json!([]));
    assert_eq!(attributes(main.clone()).await, (27, 1));
    assert_eq!(attributes(dup.clone()).await, (27, 1));
    // The ledger is append-only: the moves are entries, the balance their sum.
    let ledger = server
        .running
        .services
        .store()
        .raw_documents("ledger_write", "demo")
        .await
        .unwrap();
    let entries = ledger_entries(&ledger);
    assert_eq!(entries.len(), 2 + 2 + 2);
    let sum: i64 = entries.iter().map(|e| e["points"].as_i64().unwrap()).sum();
    assert_eq!(sum, 54);
}

#[tokio::test]
async fn one_broken_file_never_stops_a_companys_carts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("demo")).unwrap();
    std::fs::write(
        dir.path().join("demo").join("broken.yaml"),
        "id: 1\nkind: points\nname: Broken\non: cart\nwhen: cart.total >\npoints: { fixed: 5 }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("demo").join("good.yaml"),
        "id: 2\nkind: points\nname: Good\non: cart\npoints: { fixed: 3 }\n",
    )
    .unwrap();
    let mut settings = loyalty::server::ServerSettings::for_store("mem://", common::OPERATOR_TOKEN);
    settings.campaigns = dir.path().to_path_buf();
    let server = TestServer::start_with(settings).await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "x@example.com").await;
    let (status, body) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&customer, "NO-1")),
        )
        .await;
    // The broken file never loaded, so it is left out alone: the good
    // one applies, and nothing of the server's files reaches the till.
    assert_eq!(status, 200, "{body}");
    let rules: Vec<i64> = body["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|effect| effect["rule_id"].as_i64())
        .collect();
    assert_eq!(rules, [2], "{body}");
    assert!(!body.to_string().contains("broken.yaml"), "{body}");
    let problems = server
        .running
        .services
        .catalog()
        .problems("demo")
        .expect("the broken file is held back");
    assert!(problems[0].to_string().contains("broken.yaml:5:"));
}

#[tokio::test]
async fn custom_events_and_triggers_earn_points_from_the_campaigns_listening_to_them() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "events@example.com").await;
    let (status, answer) = server
        .call_as(
            "POST",
            "/custom_events?explain=true",
            &key,
            Some(json!({"customer_id": customer, "type": "profile_completed", "data": {"fields": 12}})),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["effects"].as_array().unwrap().len(), 1);
    assert_eq!(answer["effects"][0]["rule_id"], 202);
    assert_eq!(answer["effects"][0]["points"], 50);
    assert_eq!(answer["custom_event"]["points_earned"], 50);
    assert_eq!(answer["custom_event"]["data"], json!({"fields": 12}));
    let applied: Vec<&Value> = answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["applied"] == true)
        .map(|e| &e["rule_id"])
        .collect();
    assert_eq!(
        applied,
        [&json!(202)],
        "only the welcome campaign listens to profile_completed"
    );
    let id = answer["custom_event"]["id"].as_str().unwrap();
    let (status, stored) = server
        .call_as("GET", &format!("/custom_events/{id}"), &key, None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(stored, answer["custom_event"]);

    let (status, triggered) = server
        .call_as(
            "POST",
            "/trigger",
            &key,
            Some(json!({"customer_id": customer, "type": "birthday"})),
        )
        .await;
    assert_eq!(status, 200, "{triggered}");
    assert_eq!(triggered["effects"][0]["points"], 100);
    assert!(
        triggered.get("custom_event").is_none(),
        "a trigger is not a stored event"
    );

    let (_, other) = server
        .call_as(
            "POST",
            "/custom_events",
            &key,
            Some(json!({"customer_id": customer, "type": "newsletter_opened"})),
        )
        .await;
    assert_eq!(other["effects"], json!([]));

    let (_, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(attributes["points_balance"], 150);
    let (_, listed) = server
        .call_as(
            "GET",
            &format!("/custom_events?customer_id={customer}&type=profile_completed"),
            &key,
            None,
        )
        .await;
    assert_eq!(listed["custom_events"].as_array().unwrap().len(), 1);
    let (_, all) = server
        .call_as(
            "GET",
            &format!("/custom_events?customer_id={customer}"),
            &key,
            None,
        )
        .await;
    assert_eq!(all["custom_events"].as_array().unwrap().len(), 2);
    // A Customer the Company does not have is named, as for carts.
    for path in [
        "/custom_events?customer_id=cus_nobody",
        "/carts?customer_id=cus_nobody",
    ] {
        let (status, refused) = server.call_as("GET", path, &key, None).await;
        assert_eq!(
            (status, refused["code"].as_str()),
            (404, Some("customer_not_found")),
            "{path}: {refused}"
        );
    }
}

#[tokio::test]
async fn bad_events_are_refused() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "bad-events@example.com").await;
    let cases = [
        (
            "/custom_events",
            json!({"customer_id": customer, "type": "bad type"}),
            400,
            "invalid_request",
        ),
        (
            "/custom_events",
            json!({"type": "x"}),
            400,
            "invalid_request",
        ),
        (
            "/trigger",
            json!({"customer_id": "cus_nope", "type": "birthday"}),
            404,
            "customer_not_found",
        ),
    ];
    for (path, body, expected, code) in cases {
        let (status, answer) = server.call_as("POST", path, &key, Some(body)).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (expected, Some(code)),
            "{answer}"
        );
    }
    let (status, answer) = server
        .call_as("GET", "/custom_events/evt_nope", &key, None)
        .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (404, Some("custom_event_not_found"))
    );
    let ledger = server
        .running
        .services
        .store()
        .raw_documents("ledger_write", "demo")
        .await
        .unwrap();
    assert!(ledger.is_empty());
}

#[tokio::test]
async fn a_cancellation_reverses_a_cart_exactly_once() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "cancel@example.com").await;
    server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&customer, "C-1")),
        )
        .await;
    let mut requests = Vec::new();
    for _ in 0..6 {
        let request = server
            .request_as("POST", "/carts/cancellation", &key)
            .json(&json!({"cart_id": "C-1"}));
        requests.push(request);
    }
    let mut cancellations = Vec::new();
    for (status, body) in all_at_once(requests).await {
        match status {
            200 => cancellations.push(body),
            _ => assert!(
                body["code"] == "cart_already_cancelled" || body["code"] == "cart_already_exists",
                "{status} {body}"
            ),
        }
    }
    assert_eq!(cancellations.len(), 1, "cancelled exactly once");
    let cancellation = &cancellations[0];
    assert_eq!(cancellation["cart"]["id"], "C-1-cancellation");
    assert_eq!(cancellation["cart"]["cancels"], "C-1");
    assert_eq!(cancellation["cart"]["total"], -12.7);
    assert_eq!(cancellation["cart"]["points_earned"], -27);
    assert_eq!(cancellation["effects"][0]["points"], -27);

    let (_, original) = server.call_as("GET", "/carts/C-1", &key, None).await;
    assert_eq!(original["cancelled_by"], "C-1-cancellation");
    let (_, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(attributes["points_balance"], 0);
    assert_eq!(attributes["lifetime_spend"], 0.0);
    assert_eq!(attributes["cart_count"], 0);

    let (status, body) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "C-1", "code": "C-1-again"})),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("cart_already_cancelled"))
    );
    let (status, body) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "NOPE"})),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("cart_not_found"))
    );
}

#[tokio::test]
async fn explain_names_every_failing_part_and_a_simulation_may_ask_another_day() {
    let segments = "tiers:\n  - id: silver\n    name: Silver\n    condition: history.spent_last_days(365) >= 500.0\n  - id: gold\n    name: Gold\n    condition: history.spent_last_days(365) >= 1500.0\n";
    let sundays = "id: 40\nkind: points\nname: Gold members, Sundays\non: cart\ntiers: [gold]\nrecurrence_type: weekly\nrecurrence_days: [sunday]\nwhen: cart.total > 100.0\npoints: { fixed: 50 }\n";
    // A Friday.
    let (server, _dir) = TestServer::start_with_campaigns(
        &[("segments.yaml", segments), ("sundays.yaml", sundays)],
        "2026-11-27T10:00:00Z",
        None,
    )
    .await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "silver@example.com").await;
    // 600.00 spent this year: silver, not gold.
    let (status, bought) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(json!({
                "customer_id": customer,
                "code": "EARLIER-1",
                "lines": [{"product_code": "TV", "quantity": 1, "price": 600.0}]
            })),
        )
        .await;
    assert_eq!(status, 200, "{bought}");
    let cart = json!({
        "customer_id": customer,
        "code": "FRIDAY-1",
        "lines": [{"product_code": "PASTRY", "quantity": 1, "price": 20.0}]
    });
    let explained = |path: &'static str| {
        let cart = cart.clone();
        let server = &server;
        let key = &key;
        async move {
            let (status, answer) = server.call_as("POST", path, key, Some(cart)).await;
            assert_eq!(status, 200, "{answer}");
            answer["explanations"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["rule_id"] == 40)
                .cloned()
                .expect("campaign 40 explained")
        }
    };
    // On the Friday: the day, the tier and the condition, each at its line.
    let friday = explained("/carts/simulate?explain=true").await;
    let reason = friday["reason"].as_str().unwrap();
    assert!(
        reason.contains("runs only on sunday, and it is friday"),
        "{friday}"
    );
    assert!(
        reason.contains("for tiers gold only, and the Customer is silver"),
        "{friday}"
    );
    assert!(reason.contains("`cart.total` is 20.0"), "{friday}");
    // The tier with the figure its condition read and the threshold.
    assert!(
        reason.contains("gold: `history.spent_last_days(365) >= 1500.0` was false: `history.spent_last_days(365)` is 600"),
        "{friday}"
    );
    let places: Vec<&str> = friday["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part["at"].as_str().unwrap())
        .collect();
    assert_eq!(places.len(), 4, "{friday}");
    assert!(
        places[0].ends_with("sundays.yaml:7"),
        "recurrence_days: {friday}"
    );
    assert!(places[1].ends_with("sundays.yaml:5"), "tiers: {friday}");
    assert!(
        places[2].contains("segments.yaml:7:"),
        "gold's condition: {friday}"
    );
    assert!(places[3].contains("sundays.yaml:8:"), "when: {friday}");
    assert_eq!(friday["parts"][1]["values"]["tier"], "silver", "{friday}");

    // What if it were Sunday: only the tier and the condition are left.
    let sunday = explained("/carts/simulate?explain=true&at=2026-11-29T10:00:00Z").await;
    let reason = sunday["reason"].as_str().unwrap();
    assert!(!reason.contains("runs only on"), "{sunday}");
    assert!(reason.contains("for tiers gold only"), "{sunday}");

    // A recorded cart is evaluated when it is received, never at another time.
    let (status, refused) = server
        .call_as(
            "POST",
            "/carts/realtime?at=2026-11-29T10:00:00Z",
            &key,
            Some(cart.clone()),
        )
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (400, Some("invalid_request")),
        "{refused}"
    );
    let (status, refused) = server
        .call_as(
            "POST",
            "/carts/simulate?at=sunday",
            &key,
            Some(cart.clone()),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
}
