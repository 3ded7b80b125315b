//! Looking Customers up by id, code, e-mail, phone and card.

use super::*;

#[tokio::test]
async fn a_customer_is_found_by_every_identifier() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = create(
        &server,
        &key,
        json!({"code": "EXT-9", "email": "b@example.com", "phone": "+34600000009", "cards": [{"number": "CARD-9"}]}),
    )
    .await;
    let id = customer["id"].as_str().unwrap();
    for path in [
        format!("/customers/{id}"),
        format!("/customers/{id}?search_by=id"),
        "/customers/EXT-9?search_by=code".to_string(),
        "/customers/B@EXAMPLE.COM?search_by=email".to_string(),
        "/customers/%2B34600000009?search_by=phone".to_string(),
        "/customers/CARD-9?search_by=card".to_string(),
    ] {
        let (status, found) = server.call_as("GET", &path, &key, None).await;
        assert_eq!(status, 200, "{path}: {found}");
        assert_eq!(found, customer, "{path}");
    }
    for path in [
        "/customers/cus_nope",
        "/customers/EXT-0?search_by=code",
        "/customers/nobody@example.com?search_by=email",
        "/customers/not-an-email?search_by=email",
    ] {
        let (status, body) = server.call_as("GET", path, &key, None).await;
        assert_error(status, &body, 404, "customer_not_found");
    }
    let (status, body) = server
        .call_as("GET", "/customers/x?search_by=shoe_size", &key, None)
        .await;
    assert_error(status, &body, 400, "invalid_request");
}

#[tokio::test]
async fn customers_are_listed_by_ids_or_phones() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let a = create(&server, &key, json!({"phone": "+34600000001"})).await;
    let b = create(&server, &key, json!({"phone": "+34600000002"})).await;
    let c = create(&server, &key, json!({"phone": "+34600000003"})).await;
    let path = format!(
        "/customers?ids={},{},cus_unknown&phones=%2B34600000003",
        a["id"].as_str().unwrap(),
        b["id"].as_str().unwrap()
    );
    let (status, list) = server.call_as("GET", &path, &key, None).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["customers"], json!([a, b, c]));
    let (status, body) = server.call_as("GET", "/customers", &key, None).await;
    assert_eq!(
        (status, body),
        (200, json!({"customers": []})),
        "naming no Customer lists none"
    );
}

#[tokio::test]
async fn an_id_and_a_code_sent_together_must_name_the_same_customer() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = create(&server, &key, json!({"code": "ANA-1"})).await;
    let bob = create(&server, &key, json!({"code": "BOB-1"})).await;
    let ana_id = ana["id"].as_str().unwrap();
    // In a query: the till may send the id it cached and the card's code.
    let (status, body) = server
        .call_as(
            "GET",
            &format!("/points/transactions?customer_id={ana_id}&customer_code=ANA-1"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .call_as(
            "GET",
            &format!("/points/transactions?customer_id={ana_id}&customer_code=BOB-1"),
            &key,
            None,
        )
        .await;
    assert_error(status, &body, 404, "customer_not_found");
    // In a body: a disagreeing pair records nothing.
    let event = |code: &str| json!({"type": "visit", "customer_id": ana_id, "customer_code": code});
    let (status, body) = server
        .call_as("POST", "/custom_events", &key, Some(event("ANA-1")))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .call_as("POST", "/custom_events", &key, Some(event("BOB-1")))
        .await;
    assert_error(status, &body, 404, "customer_not_found");
    let (_, bobs) = server
        .call_as(
            "GET",
            &format!("/custom_events?customer_id={}", bob["id"].as_str().unwrap()),
            &key,
            None,
        )
        .await;
    assert_eq!(bobs["custom_events"], json!([]), "{bobs}");
    // Neither, or null for one of them, is refused by the request's shape.
    for body in [
        json!({"type": "visit"}),
        json!({"type": "visit", "customer_id": null, "customer_code": "ANA-1"}),
    ] {
        let (status, answer) = server
            .call_as("POST", "/custom_events", &key, Some(body))
            .await;
        assert_error(status, &answer, 400, "invalid_request");
    }
}

#[tokio::test]
async fn a_location_id_and_code_sent_together_must_name_the_same_store() {
    let server = TestServer::start().await;
    // A Company without campaigns: listing none once answered 500.
    let key = server.company_with_key("acme").await;
    for (query, expected) in [
        ("location_id=S1&location_code=S1", 200),
        ("location_id=S1&location_code=S2", 404),
        ("campaign_audience=targeted", 200),
    ] {
        let (status, body) = server
            .call_as("GET", &format!("/instant_wins?{query}"), &key, None)
            .await;
        assert_eq!(status, expected, "{query}: {body}");
        if expected == 404 {
            assert_error(status, &body, 404, "location_not_found");
        }
    }
}

#[tokio::test]
async fn another_companys_customer_is_a_404() {
    let server = TestServer::start().await;
    let demo = server.bootstrap_key();
    let acme = server.company_with_key("acme").await;
    let customer = create(
        &server,
        &demo,
        json!({"email": "c@example.com", "code": "C", "cards": [{"number": "K1"}]}),
    )
    .await;
    let id = customer["id"].as_str().unwrap();
    for (method, path, body) in [
        ("GET", format!("/customers/{id}"), None),
        (
            "GET",
            "/customers/c@example.com?search_by=email".to_string(),
            None,
        ),
        ("GET", "/customers/K1?search_by=card".to_string(), None),
        (
            "PATCH",
            format!("/customers/{id}"),
            Some(json!({"first_name": "Mallory"})),
        ),
        ("DELETE", format!("/customers/{id}"), None),
        (
            "POST",
            format!("/customers/{id}/cards"),
            Some(json!({"number": "K2"})),
        ),
    ] {
        let (status, answer) = server.call_as(method, &path, &acme, body).await;
        assert_error(status, &answer, 404, "customer_not_found");
    }
    let (_, listed) = server
        .call_as("GET", &format!("/customers?ids={id}"), &acme, None)
        .await;
    assert_eq!(listed["customers"], json!([]));
    let (_, searched) = server
        .call_as(
            "POST",
            "/customers/search",
            &acme,
            Some(json!({"filters": {"email": "c@example.com"}})),
        )
        .await;
    assert_eq!(searched["customers"], json!([]));
    // Identifiers are unique per Company, not globally.
    create(
        &server,
        &acme,
        json!({"email": "c@example.com", "code": "C", "cards": [{"number": "K1"}]}),
    )
    .await;
    let (_, unchanged) = server
        .call_as("GET", &format!("/customers/{id}"), &demo, None)
        .await;
    assert_eq!(unchanged, customer);
}
