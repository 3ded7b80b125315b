//! Merging Customers and undoing a merge.

use super::*;

/// Everything a merge moves, for comparing before and after.
async fn footprint(server: &TestServer, key: &CreatedApiKey, id: &str) -> Value {
    let (status, customer) = server
        .call_as("GET", &format!("/customers/{id}"), key, None)
        .await;
    assert_eq!(status, 200, "{customer}");
    let (_, associates) = server
        .call_as("GET", &format!("/customers/{id}/associates"), key, None)
        .await;
    let links: Vec<Value> = associates["associates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| json!([a["customer"]["id"], a["type"]]))
        .collect();
    json!({
        "code": customer["code"], "email": customer["email"], "phone": customer["phone"],
        "active": customer["active"], "merged_into": customer["merged_into"],
        "cards": customer["cards"].as_array().unwrap().iter().map(|c| c["number"].clone()).collect::<Vec<_>>(),
        "links": links,
    })
}

async fn link(server: &TestServer, key: &CreatedApiKey, a: &Value, b: &Value, kind: &str) {
    let (status, body) = server
        .call_as(
            "POST",
            "/associations",
            key,
            Some(json!({"customer_id": a["id"], "associate_id": b["id"], "type": kind})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn transfer_moves_cards_and_links_and_unmerge_gives_them_back() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let dup = create(
        &server,
        &key,
        json!({"email": "dup@example.com", "cards": [{"number": "D-1"}, {"number": "D-2"}]}),
    )
    .await;
    let main = create(
        &server,
        &key,
        json!({"email": "main@example.com", "cards": [{"number": "M-1"}]}),
    )
    .await;
    let kid = create(&server, &key, json!({"email": "kid@example.com"})).await;
    let boss = create(&server, &key, json!({"email": "boss@example.com"})).await;
    link(&server, &key, &dup, &kid, "family").await;
    link(&server, &key, &dup, &boss, "company_account").await;
    link(&server, &key, &main, &boss, "company_account").await;
    let (dup_id, main_id) = (dup["id"].as_str().unwrap(), main["id"].as_str().unwrap());
    let before = (
        footprint(&server, &key, dup_id).await,
        footprint(&server, &key, main_id).await,
    );

    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": dup_id, "to_customer_id": main_id})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["merged"]["active"], false);
    assert_eq!(merged["merged"]["merged_into"], main_id);
    assert_eq!(merged["target"]["cards"].as_array().unwrap().len(), 3);
    let (_, by_card) = server
        .call_as("GET", "/customers/D-2?search_by=card", &key, None)
        .await;
    assert_eq!(by_card["id"], main_id, "moved cards identify the target");
    let (_, main_links) = server
        .call_as(
            "GET",
            &format!("/customers/{main_id}/associates"),
            &key,
            None,
        )
        .await;
    assert_eq!(
        main_links["associates"].as_array().unwrap().len(),
        2,
        "kid moved; boss was already linked"
    );
    let (_, dup_links) = server
        .call_as(
            "GET",
            &format!("/customers/{dup_id}/associates"),
            &key,
            None,
        )
        .await;
    assert_eq!(dup_links["associates"], json!([]));

    // A merged Customer takes no part in further changes.
    let (status, body) = server
        .call_as(
            "PATCH",
            &format!("/customers/{dup_id}"),
            &key,
            Some(json!({"first_name": "x"})),
        )
        .await;
    assert_error(status, &body, 422, "customer_inactive");
    let (status, body) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": dup_id, "to_customer_id": main_id})),
        )
        .await;
    assert_error(status, &body, 422, "customer_inactive");

    let (status, unmerged) = server
        .call_as("POST", &format!("/customers/{dup_id}/unmerge"), &key, None)
        .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(unmerged["not_restored"], json!([]));
    let after = (
        footprint(&server, &key, dup_id).await,
        footprint(&server, &key, main_id).await,
    );
    assert_eq!(after, before, "unmerge restores both Customers");
    let (status, body) = server
        .call_as("POST", &format!("/customers/{dup_id}/unmerge"), &key, None)
        .await;
    assert_error(status, &body, 404, "merge_not_found");
}

#[tokio::test]
async fn unmerge_reports_what_changed_since_the_merge() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let dup = create(&server, &key, json!({"email": "dup@example.com"})).await;
    let main = create(&server, &key, json!({"email": "main@example.com"})).await;
    let friend = create(&server, &key, json!({"email": "friend@example.com"})).await;
    link(&server, &key, &dup, &friend, "friends").await;
    let (dup_id, main_id, friend_id) = (
        dup["id"].as_str().unwrap(),
        main["id"].as_str().unwrap(),
        friend["id"].as_str().unwrap(),
    );
    server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": dup_id, "to_customer_id": main_id})),
        )
        .await;
    server
        .call_as(
            "DELETE",
            &format!("/associations?customer_id={main_id}&associate_id={friend_id}"),
            &key,
            None,
        )
        .await;
    let (status, unmerged) = server
        .call_as("POST", &format!("/customers/{dup_id}/unmerge"), &key, None)
        .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(unmerged["customer"]["active"], true);
    let not_restored = unmerged["not_restored"].as_array().unwrap();
    assert_eq!(not_restored.len(), 1, "{not_restored:?}");
    assert_eq!(not_restored[0]["kind"], "association");
    assert_eq!(not_restored[0]["value"], friend_id);
}

#[tokio::test]
async fn transfer_new_moves_everything_into_a_new_customer() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let old = create(
        &server,
        &key,
        json!({"code": "OLD", "email": "old@example.com", "phone": "+34600000555", "first_name": "Ana", "cards": [{"number": "O-1"}]}),
    )
    .await;
    let old_id = old["id"].as_str().unwrap();
    let before = footprint(&server, &key, old_id).await;
    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer-new",
            &key,
            Some(json!({"from_customer_id": old_id})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    let new_id = merged["target"]["id"].as_str().unwrap();
    assert_ne!(new_id, old_id);
    assert_eq!(merged["target"]["first_name"], "Ana");
    assert_eq!(merged["merge"]["target_created"], true);
    for path in [
        "/customers/OLD?search_by=code",
        "/customers/old@example.com?search_by=email",
        "/customers/O-1?search_by=card",
    ] {
        let (_, found) = server.call_as("GET", path, &key, None).await;
        assert_eq!(found["id"], new_id, "{path}");
    }
    let (status, unmerged) = server
        .call_as("POST", &format!("/customers/{old_id}/unmerge"), &key, None)
        .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(footprint(&server, &key, old_id).await, before);
    let (_, found) = server
        .call_as(
            "GET",
            "/customers/old@example.com?search_by=email",
            &key,
            None,
        )
        .await;
    assert_eq!(found["id"], old_id);
}

#[tokio::test]
async fn bad_merges_are_refused() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let acme = server.company_with_key("acme").await;
    let a = create(&server, &key, json!({"email": "a@example.com"})).await;
    let foreign = create(&server, &acme, json!({"email": "f@example.com"})).await;
    let a_id = a["id"].as_str().unwrap();
    let cases = [
        (
            json!({"from_customer_id": a_id, "to_customer_id": a_id}),
            422,
            "same_customer",
        ),
        (
            json!({"from_customer_id": a_id, "to_customer_id": "cus_nope"}),
            404,
            "customer_not_found",
        ),
        (
            json!({"from_customer_id": a_id, "to_customer_id": foreign["id"]}),
            404,
            "customer_not_found",
        ),
        (json!({"from_customer_id": a_id}), 400, "invalid_request"),
    ];
    for (body, expected, code) in cases {
        let (status, answer) = server
            .call_as("POST", "/customers/transfer", &key, Some(body))
            .await;
        assert_error(status, &answer, expected, code);
    }
    let (status, body) = server
        .call_as("POST", &format!("/customers/{a_id}/unmerge"), &key, None)
        .await;
    assert_error(status, &body, 404, "merge_not_found");
    let (_, unchanged) = server
        .call_as("GET", &format!("/customers/{a_id}"), &key, None)
        .await;
    assert_eq!(unchanged, a);
}

#[tokio::test]
async fn concurrent_merges_of_one_customer_succeed_once() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let dup = create(
        &server,
        &key,
        json!({"email": "dup@example.com", "cards": [{"number": "X-1"}]}),
    )
    .await;
    let mut targets = Vec::new();
    for n in 0..6 {
        targets.push(create(&server, &key, json!({"email": format!("t{n}@example.com")})).await);
    }
    let mut requests = Vec::new();
    for target in &targets {
        let request = server
            .request_as("POST", "/customers/transfer", &key)
            .json(&json!({"from_customer_id": dup["id"], "to_customer_id": target["id"]}));
        requests.push(request);
    }
    let mut merged = 0;
    for (status, body) in all_at_once(requests).await {
        match status {
            200 => merged += 1,
            _ => assert!(
                body["code"] == "customer_inactive" || body["code"] == "concurrent_modification",
                "{body}"
            ),
        }
    }
    assert_eq!(merged, 1);
    let holders: Vec<Value> = server
        .running
        .services
        .store()
        .raw_documents("customer", "demo")
        .await
        .unwrap()
        .into_iter()
        .filter(|c| c["cards"].as_array().is_some_and(|cards| !cards.is_empty()))
        .collect();
    assert_eq!(holders.len(), 1, "the card lives on exactly one Customer");
}
