//! Searching Customers by fields and attributes, page by page.

use super::*;

#[tokio::test]
async fn search_filters_by_fields_and_pages_through_results() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let mut madrid = Vec::new();
    for n in 0..7 {
        let customer = create(
            &server,
            &key,
            json!({"email": format!("m{n}@example.com"), "attributes": {"city": "madrid"}, "country": "ES"}),
        )
        .await;
        madrid.push(customer["id"].as_str().unwrap().to_string());
    }
    create(
        &server,
        &key,
        json!({"email": "p@example.com", "attributes": {"city": "paris"}, "country": "FR"}),
    )
    .await;

    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut body =
            json!({"filters": {"attributes.city": "madrid", "country": "es"}, "per_page": 3});
        if let Some(token) = &token {
            body["starting_after"] = json!(token);
        }
        let (status, page) = server
            .call_as("POST", "/customers/search", &key, Some(body))
            .await;
        assert_eq!(status, 200, "{page}");
        pages += 1;
        for customer in page["customers"].as_array().unwrap() {
            seen.push(customer["id"].as_str().unwrap().to_string());
        }
        match page.get("next_token_starts_after").and_then(Value::as_str) {
            Some(next) => token = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, madrid, "every match once, in creation order");

    let (_, by_email) = server
        .call_as(
            "POST",
            "/customers/search",
            &key,
            Some(json!({"filters": {"email": "M3@example.com"}})),
        )
        .await;
    assert_eq!(by_email["customers"][0]["id"], madrid[3].as_str());
    // An id with surrounding spaces is trimmed, as in paths and `?ids=`.
    let (_, by_id) = server
        .call_as(
            "POST",
            "/customers/search",
            &key,
            Some(json!({"filters": {"id": format!("  {} ", madrid[1])}})),
        )
        .await;
    assert_eq!(by_id["customers"][0]["id"], madrid[1].as_str(), "{by_id}");
}

/// A search by `filters` and every Customer id it answers, across pages.
async fn found(server: &TestServer, key: &CreatedApiKey, filters: Value) -> Vec<String> {
    let mut ids = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut body = json!({"filters": filters, "per_page": 2});
        if let Some(token) = &token {
            body["starting_after"] = json!(token);
        }
        let (status, page) = server
            .call_as("POST", "/customers/search", key, Some(body))
            .await;
        assert_eq!(status, 200, "{filters}: {page}");
        for customer in page["customers"].as_array().expect("customers") {
            ids.push(customer["id"].as_str().expect("id").to_string());
        }
        match page["next_token_starts_after"].as_str() {
            Some(next) => token = Some(next.to_string()),
            None => return ids,
        }
    }
}

/// The names of the indexes a plan reads, and whether it scans a table.
fn indexes_read(plan: &Value, into: &mut Vec<String>) -> bool {
    let mut scans_a_table = plan["operator"] == "TableScan";
    if plan["operator"] == "IndexScan" {
        into.push(
            plan["attributes"]["index"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        );
    }
    for child in plan["children"].as_array().into_iter().flatten() {
        scans_a_table |= indexes_read(child, into);
    }
    scans_a_table
}

#[tokio::test]
async fn every_search_field_is_read_from_an_index() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let full = json!({
        "code": "IDX-1", "email": "idx@example.com", "phone": "+34 600 000 001",
        "first_name": "Ines", "last_name": "Diaz", "birth_date": "1991-02-03",
        "gender": "female", "language": "es", "country": "ES", "postal_code": "28001",
        "enroll": true, "cards": [{"number": "7000-0001", "kind": "plastic"}],
        "attributes": {"tier": "gold", "visits": 3, "vip": true}
    });
    let wanted = create(&server, &key, full).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    create(
        &server,
        &key,
        json!({"code": "IDX-2", "first_name": "Other", "attributes": {"tier": "silver"}}),
    )
    .await;
    let filters = [
        ("id", json!(wanted), "customer_company"),
        ("code", json!("IDX-1"), "customer_company"),
        ("email", json!("IDX@example.com"), "customer_company"),
        ("phone", json!("+34600000001"), "customer_company"),
        ("card", json!("7000-0001"), "customer_company"),
        ("first_name", json!("Ines"), "customer_first_name"),
        ("last_name", json!("Diaz"), "customer_last_name"),
        ("birth_date", json!("1991-02-03"), "customer_birth_date"),
        ("gender", json!("female"), "customer_gender"),
        ("language", json!("es"), "customer_language"),
        ("country", json!("es"), "customer_country"),
        ("postal_code", json!("28001"), "customer_postal_code"),
        ("active", json!(true), "customer_active"),
        ("loyalty_member", json!(true), "customer_loyalty_member"),
        ("attributes.tier", json!("gold"), "customer_attribute_value"),
        ("attributes.visits", json!(3), "customer_attribute_value"),
        ("attributes.vip", json!(true), "customer_attribute_value"),
    ];
    let services = &server.running.services;
    for (field, value, index) in filters {
        let one = std::collections::BTreeMap::from([(field.to_string(), value.clone())]);
        let plan = services
            .explain_customer_search("demo", one)
            .await
            .expect("explained")
            .unwrap_or_else(|| panic!("{field}: the identifier names the Customer"));
        let mut read = Vec::new();
        let scans = indexes_read(&plan, &mut read);
        assert!(!scans, "{field} scans a table: {plan}");
        assert_eq!(read, [index], "{field}: {plan}");
        let answered = found(&server, &key, json!({field: value})).await;
        assert!(answered.contains(&wanted), "{field}: {answered:?}");
    }
}

#[tokio::test]
async fn a_search_by_attributes_follows_every_change_of_them() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let mut gold = Vec::new();
    for n in 0..5 {
        let customer = create(
            &server,
            &key,
            json!({"code": format!("ATTR-{n}"), "country": if n % 2 == 0 { "ES" } else { "FR" },
                   "attributes": {"tier": "gold", "visits": n}}),
        )
        .await;
        gold.push(customer["id"].as_str().expect("id").to_string());
    }
    assert_eq!(
        found(&server, &key, json!({"attributes.tier": "gold"})).await,
        gold
    );
    // A number matches whether sent as 2 or 2.0.
    assert_eq!(
        found(&server, &key, json!({"attributes.visits": 2.0})).await,
        [gold[2].clone()]
    );
    // Two attributes, and an attribute with a field.
    assert_eq!(
        found(
            &server,
            &key,
            json!({"attributes.tier": "gold", "attributes.visits": 4})
        )
        .await,
        [gold[4].clone()]
    );
    assert_eq!(
        found(
            &server,
            &key,
            json!({"attributes.tier": "gold", "country": "FR"})
        )
        .await,
        [gold[1].clone(), gold[3].clone()]
    );

    // Changed, removed, deleted: the index follows.
    let (status, _) = server
        .call_as(
            "PATCH",
            &format!("/customers/{}", gold[0]),
            &key,
            Some(json!({"attributes": {"tier": "silver"}})),
        )
        .await;
    assert_eq!(status, 200);
    let (status, _) = server
        .call_as(
            "PATCH",
            &format!("/customers/{}", gold[1]),
            &key,
            // A null removes the attribute.
            Some(json!({"attributes": {"tier": null, "visits": null}})),
        )
        .await;
    assert_eq!(status, 200);
    let (status, body) = server
        .call_as("DELETE", &format!("/customers/{}", gold[2]), &key, None)
        .await;
    assert!(status == 200 || status == 204, "{body}");
    assert_eq!(
        found(&server, &key, json!({"attributes.tier": "gold"})).await,
        [gold[3].clone(), gold[4].clone()]
    );
    assert_eq!(
        found(&server, &key, json!({"attributes.tier": "silver"})).await,
        [gold[0].clone()]
    );
    assert!(
        found(&server, &key, json!({"attributes.visits": 1}))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn bad_search_requests_are_refused() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    for bad in [
        // The filters at the top level: refused, not every Customer answered.
        json!({"email": "m3@example.com"}),
        json!({"per_page": 0}),
        json!({"per_page": 101}),
        json!({"filters": {"shoe_size": 42}}),
        json!({"filters": {"attributes.bad name": 1}}),
        json!({"filters": {"active": "yes"}}),
        json!({"filters": {"attributes.x": {"nested": true}}}),
    ] {
        let (status, body) = server
            .call_as("POST", "/customers/search", &key, Some(bad.clone()))
            .await;
        assert_error(status, &body, 400, "invalid_request");
        if bad.get("email").is_some() {
            assert!(
                body["error"].as_str().unwrap().contains("email"),
                "the field is named: {body}"
            );
        }
    }
}
