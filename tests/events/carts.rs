//! Carts in real time and simulated: effects with the cart and points
//! recorded, explanations, a code recorded once under concurrency, and bad
//! carts refused changing nothing.

use super::*;

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
