//! Updating Customers and their cards.

use super::*;

#[tokio::test]
async fn a_patch_changes_only_what_it_names() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = create(
        &server,
        &key,
        json!({"email": "old@example.com", "phone": "+34600000100", "first_name": "Ana", "attributes": {"a": 1, "b": 2}}),
    )
    .await;
    let id = customer["id"].as_str().unwrap();
    let (status, updated) = server
        .call_as(
            "PATCH",
            &format!("/customers/{id}"),
            &key,
            Some(json!({"email": "New@Example.com", "phone": null, "attributes": {"a": null, "c": "x"}, "active": false})),
        )
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["email"], "new@example.com");
    assert!(updated["phone"].is_null());
    assert_eq!(updated["first_name"], "Ana");
    assert_eq!(updated["attributes"], json!({"b": 2, "c": "x"}));
    assert_eq!(updated["active"], false);
    let (status, _) = server
        .call_as(
            "GET",
            "/customers/old@example.com?search_by=email",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 404, "the old e-mail no longer finds the Customer");
    let (status, _) = server
        .call_as(
            "GET",
            "/customers/%2B34600000100?search_by=phone",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 404, "the cleared phone is released");
    let (status, found) = server
        .call_as(
            "GET",
            "/customers/new@example.com?search_by=email",
            &key,
            None,
        )
        .await;
    assert_eq!((status, &found["id"]), (200, &customer["id"]));
    // The released phone can be taken by someone else.
    create(&server, &key, json!({"phone": "+34600000100"})).await;
}

#[tokio::test]
async fn a_patch_cannot_take_another_customers_identifier() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    create(&server, &key, json!({"email": "taken@example.com"})).await;
    let customer = create(&server, &key, json!({"email": "mine@example.com"})).await;
    let path = format!("/customers/{}", customer["id"].as_str().unwrap());
    let (status, body) = server
        .call_as(
            "PATCH",
            &path,
            &key,
            Some(json!({"email": "taken@example.com", "first_name": "X"})),
        )
        .await;
    assert_error(status, &body, 409, "identifier_in_use");
    let (_, unchanged) = server.call_as("GET", &path, &key, None).await;
    assert_eq!(unchanged, customer, "a refused patch changes nothing");
    let (status, body) = server
        .call_as("PATCH", &path, &key, Some(json!({"email": "nope"})))
        .await;
    assert_error(status, &body, 400, "invalid_request");
}

#[tokio::test]
async fn concurrent_patches_of_one_customer_lose_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = create(&server, &key, json!({"email": "busy@example.com"})).await;
    let path = format!("/customers/{}", customer["id"].as_str().unwrap());
    let mut requests = Vec::new();
    for n in 0..12 {
        let request = server
            .request_as("PATCH", &path, &key)
            .json(&json!({"attributes": {format!("field_{n}"): n}}));
        requests.push(request);
    }
    for (status, body) in all_at_once(requests).await {
        assert_eq!(status, 200, "{body}");
    }
    let (_, final_state) = server.call_as("GET", &path, &key, None).await;
    let attributes = final_state["attributes"].as_object().unwrap();
    assert_eq!(
        attributes.len(),
        12,
        "every concurrent patch is kept: {attributes:?}"
    );
}

#[tokio::test]
async fn cards_are_attached_and_unique_per_company() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
    let bob = create(
        &server,
        &key,
        json!({"email": "bob@example.com", "cards": [{"number": "B-1"}]}),
    )
    .await;
    let ana_cards = format!("/customers/{}/cards", ana["id"].as_str().unwrap());
    let (status, with_card) = server
        .call_as(
            "POST",
            &ana_cards,
            &key,
            Some(json!({"number": "A-1", "kind": "digital"})),
        )
        .await;
    assert_eq!(status, 200, "{with_card}");
    assert_eq!(with_card["cards"][0]["number"], "A-1");
    let (status, with_two) = server
        .call_as("POST", &ana_cards, &key, Some(json!({"number": "A-2"})))
        .await;
    assert_eq!(status, 200);
    assert_eq!(with_two["cards"].as_array().unwrap().len(), 2);
    let (_, found) = server
        .call_as("GET", "/customers/A-2?search_by=card", &key, None)
        .await;
    assert_eq!(found["id"], ana["id"]);

    let (status, body) = server
        .call_as("POST", &ana_cards, &key, Some(json!({"number": "B-1"})))
        .await;
    assert_error(status, &body, 409, "identifier_in_use");
    let (status, body) = server
        .call_as("POST", &ana_cards, &key, Some(json!({"number": "A-1"})))
        .await;
    assert_error(status, &body, 409, "identifier_in_use");
    let (_, bob_now) = server
        .call_as("GET", "/customers/B-1?search_by=card", &key, None)
        .await;
    assert_eq!(bob_now, bob);

    let bob_path = format!("/customers/{}", bob["id"].as_str().unwrap());
    server
        .call_as("PATCH", &bob_path, &key, Some(json!({"active": false})))
        .await;
    let (status, body) = server
        .call_as(
            "POST",
            &format!("{bob_path}/cards"),
            &key,
            Some(json!({"number": "B-2"})),
        )
        .await;
    assert_error(status, &body, 422, "customer_inactive");
}
