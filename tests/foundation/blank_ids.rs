//! Blank identifiers: a Customer id (in a query, a body or the path) that is
//! empty or only spaces names no Customer. Each operation answers 400
//! `invalid_request` saying so, never a 500, and changes nothing; other
//! records looked up by a blank id are 404, not found.

use serde_json::{Value, json};

use crate::common::TestServer;

#[tokio::test]
async fn blank_customer_ids_are_refused_with_400_naming_the_field() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let (_, customer) = server
        .call_as(
            "POST",
            "/customers",
            &key,
            Some(json!({"email": "b@example.com"})),
        )
        .await;
    let real = customer["id"].as_str().unwrap().to_string();
    let line = json!([{"product_code": "A", "quantity": 1, "price": 1}]);
    let mut calls: Vec<(&str, String, Option<Value>)> = Vec::new();
    // Records other than Customers looked up by a blank id are simply not
    // found.
    let mut lookups: Vec<String> = Vec::new();
    for blank in ["", "%20", "%20%20"] {
        for path in [
            "/points/transactions",
            "/carts",
            "/cashbacks",
            "/games",
            "/instant_wins",
            "/rewards/transactions",
        ] {
            calls.push(("GET", format!("{path}?customer_id={blank}"), None));
        }
        if !blank.is_empty() {
            for path in [
                "",
                "/points",
                "/points_expiring",
                "/attributes",
                "/tiers",
                "/audiences",
                "/associates",
            ] {
                calls.push(("GET", format!("/customers/{blank}{path}"), None));
            }
            calls.push((
                "PATCH",
                format!("/customers/{blank}"),
                Some(json!({"first_name": "X"})),
            ));
            calls.push(("DELETE", format!("/customers/{blank}"), None));
            for path in ["/carts", "/custom_events", "/instant_wins", "/points"] {
                lookups.push(format!("{path}/{blank}"));
            }
            calls.push((
                "DELETE",
                format!("/associations?customer_id={blank}&associate_id={real}"),
                None,
            ));
        }
    }
    for blank in ["", " "] {
        calls.push((
            "POST",
            "/carts/realtime".into(),
            Some(json!({"customer_id": blank, "code": "B-1", "lines": line})),
        ));
        calls.push((
            "POST",
            "/points/redeem".into(),
            Some(json!({"customer_id": blank, "points": 1})),
        ));
        calls.push((
            "POST",
            "/custom_events".into(),
            Some(json!({"customer_id": blank, "type": "visit"})),
        ));
        calls.push((
            "POST",
            "/scores/trigger".into(),
            Some(json!({"customer_id": blank, "type": "birthday", "points": 1})),
        ));
        calls.push((
            "POST",
            "/customers/transfer".into(),
            Some(json!({"from_customer_id": blank, "to_customer_id": real})),
        ));
        calls.push((
            "POST",
            "/customers/transfer-new".into(),
            Some(json!({"from_customer_id": blank})),
        ));
        calls.push((
            "POST",
            "/associations".into(),
            Some(json!({"customer_id": blank, "associate_id": real, "type": "family"})),
        ));
        calls.push((
            "PATCH",
            "/associations".into(),
            Some(json!({"customer_id": real, "associate_id": blank, "type": "family"})),
        ));
        calls.push((
            "POST",
            "/associations".into(),
            Some(json!({"customer_id": blank, "associate_id": blank, "type": "family"})),
        ));
    }
    let mut wrong = Vec::new();
    for (method, path, body) in calls {
        let (status, answer) = server.call_as(method, &path, &key, body.clone()).await;
        let named = answer["error"]
            .as_str()
            .unwrap_or_default()
            .contains("must not be blank");
        if status != 400 || answer["code"] != "invalid_request" || !named {
            wrong.push(format!("{method} {path} {body:?}: {status} {answer}"));
        }
    }
    for path in lookups {
        let (status, answer) = server.call_as("GET", &path, &key, None).await;
        if status != 404
            || !answer["code"]
                .as_str()
                .unwrap_or_default()
                .ends_with("_not_found")
        {
            wrong.push(format!("GET {path}: {status} {answer}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let (_, carts) = server.call_as("GET", "/carts", &key, None).await;
    assert_eq!(carts["carts"], json!([]), "nothing was recorded");
}
