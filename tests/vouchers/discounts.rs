//! Discounts outside a cart (POST /discounts/redeem) and the history of
//! every discount a Customer got (GET /discounts/transactions).

use super::carts::{MONDAY, cart, post_cart_ok};
use super::*;

/// (given_by, discount_id, value, voucher_code) of each discount of a
/// transaction.
fn given(transaction: &Value) -> Vec<(String, i64, f64, Option<String>)> {
    transaction["discounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["given_by"].as_str().unwrap().to_string(),
                d["discount_id"].as_i64().unwrap(),
                d["value"].as_f64().unwrap(),
                d["voucher_code"].as_str().map(str::to_string),
            )
        })
        .collect()
}

#[tokio::test]
async fn every_discount_a_customer_got_is_in_their_history() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Five off", "discount": {"amount": 5}}),
    )
    .await;
    let code = issued_code(&server, &key, &ana, &coupon).await;
    // The demo's coffee campaign (101) and the Voucher, on one cart.
    post_cart_ok(&server, &key, cart(&ana, "H-1", json!([code]))).await;
    let history = format!("/discounts/transactions?customer_id={ana}");
    let (status, page) = server.get_as(&history, &key).await;
    assert_eq!(status, 200, "{page}");
    // One transaction for the cart, with each discount it got.
    let transactions = page["transactions"].as_array().unwrap();
    assert_eq!(transactions.len(), 1, "{page}");
    let sale = &transactions[0];
    assert_eq!(
        (
            sale["source"].as_str(),
            sale["cart_code"].as_str(),
            sale["value"].as_f64()
        ),
        (Some("cart"), Some("H-1"), Some(5.5))
    );
    assert_eq!(sale["location_code"], "S1");
    assert_eq!(
        given(sale),
        [
            ("campaign".to_string(), 101, 0.5, None),
            (
                "voucher".to_string(),
                coupon["id"].as_i64().unwrap(),
                5.0,
                Some(code.clone())
            ),
        ]
    );

    // A goodwill discount at the service desk: a tenth of 30.00.
    let redeem = |body: Value| {
        let (server, key) = (&server, &key);
        async move {
            server
                .call_as("POST", "/discounts/redeem", key, Some(body))
                .await
        }
    };
    let (status, given) = redeem(json!({
        "customer_id": ana, "discount_id": 101, "base_amount": 30,
        "location_code": "DESK", "description": "Late delivery"
    }))
    .await;
    assert_eq!(status, 200, "{given}");
    assert_eq!(
        (given["source"].as_str(), given["value"].as_f64()),
        (Some("redeem"), Some(3.0))
    );
    assert_eq!(given["discounts"][0]["discount_name"], "Coffee mornings");
    assert_eq!(given["discounts"][0]["discount_id"], 101);
    assert_eq!(given["description"], "Late delivery");
    assert_eq!(given["base_amount"], 30.0);
    // Newest first, one page at a time.
    let (_, first) = server.get_as(&format!("{history}&per_page=1"), &key).await;
    assert_eq!(first["transactions"][0]["id"], given["id"], "{first}");
    let after = first["next_token_starts_after"].as_str().unwrap();
    let (_, rest) = server
        .get_as(
            &format!("{history}&per_page=5&starting_after={after}"),
            &key,
        )
        .await;
    assert_eq!(rest["transactions"].as_array().unwrap().len(), 1, "{rest}");
    assert_eq!(rest["transactions"][0]["cart_code"], "H-1");
    assert!(rest.get("next_token_starts_after").is_none(), "{rest}");

    // Refusals change nothing.
    for (body, status, code) in [
        (
            json!({"customer_id": ana, "discount_id": 999, "base_amount": 10}),
            404,
            "discount_not_found",
        ),
        (
            json!({"customer_id": ana, "discount_id": coupon["id"], "base_amount": 10}),
            404,
            "discount_not_found",
        ),
        (
            json!({"customer_id": ana, "discount_id": 101}),
            400,
            "invalid_request",
        ),
        (
            json!({"customer_id": ana, "discount_id": 101, "base_amount": -1}),
            400,
            "invalid_request",
        ),
        (
            json!({"customer_id": ana, "discount_id": 101, "base_amount": 0}),
            422,
            "discount_unavailable",
        ),
        (
            json!({"customer_id": "cus_nobody", "discount_id": 101, "base_amount": 10}),
            404,
            "customer_not_found",
        ),
        (
            json!({"discount_id": 101, "base_amount": 10}),
            400,
            "invalid_request",
        ),
    ] {
        let (got, refused) = redeem(body).await;
        assert_error(got, &refused, status, code);
    }
    let (_, page) = server.get_as(&history, &key).await;
    assert_eq!(page["transactions"].as_array().unwrap().len(), 2);

    // A cancelled cart's discounts stay, marked.
    let (status, _) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "H-1"})),
        )
        .await;
    assert_eq!(status, 200);
    let (_, page) = server.get_as(&history, &key).await;
    for transaction in page["transactions"].as_array().unwrap() {
        let cancelled = transaction.get("cancelled_at").is_some();
        assert_eq!(
            cancelled,
            transaction["cart_code"] == "H-1",
            "{transaction}"
        );
    }
    let (status, refused) = server
        .get_as("/discounts/transactions?customer_id=cus_nobody", &key)
        .await;
    assert_error(status, &refused, 404, "customer_not_found");
    let (status, refused) = server.get_as("/discounts/transactions", &key).await;
    assert_error(status, &refused, 400, "invalid_request");
}

#[tokio::test]
async fn a_discount_campaign_is_created_changed_and_applied_through_the_api() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let (status, created) = server
        .call_as(
            "POST",
            "/discounts",
            &key,
            Some(json!({
                "name": {"en": "Shirts week", "es": "Semana de camisas"},
                "when": "cart.total >= 10",
                "discount": {"applies_to": "lines", "lines": "line.product_code == \"SHIRT\"", "percent": 20}
            })),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_i64().unwrap();
    assert!(id >= 1_000_000, "{created}");
    assert_eq!(created["source"], "api");
    assert_eq!(created["discount"]["applies_to"], "lines");
    assert_eq!(created["discount"]["percent"], 20.0);
    let (status, read) = server.get_as(&format!("/discounts/{id}"), &key).await;
    assert_eq!((status, &read), (200, &created));
    let (_, list) = server.get_as("/discounts", &key).await;
    let ids: Vec<i64> = list["discounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [101, id], "{list}");
    let (_, file) = server.get_as("/discounts/101", &key).await;
    assert_eq!(file["source"], "file");

    // It applies to the next cart: a fifth of the shirt (15.50).
    let ana = customer(&server, &key, "ana@example.com").await;
    let sold = post_cart_ok(&server, &key, cart(&ana, "A-1", json!([]))).await;
    let shirt: Vec<&Value> = sold["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rule_id"] == id)
        .collect();
    assert_eq!(shirt.len(), 1, "{sold}");
    assert_eq!(
        (shirt[0]["line"].as_i64(), shirt[0]["value"].as_f64()),
        (Some(4), Some(3.1))
    );

    // A change: a fixed amount off the whole cart replaces the percentage.
    let path = format!("/discounts/{id}");
    let (status, changed) = server
        .call_as(
            "PATCH",
            &path,
            &key,
            Some(json!({"discount": {"applies_to": "cart", "amount": 2}})),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        changed["discount"],
        json!({"applies_to": "cart", "amount": 2.0})
    );
    assert_eq!(changed["when"], "cart.total >= 10", "kept");
    let sold = post_cart_ok(&server, &key, cart(&ana, "A-2", json!([]))).await;
    let off: f64 = sold["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rule_id"] == id)
        .map(|e| e["value"].as_f64().unwrap())
        .sum();
    assert!((off - 2.0).abs() < 1e-9, "{sold}");
    // Given outside a cart too; unavailable once inactive.
    let redeem = json!({"customer_id": ana, "discount_id": id, "base_amount": 1.5});
    let (status, given) = server
        .call_as("POST", "/discounts/redeem", &key, Some(redeem.clone()))
        .await;
    assert_eq!(
        (status, given["value"].as_f64()),
        (200, Some(1.5)),
        "{given}"
    );
    let (status, _) = server
        .call_as("PATCH", &path, &key, Some(json!({"active": false})))
        .await;
    assert_eq!(status, 200);
    let (status, refused) = server
        .call_as("POST", "/discounts/redeem", &key, Some(redeem))
        .await;
    assert_error(status, &refused, 422, "discount_unavailable");

    // Refusals change nothing.
    for (method, path, body, status, code) in [
        (
            "POST",
            "/discounts".to_string(),
            json!({"name": "No discount"}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/discounts".to_string(),
            json!({"name": "Both", "discount": {"percent": 5, "amount": 1}}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/discounts".to_string(),
            json!({"name": "Bad", "discount": {"applies_to": "lines", "percent": 5}}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/discounts".to_string(),
            json!({"name": "Bad", "when": "cart.totl >", "discount": {"percent": 5}}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/discounts".to_string(),
            json!({"name": "Bad", "discount": {"amount": 1.001}}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/discounts".to_string(),
            json!({"name": "Bad", "discount": {"percent": 5}, "on": "cart"}),
            400,
            "invalid_request",
        ),
        (
            "PATCH",
            "/discounts/101".to_string(),
            json!({"active": false}),
            403,
            "forbidden_request",
        ),
        (
            "PATCH",
            "/discounts/999".to_string(),
            json!({"active": false}),
            404,
            "discount_not_found",
        ),
        (
            "PATCH",
            "/discounts/601".to_string(),
            json!({"active": false}),
            404,
            "discount_not_found",
        ),
    ] {
        let (got, refused) = server.call_as(method, &path, &key, Some(body)).await;
        assert_error(got, &refused, status, code);
    }
    let (status, missing) = server.get_as("/discounts/601", &key).await;
    assert_error(status, &missing, 404, "discount_not_found");
    let (_, list) = server.get_as("/discounts", &key).await;
    assert_eq!(list["discounts"].as_array().unwrap().len(), 2);
}
