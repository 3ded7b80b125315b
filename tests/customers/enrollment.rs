//! Creating Customers: enrollment, the identifiers they are known by and
//! the documented refusals.

use super::*;

#[tokio::test]
async fn a_customer_is_created_enrolled_and_normalised() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = create(
        &server,
        &key,
        json!({
            "code": " EXT-1 ",
            "email": "Ana.Garcia@Example.COM",
            "phone": "+34 600 11 22 33",
            "first_name": "Ana",
            "last_name": "García",
            "birth_date": "1990-01-31",
            "country": "es",
            "language": "es",
            "consents": {"terms": true, "marketing_email": true},
            "cards": [{"number": "4000-0001", "kind": "physical"}],
            "attributes": {"favourite_store": "12", "vip": true}
        }),
    )
    .await;
    assert!(customer["id"].as_str().unwrap().starts_with("cus_"));
    assert_eq!(customer["code"], "EXT-1");
    assert_eq!(customer["email"], "ana.garcia@example.com");
    assert_eq!(customer["phone"], "+34600112233");
    assert_eq!(customer["country"], "ES");
    assert_eq!(customer["birth_date"], "1990-01-31");
    assert_eq!(customer["active"], true);
    assert_eq!(customer["loyalty_member"], true);
    assert!(customer["enrolled_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(customer["consents"]["terms"], true);
    assert_eq!(customer["consents"]["marketing_sms"], false);
    assert!(customer["consents"]["recorded_at"].is_string());
    assert_eq!(customer["cards"][0]["number"], "4000-0001");
    assert_eq!(customer["attributes"]["vip"], true);
}

#[tokio::test]
async fn a_customer_can_be_created_without_enrolling() {
    let server = TestServer::start().await;
    let customer = create(
        &server,
        &server.bootstrap_key(),
        json!({"email": "x@y.es", "enroll": false}),
    )
    .await;
    assert_eq!(customer["loyalty_member"], false);
    assert!(customer["enrolled_at"].is_null());
    // Membership is asked for as `enroll`; `loyalty_member` is how
    // answers say it, and a create naming it is refused, not ignored.
    let (status, refused) = server
        .call_as(
            "POST",
            "/customers",
            &server.bootstrap_key(),
            Some(json!({"email": "n@y.es", "loyalty_member": false})),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("`loyalty_member`"),
        "{refused}"
    );
}

#[tokio::test]
async fn an_existing_customer_is_refused_not_duplicated() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    create(
        &server,
        &key,
        json!({"email": "ana@example.com", "code": "A1", "cards": [{"number": "C1"}]}),
    )
    .await;
    for duplicate in [
        json!({"email": "ANA@example.com"}),
        json!({"code": "A1"}),
        json!({"email": "other@example.com", "cards": [{"number": "C1"}]}),
    ] {
        let (status, body) = server
            .call_as("POST", "/customers", &key, Some(duplicate.clone()))
            .await;
        assert_error(status, &body, 409, "customer_already_exists");
    }
    let (_, found) = server
        .call_as("POST", "/customers/search", &key, Some(json!({})))
        .await;
    assert_eq!(
        found["customers"].as_array().unwrap().len(),
        1,
        "nothing was created"
    );
    // A refused create released nothing and claimed nothing: `other@` is free.
    create(&server, &key, json!({"email": "other@example.com"})).await;
}

#[tokio::test]
async fn invalid_input_is_refused_with_400_and_changes_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    for bad in [
        json!({"email": "not-an-email"}),
        json!({"phone": "12"}),
        json!({"country": "Spain"}),
        json!({"language": "Spanish"}),
        json!({"birth_date": "31/01/1990"}),
        json!({"cards": [{"number": "has space"}]}),
        json!({"cards": [{"number": "C9"}, {"number": "C9"}]}),
        json!({"attributes": {"bad name": 1}}),
        json!({"email": 42}),
    ] {
        let (status, body) = server
            .call_as("POST", "/customers", &key, Some(bad.clone()))
            .await;
        assert_error(status, &body, 400, "invalid_request");
    }
    let (_, found) = server
        .call_as("POST", "/customers/search", &key, Some(json!({})))
        .await;
    assert_eq!(found["customers"], json!([]));
}

#[tokio::test]
async fn malformed_json_and_wrong_content_types_get_the_error_shape() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let base = |content_type: &str, body: &'static str| {
        server
            .http
            .post(server.url("/customers"))
            .header("X-Api-Key", &key.key.key)
            .header("X-Api-Secret", &key.secret)
            .header("X-Api-Version", "1")
            .header("content-type", content_type)
            .body(body)
    };
    let (status, body) = read(
        base("application/json", "{\"email\": ")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_error(status, &body, 400, "invalid_request");
    let (status, body) = read(base("text/plain", "email=x").send().await.unwrap()).await;
    assert_error(status, &body, 415, "unsupported_media_type");
    // Without credentials the body is never looked at.
    let (status, body) = read(
        server
            .http
            .post(server.url("/customers"))
            .header("content-type", "application/json")
            .body("{")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, body), (403, json!({"message": "Forbidden"})));
}
