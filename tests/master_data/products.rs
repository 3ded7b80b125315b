//! Products: created with features and aliases, read by id, code or alias,
//! changed and deleted; codes unique under concurrent creates.

use super::*;

#[tokio::test]
async fn a_product_is_read_by_id_code_or_alias_and_changed_whole() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    let created = ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({
            "code": "MILK-1L", "name": "Milk 1 l", "names": {"es": "Leche 1 l"}, "price": 1.25,
            "features": {"department": ["dairy", "dairy"]}, "aliases": ["8410000000017", "SKU-9"],
            "attributes": {"margin": "high"}
        })),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("prd_"), "{created}");
    assert_eq!(
        (
            &created["price"],
            &created["features"],
            &created["discountable"]
        ),
        (
            &json!(1.25),
            &json!({"department": ["dairy"]}),
            &json!(true)
        )
    );
    for path in [
        format!("/products/{id}"),
        "/products/MILK-1L?search_by=code".to_string(),
        "/products/8410000000017?search_by=code".to_string(),
    ] {
        assert_eq!(
            ok(&server, &key, "GET", &path, None).await,
            created,
            "{path}"
        );
    }
    assert_error(
        &server.call_as("GET", "/products/MILK-1L", &key, None).await,
        404,
        "product_not_found",
    );

    // Taken codes and aliases, in either direction.
    for body in [
        json!({"code": "MILK-1L", "name": "Again"}),
        json!({"code": "SKU-9", "name": "An alias"}),
        json!({"code": "NEW", "name": "New", "aliases": ["MILK-1L"]}),
    ] {
        assert_error(
            &server.call_as("POST", "/products", &key, Some(body)).await,
            409,
            "product_already_exists",
        );
    }
    // Bad input changes nothing.
    for (body, status, code) in [
        (
            json!({"code": "X", "name": "X", "features": {"department": ["meat"]}}),
            422,
            "unknown_feature",
        ),
        (
            json!({"code": "X", "name": "X", "features": {"brand": ["acme"]}}),
            422,
            "unknown_feature",
        ),
        (
            json!({"code": "X", "name": "X", "price": 1.234}),
            400,
            "invalid_request",
        ),
        (
            json!({"code": "X", "name": "X", "aliases": ["X"]}),
            400,
            "invalid_request",
        ),
        (
            json!({"code": "X", "name": "X", "names": {"not a language": "X"}}),
            400,
            "invalid_request",
        ),
    ] {
        assert_error(
            &server.call_as("POST", "/products", &key, Some(body)).await,
            status,
            code,
        );
    }
    assert_error(
        &server
            .call_as("GET", "/products/X?search_by=code", &key, None)
            .await,
        404,
        "product_not_found",
    );

    // A change: new code, new aliases; the old ones are free again.
    let changed = ok(&server, &key, "PATCH", &format!("/products/{id}"), Some(json!({
        "code": "MILK-1000", "aliases": ["SKU-10"], "price": null, "features": {"department": ["cheese"]},
        "discountable": false
    }))).await;
    assert_eq!(
        (
            &changed["code"],
            &changed["aliases"],
            &changed["price"],
            &changed["features"],
            &changed["discountable"],
            &changed["names"]
        ),
        (
            &json!("MILK-1000"),
            &json!(["SKU-10"]),
            &Value::Null,
            &json!({"department": ["cheese"]}),
            &json!(false),
            &json!({"es": "Leche 1 l"})
        )
    );
    assert_error(
        &server
            .call_as("GET", "/products/SKU-9?search_by=code", &key, None)
            .await,
        404,
        "product_not_found",
    );
    ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "SKU-9", "name": "Reused alias"})),
    )
    .await;
    assert_error(
        &server
            .call_as(
                "PATCH",
                &format!("/products/{id}"),
                &key,
                Some(json!({"aliases": ["SKU-9"]})),
            )
            .await,
        409,
        "product_already_exists",
    );
    let unchanged = ok(&server, &key, "GET", &format!("/products/{id}"), None).await;
    assert_eq!(unchanged["aliases"], json!(["SKU-10"]));

    // Deleted: gone, and its code free.
    let deleted = ok(
        &server,
        &key,
        "DELETE",
        "/products/MILK-1000?search_by=code",
        None,
    )
    .await;
    assert_eq!(
        (deleted["id"].as_str(), deleted["result"].as_str()),
        (Some(id.as_str()), Some("deleted"))
    );
    assert_error(
        &server
            .call_as("GET", &format!("/products/{id}"), &key, None)
            .await,
        404,
        "product_not_found",
    );
    assert_error(
        &server
            .call_as("DELETE", &format!("/products/{id}"), &key, None)
            .await,
        404,
        "product_not_found",
    );
    assert_error(
        &server
            .call_as(
                "PATCH",
                &format!("/products/{id}"),
                &key,
                Some(json!({"name": "Back"})),
            )
            .await,
        404,
        "product_not_found",
    );
    ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "MILK-1000", "name": "Milk again"})),
    )
    .await;
}

#[tokio::test]
async fn one_code_makes_one_product_however_many_ask_at_once() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let requests = (0..16)
        .map(|n| {
            server
                .request_as("POST", "/products", &key)
                .json(&json!({"code": "SAME", "name": format!("Try {n}"), "aliases": [format!("ALIAS-{}", n % 4)]}))
        })
        .collect();
    let answers = common::all_at_once(requests).await;
    let created: Vec<&Value> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .map(|(_, body)| body)
        .collect();
    assert_eq!(created.len(), 1, "{answers:?}");
    for (status, body) in &answers {
        assert!(
            *status == 200 || (*status == 409 && body["code"] == "product_already_exists"),
            "{status} {body}"
        );
    }
    let stored = ok(&server, &key, "GET", "/products/SAME?search_by=code", None).await;
    assert_eq!(&stored, created[0]);
    // The losers' aliases were never kept.
    let alias = created[0]["aliases"][0].as_str().unwrap();
    for n in 0..4 {
        let other = format!("ALIAS-{n}");
        let (status, _) = server
            .call_as(
                "GET",
                &format!("/products/{other}?search_by=code"),
                &key,
                None,
            )
            .await;
        assert_eq!(status, if other == alias { 200 } else { 404 }, "{other}");
    }
}

#[tokio::test]
async fn products_are_listed_a_page_at_a_time_and_by_feature() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    for (code, department) in [
        ("MILK", "dairy"),
        ("BREAD", "bakery"),
        ("BRIE", "cheese"),
        ("GONE", "dairy"),
        ("YOGURT", "dairy"),
    ] {
        ok(
            &server,
            &key,
            "POST",
            "/products",
            Some(json!({"code": code, "name": code, "features": {"department": [department]}})),
        )
        .await;
    }
    ok(
        &server,
        &key,
        "DELETE",
        "/products/GONE?search_by=code",
        None,
    )
    .await;
    let codes = |page: &Value| -> Vec<String> {
        page["products"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["code"].as_str().unwrap().to_string())
            .collect()
    };

    // Two at a time, in the order they were created; the deleted one left out.
    let first = ok(&server, &key, "GET", "/products?per_page=2", None).await;
    assert_eq!(codes(&first), ["MILK", "BREAD"]);
    let after = first["next_token_starts_after"].as_str().unwrap();
    let second = ok(
        &server,
        &key,
        "GET",
        &format!("/products?per_page=2&starting_after={after}"),
        None,
    )
    .await;
    assert_eq!(codes(&second), ["BRIE", "YOGURT"]);
    assert!(second.get("next_token_starts_after").is_none(), "{second}");
    assert_eq!(
        second["products"][0],
        ok(&server, &key, "GET", "/products/BRIE?search_by=code", None).await,
        "a listed Product reads as GET reads it"
    );

    // By feature: dairy covers the cheese under it.
    let dairy = ok(
        &server,
        &key,
        "GET",
        "/products?feature=department:dairy",
        None,
    )
    .await;
    assert_eq!(codes(&dairy), ["MILK", "BRIE", "YOGURT"]);
    let cheese = ok(
        &server,
        &key,
        "GET",
        "/products?feature=department:cheese",
        None,
    )
    .await;
    assert_eq!(codes(&cheese), ["BRIE"]);
    assert_error(
        &server
            .call_as("GET", "/products?feature=dairy", &key, None)
            .await,
        400,
        "invalid_request",
    );
    // Another Company's catalogue is its own.
    let other = server.company_with_key("other").await;
    let theirs = ok(&server, &other, "GET", "/products", None).await;
    assert!(codes(&theirs).is_empty());

    // Locations list the same way.
    ok(
        &server,
        &key,
        "POST",
        "/locations",
        Some(json!({"code": "S1", "name": "One", "country": "ES"})),
    )
    .await;
    let locations = ok(&server, &key, "GET", "/locations", None).await;
    assert_eq!(locations["locations"][0]["code"], "S1");
}
