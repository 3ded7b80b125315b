//! Legacy Promotions: created, read, changed and deleted over HTTP,
//! compiled into discount campaigns that carts meet in the stacking order.

use super::*;

/// A cart of cheese, bread and milk (named by its alias).
fn basket() -> Value {
    json!([
        {"product_code": "CHEESE", "quantity": 1, "price": 4.0},
        {"product_code": "BREAD", "quantity": 2, "price": 1.5},
        {"product_code": "8410000000017", "quantity": 1, "price": 1.0}
    ])
}

/// (rule id, line, value) of each discount effect of `answer`.
fn discounts(answer: &Value) -> Vec<(i64, i64, f64)> {
    answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "discount")
        .map(|e| {
            (
                e["rule_id"].as_i64().unwrap(),
                e["line"].as_i64().unwrap(),
                e["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Simulates `basket` for a new Customer; the answer.
async fn simulate(server: &TestServer, key: &CreatedApiKey, customer: &str) -> Value {
    ok(
        server,
        key,
        "POST",
        "/carts/simulate",
        Some(json!({"customer_id": customer, "code": "S", "lines": basket()})),
    )
    .await
}

#[tokio::test]
async fn a_promotion_discounts_its_products_and_features_in_the_stacking_order() {
    let server = TestServer::start_at("2026-11-23T10:00:00Z").await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "CHEESE", "name": "Manchego", "features": {"department": ["cheese"]}})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "MILK", "name": "Milk", "aliases": ["8410000000017"]})),
    )
    .await;
    let ana = ok(
        &server,
        &key,
        "POST",
        "/customers",
        Some(json!({"code": "PROMO-1"})),
    )
    .await;
    let ana = ana["id"].as_str().unwrap();
    let before = simulate(&server, &key, ana).await;

    // Dairy (cheese lies under it) and milk by its code: 20% off.
    let dairy = ok(
        &server,
        &key,
        "POST",
        "/promotions",
        Some(json!({
            "name": "Dairy week", "features": {"department": ["dairy"]}, "products": ["MILK"],
            "percent": 20, "valid_from": "2026-11-01T00:00:00Z", "valid_to": "2026-11-30T23:59:59Z"
        })),
    )
    .await;
    let id = dairy["id"].as_i64().unwrap();
    assert!(id >= 1_000_000, "{dairy}");
    assert_eq!(
        (&dairy["priority"], &dairy["exclusive"], &dairy["active"]),
        (&json!(0), &json!(false), &json!(true))
    );
    let answer = simulate(&server, &key, ana).await;
    let mine: Vec<_> = discounts(&answer)
        .into_iter()
        .filter(|d| d.0 == id)
        .collect();
    assert_eq!(mine, vec![(id, 1, 0.8), (id, 3, 0.2)], "{answer}");
    assert_eq!(
        ok(&server, &key, "GET", &format!("/promotions/{id}"), None).await,
        dairy
    );
    let listed = ok(&server, &key, "GET", "/discounts", None).await;
    assert!(
        listed["discounts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"] == id),
        "{listed}"
    );

    // An exclusive one of higher priority on the whole cart wins alone.
    let whole = ok(&server, &key, "POST", "/promotions", Some(json!({
        "name": {"en": "Everything", "es": "Todo"}, "amount": 1, "priority": 10, "exclusive": true
    }))).await;
    let whole_id = whole["id"].as_i64().unwrap();
    let answer = simulate(&server, &key, ana).await;
    let rules: std::collections::BTreeSet<i64> = discounts(&answer).iter().map(|d| d.0).collect();
    assert_eq!(rules, [whole_id].into(), "{answer}");

    // Changed: percent becomes an amount; deactivated; deleted.
    let changed = ok(
        &server,
        &key,
        "PATCH",
        &format!("/promotions/{whole_id}"),
        Some(json!({"percent": 50, "active": false})),
    )
    .await;
    assert_eq!(
        (&changed["percent"], &changed["amount"], &changed["active"]),
        (&json!(50.0), &Value::Null, &json!(false))
    );
    let answer = simulate(&server, &key, ana).await;
    assert!(discounts(&answer).iter().all(|d| d.0 == id), "{answer}");
    ok(&server, &key, "DELETE", &format!("/promotions/{id}"), None).await;
    assert_error(
        &server
            .call_as("GET", &format!("/promotions/{id}"), &key, None)
            .await,
        404,
        "promotion_not_found",
    );
    assert_error(
        &server
            .call_as(
                "PATCH",
                &format!("/promotions/{id}"),
                &key,
                Some(json!({"percent": 5})),
            )
            .await,
        404,
        "promotion_not_found",
    );
    assert_eq!(
        discounts(&simulate(&server, &key, ana).await),
        discounts(&before)
    );
    let listed = ok(&server, &key, "GET", "/promotions", None).await;
    assert_eq!(
        listed["promotions"].as_array().unwrap().len(),
        1,
        "{listed}"
    );
}

#[tokio::test]
async fn a_bad_promotion_is_refused_and_changes_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    for (body, status, code) in [
        (json!({"name": "X"}), 400, "invalid_request"),
        (json!({"percent": 10}), 400, "invalid_request"),
        (
            json!({"name": "X", "percent": 10, "amount": 1}),
            400,
            "invalid_request",
        ),
        (
            json!({"name": "X", "amount": 1.234}),
            400,
            "invalid_request",
        ),
        (
            json!({"name": "X", "percent": 10, "features": {"department": ["meat"]}}),
            422,
            "unknown_feature",
        ),
        (
            json!({"name": "X", "percent": 10, "features": {"region": ["north"]}}),
            422,
            "unknown_feature",
        ),
    ] {
        assert_error(
            &server
                .call_as("POST", "/promotions", &key, Some(body))
                .await,
            status,
            code,
        );
    }
    let listed = ok(&server, &key, "GET", "/promotions", None).await;
    assert_eq!(listed["promotions"], json!([]));
    let created = ok(
        &server,
        &key,
        "POST",
        "/promotions",
        Some(json!({"name": "Ten", "percent": 10})),
    )
    .await;
    let path = format!("/promotions/{}", created["id"]);
    assert_error(
        &server
            .call_as(
                "PATCH",
                &path,
                &key,
                Some(json!({"percent": 10, "amount": 2})),
            )
            .await,
        400,
        "invalid_request",
    );
    assert_eq!(ok(&server, &key, "GET", &path, None).await, created);
    // Another Company's Promotion, or a discount campaign's id, is no Promotion of it.
    let other = server.company_with_key("other").await;
    assert_error(
        &server.call_as("GET", &path, &other, None).await,
        404,
        "promotion_not_found",
    );
    assert_error(
        &server.call_as("DELETE", &path, &other, None).await,
        404,
        "promotion_not_found",
    );
    let discount = ok(
        &server,
        &key,
        "POST",
        "/discounts",
        Some(json!({"name": "D", "discount": {"percent": 5}})),
    )
    .await;
    assert_error(
        &server
            .call_as(
                "GET",
                &format!("/promotions/{}", discount["id"]),
                &key,
                None,
            )
            .await,
        404,
        "promotion_not_found",
    );
    assert_error(
        &server
            .call_as(
                "PATCH",
                &format!("/discounts/{}", created["id"]),
                &key,
                Some(json!({"name": "Mine"})),
            )
            .await,
        404,
        "discount_not_found",
    );
}
