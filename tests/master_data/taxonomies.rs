//! Taxonomies and features: created, read, changed, deleted; slugs taken,
//! parents missing or making a cycle, deletes of features still in use.

use super::*;

#[tokio::test]
async fn product_taxonomies_hold_a_tree_of_features() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;

    let taxonomy = ok(&server, &key, "GET", "/taxonomies/department", None).await;
    assert_eq!(taxonomy["scope"], "product");
    let features: Vec<(&str, Option<&str>)> = taxonomy["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["slug"].as_str().unwrap(), f["parent"].as_str()))
        .collect();
    assert_eq!(
        features,
        vec![
            ("bakery", None),
            ("cheese", Some("dairy")),
            ("dairy", None),
            ("tobacco", None)
        ]
    );
    let tobacco = &taxonomy["features"][3];
    assert_eq!(tobacco["discountable"], false);
    assert!(
        tobacco["id"].as_str().unwrap().starts_with("ftr_"),
        "{tobacco}"
    );

    // A parent named by its id; the feature read back by id or slug.
    let cheese_id = taxonomy["features"][1]["id"].as_str().unwrap().to_string();
    let blue = ok(
        &server,
        &key,
        "POST",
        "/taxonomies/department/features",
        Some(json!({"slug": "blue", "name": "Blue cheese", "parent": cheese_id})),
    )
    .await;
    assert_eq!(blue["parent"], "cheese");

    // Taken slugs.
    assert_error(
        &server
            .call_as(
                "POST",
                "/taxonomies",
                &key,
                Some(json!({"slug": "department", "name": "Again"})),
            )
            .await,
        409,
        "taxonomy_already_exists",
    );
    assert_error(
        &server
            .call_as(
                "POST",
                "/taxonomies/department/features",
                &key,
                Some(json!({"slug": "dairy", "name": "Again"})),
            )
            .await,
        409,
        "feature_already_exists",
    );
    // Missing references and cycles change nothing.
    assert_error(
        &server
            .call_as(
                "POST",
                "/taxonomies/department/features",
                &key,
                Some(json!({"slug": "yogurt", "name": "Yogurt", "parent": "nope"})),
            )
            .await,
        422,
        "unknown_feature",
    );
    assert_error(
        &server
            .call_as(
                "PATCH",
                "/taxonomies/department/features/dairy",
                &key,
                Some(json!({"parent": "blue"})),
            )
            .await,
        422,
        "feature_parent_cycle",
    );
    assert_error(
        &server
            .call_as(
                "PATCH",
                "/taxonomies/department/features/dairy",
                &key,
                Some(json!({"parent": "dairy"})),
            )
            .await,
        422,
        "feature_parent_cycle",
    );
    assert_error(
        &server
            .call_as(
                "POST",
                "/taxonomies/brand/features",
                &key,
                Some(json!({"slug": "acme", "name": "Acme"})),
            )
            .await,
        404,
        "taxonomy_not_found",
    );
    assert_error(
        &server
            .call_as(
                "PATCH",
                "/taxonomies/department/features/nope",
                &key,
                Some(json!({"name": "X"})),
            )
            .await,
        404,
        "feature_not_found",
    );
    assert_error(
        &server.call_as("GET", "/taxonomies/brand", &key, None).await,
        404,
        "taxonomy_not_found",
    );
    assert_error(
        &server
            .call_as(
                "POST",
                "/taxonomies",
                &key,
                Some(json!({"slug": "no spaces", "name": "Bad"})),
            )
            .await,
        400,
        "invalid_request",
    );

    // Changes: a name, a parent cleared, a description.
    let dairy = ok(
        &server,
        &key,
        "PATCH",
        "/taxonomies/department/features/dairy",
        Some(json!({"name": "Dairy & eggs"})),
    )
    .await;
    assert_eq!(
        (dairy["name"].as_str(), dairy["parent"].as_str()),
        (Some("Dairy & eggs"), None)
    );
    let cheese = ok(
        &server,
        &key,
        "PATCH",
        &format!("/taxonomies/department/features/{cheese_id}"),
        Some(json!({"parent": null})),
    )
    .await;
    assert!(cheese["parent"].is_null(), "{cheese}");
    let renamed = ok(
        &server,
        &key,
        "PATCH",
        "/taxonomies/department",
        Some(json!({"name": "Departments", "description": "Aisles"})),
    )
    .await;
    assert_eq!(
        (
            renamed["slug"].as_str(),
            renamed["name"].as_str(),
            renamed["description"].as_str()
        ),
        (Some("department"), Some("Departments"), Some("Aisles"))
    );
    let listed = ok(&server, &key, "GET", "/taxonomies", None).await;
    assert_eq!(listed["taxonomies"].as_array().unwrap().len(), 1);
    assert_eq!(
        listed["taxonomies"][0]["features"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
}

#[tokio::test]
async fn a_feature_in_use_is_deleted_only_when_detached() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    let milk = ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "MILK", "name": "Milk", "features": {"department": ["dairy"]}})),
    )
    .await;

    // Carried by a Product, and the parent of cheese: refused, nothing changes.
    assert_error(
        &server
            .call_as(
                "DELETE",
                "/taxonomies/department/features/dairy",
                &key,
                None,
            )
            .await,
        409,
        "feature_in_use",
    );
    let stored = ok(
        &server,
        &key,
        "GET",
        &format!("/products/{}", milk["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(stored["features"], json!({"department": ["dairy"]}));
    assert_error(
        &server
            .call_as("DELETE", "/taxonomies/department", &key, None)
            .await,
        409,
        "taxonomy_in_use",
    );

    // Detached: taken off the Product, cheese moves up.
    let deleted = ok(
        &server,
        &key,
        "DELETE",
        "/taxonomies/department/features/dairy?detach=true",
        None,
    )
    .await;
    assert_eq!(
        (deleted["result"].as_str(), deleted["detached"].as_u64()),
        (Some("deleted"), Some(1))
    );
    let stored = ok(&server, &key, "GET", "/products/MILK?search_by=code", None).await;
    assert_eq!(stored["features"], json!({}));
    let taxonomy = ok(&server, &key, "GET", "/taxonomies/department", None).await;
    let cheese = taxonomy["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["slug"] == "cheese")
        .unwrap();
    assert!(cheese["parent"].is_null(), "{cheese}");
    assert_error(
        &server
            .call_as(
                "DELETE",
                "/taxonomies/department/features/dairy",
                &key,
                None,
            )
            .await,
        404,
        "feature_not_found",
    );

    // A feature nothing uses goes at once; the whole taxonomy with detach.
    ok(
        &server,
        &key,
        "DELETE",
        "/taxonomies/department/features/bakery",
        None,
    )
    .await;
    ok(
        &server,
        &key,
        "PATCH",
        "/products/MILK?search_by=code",
        Some(json!({"features": {"department": ["cheese"]}})),
    )
    .await;
    let deleted = ok(
        &server,
        &key,
        "DELETE",
        "/taxonomies/department?detach=true",
        None,
    )
    .await;
    assert_eq!(deleted["detached"], 1);
    let stored = ok(&server, &key, "GET", "/products/MILK?search_by=code", None).await;
    assert_eq!(stored["features"], json!({}));
    assert_error(
        &server
            .call_as("GET", "/taxonomies/department", &key, None)
            .await,
        404,
        "taxonomy_not_found",
    );
    // Its features went with it: a Product may not name them.
    assert_error(
        &server
            .call_as(
                "PATCH",
                "/products/MILK?search_by=code",
                &key,
                Some(json!({"features": {"department": ["cheese"]}})),
            )
            .await,
        422,
        "unknown_feature",
    );
}

#[tokio::test]
async fn location_taxonomies_are_their_own_set() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    // The same slug among Location taxonomies is another taxonomy.
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies",
        Some(json!({"slug": "department", "name": "Store department"})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies",
        Some(json!({"slug": "region", "name": "Region"})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies/region/features",
        Some(json!({"slug": "north", "name": "North"})),
    )
    .await;
    let listed = ok(&server, &key, "GET", "/locations/taxonomies", None).await;
    let slugs: Vec<&str> = listed["taxonomies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["slug"].as_str().unwrap())
        .collect();
    assert_eq!(slugs, vec!["department", "region"]);
    assert_eq!(listed["taxonomies"][0]["features"], json!([]));
    // A product feature is no Location feature.
    assert_error(
        &server.call_as("POST", "/locations", &key, Some(json!({"code": "S1", "name": "Centre", "country": "ES", "features": {"department": ["dairy"]}}))).await,
        422, "unknown_feature",
    );
    // Location features are never about discounts.
    assert_error(
        &server
            .call_as(
                "POST",
                "/locations/taxonomies/region/features",
                &key,
                Some(json!({"slug": "south", "name": "South", "discountable": false})),
            )
            .await,
        400,
        "invalid_request",
    );
    ok(
        &server,
        &key,
        "PATCH",
        "/locations/taxonomies/region/features/north",
        Some(json!({"name": "The North"})),
    )
    .await;
    ok(
        &server,
        &key,
        "DELETE",
        "/locations/taxonomies/department",
        None,
    )
    .await;
    assert_error(
        &server
            .call_as("GET", "/locations/taxonomies/department", &key, None)
            .await,
        404,
        "taxonomy_not_found",
    );
    // The product taxonomy of that slug is still there.
    ok(&server, &key, "GET", "/taxonomies/department", None).await;
}

#[tokio::test]
async fn another_companys_master_data_is_not_found() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    let milk = ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "MILK", "name": "Milk"})),
    )
    .await;
    let store = ok(
        &server,
        &key,
        "POST",
        "/locations",
        Some(json!({"code": "S1", "name": "Centre", "country": "es"})),
    )
    .await;
    let other = server.company_with_key("other").await;
    let milk_path = format!("/products/{}", milk["id"].as_str().unwrap());
    let store_path = format!("/locations/{}", store["id"].as_str().unwrap());
    for (method, path, code) in [
        ("GET", milk_path.as_str(), "product_not_found"),
        ("DELETE", milk_path.as_str(), "product_not_found"),
        ("GET", "/products/MILK?search_by=code", "product_not_found"),
        ("GET", store_path.as_str(), "location_not_found"),
        ("PATCH", store_path.as_str(), "location_not_found"),
        ("GET", "/locations/S1?search_by=code", "location_not_found"),
        ("GET", "/taxonomies/department", "taxonomy_not_found"),
        ("DELETE", "/taxonomies/department", "taxonomy_not_found"),
        (
            "DELETE",
            "/taxonomies/department/features/dairy",
            "taxonomy_not_found",
        ),
    ] {
        let body = (method == "PATCH").then(|| json!({"name": "Mine"}));
        assert_error(&server.call_as(method, path, &other, body).await, 404, code);
    }
    // Its own catalogue may reuse the codes and slugs.
    ok(
        &server,
        &other,
        "POST",
        "/products",
        Some(json!({"code": "MILK", "name": "Other milk"})),
    )
    .await;
    ok(
        &server,
        &other,
        "POST",
        "/taxonomies",
        Some(json!({"slug": "department", "name": "Department"})),
    )
    .await;
    // And the first Company's are untouched.
    let stored = ok(&server, &key, "GET", &milk_path, None).await;
    assert_eq!(stored["name"], "Milk");
}
