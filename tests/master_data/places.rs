//! Where campaigns run, resolved through the Locations: campaign
//! `locations` by code or `taxonomy:feature`, Instant Win
//! `countries` against the Location's country (else the Customer's),
//! Coupon `locations` and exclusions through the catalogue, and stores
//! named by a Location's id in queries.

use super::*;

/// Points at northern stores; an Instant Win in Portugal only; a Coupon
/// usable in the north, never on bakery or on the product `GIFT`.
const FILES: [(&str, &str); 4] = [
    (
        "north.yaml",
        "id: 501\nkind: points\nname: North\non: cart\nlocations: [\"region:north\", LIS]\npoints: { fixed: 5 }\n",
    ),
    (
        "portugal.yaml",
        "id: 502\nkind: instant_win\nname: Portugal\non: cart\nselect_customers: loyalty\nonce: campaign\nonce_limit: 100\ncountries: [pt]\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n",
    ),
    (
        "coupon.yaml",
        "id: 503\nkind: coupon\nname: North ten\nlocations: [\"region:north\"]\ncoupon:\n  discount: { percent: 10 }\n  static_code: NORTH10\n  excluded_products: [GIFT]\n  excluded_categories: [\"department:bakery\"]\n",
    ),
    (
        "lisbon-draw.yaml",
        "id: 504\nkind: instant_win\nname: Lisbon\non: cart\nselect_customers: loyalty\nonce: campaign\nonce_limit: 100\nlocations: [LIS]\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n",
    ),
];

/// Regions, departments, three stores and three Products.
async fn catalogue(server: &TestServer, key: &CreatedApiKey) -> Value {
    departments(server, key).await;
    let post = |path: &'static str, body: Value| ok(server, key, "POST", path, Some(body));
    post(
        "/locations/taxonomies",
        json!({"slug": "region", "name": "Region"}),
    )
    .await;
    post(
        "/locations/taxonomies/region/features",
        json!({"slug": "north", "name": "North"}),
    )
    .await;
    let bilbao = post("/locations", json!({"code": "BIL", "name": "Bilbao", "country": "ES", "features": {"region": ["north"]}})).await;
    post(
        "/locations",
        json!({"code": "SEV", "name": "Sevilla", "country": "ES"}),
    )
    .await;
    post(
        "/locations",
        json!({"code": "LIS", "name": "Lisboa", "country": "PT", "time_zone": "Europe/Lisbon"}),
    )
    .await;
    post(
        "/products",
        json!({"code": "MILK", "name": "Milk", "features": {"department": ["dairy"]}}),
    )
    .await;
    post(
        "/products",
        json!({"code": "BREAD", "name": "Bread", "features": {"department": ["bakery"]}}),
    )
    .await;
    post(
        "/products",
        json!({"code": "GIFT", "name": "Gift card", "aliases": ["EAN-GIFT"]}),
    )
    .await;
    bilbao
}

/// A cart at `location` with explain; its answer.
async fn cart_at(
    server: &TestServer,
    key: &CreatedApiKey,
    customer: &str,
    code: &str,
    location: Option<&str>,
    coupons: &[&str],
) -> Value {
    ok(
        server,
        key,
        "POST",
        "/carts/realtime?explain=true",
        Some(json!({
            "customer_id": customer, "code": code, "location_code": location,
            "coupons_desired": coupons,
            "lines": [
                {"product_code": "MILK", "quantity": 1, "price": 10.0},
                {"product_code": "BREAD", "quantity": 1, "price": 5.0},
                {"product_code": "EAN-GIFT", "quantity": 1, "price": 20.0}
            ]
        })),
    )
    .await
}

/// The rule ids of the effects of `answer`, by type.
fn rules_of(answer: &Value, kind: &str) -> Vec<i64> {
    answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .map(|e| e["rule_id"].as_i64().unwrap())
        .collect()
}

/// Why campaign `rule_id` did not apply to `answer`.
fn reason(answer: &Value, rule_id: i64) -> String {
    answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == rule_id)
        .and_then(|e| e["reason"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn campaigns_run_where_their_locations_say() {
    let (server, _dir) = server_with(&FILES, "2026-11-23T10:00:00Z").await;
    let key = server.bootstrap_key();
    catalogue(&server, &key).await;
    let created = ok(
        &server,
        &key,
        "POST",
        "/customers",
        Some(json!({"email": "ana@example.com", "country": "PT"})),
    )
    .await;
    let ana = created["id"].as_str().unwrap().to_string();

    // Bilbao is in the north; Lisbon is listed by code.
    let bilbao = cart_at(&server, &key, &ana, "T1", Some("BIL"), &[]).await;
    assert_eq!(rules_of(&bilbao, "points"), [501]);
    let lisbon = cart_at(&server, &key, &ana, "T2", Some("LIS"), &[]).await;
    assert_eq!(rules_of(&lisbon, "points"), [501]);
    let seville = cart_at(&server, &key, &ana, "T3", Some("SEV"), &[]).await;
    assert!(rules_of(&seville, "points").is_empty(), "{seville}");
    assert!(
        reason(&seville, 501).contains("location `SEV` is not one of its locations"),
        "{}",
        reason(&seville, 501)
    );
    assert!(
        reason(&seville, 504).contains("not one of its locations"),
        "{}",
        reason(&seville, 504)
    );

    // Portugal's draw: the Location's country, else the Customer's.
    assert_eq!(rules_of(&lisbon, "instant_win"), [502, 504]);
    assert!(
        reason(&bilbao, 502).contains("not in ES"),
        "{}",
        reason(&bilbao, 502)
    );
    let online = cart_at(&server, &key, &ana, "T4", None, &[]).await;
    assert_eq!(rules_of(&online, "instant_win"), [502]);

    // A store named by its Location id in a query is that Location.
    let bilbao_id = server_location_id(&server, &key, "BIL").await;
    let listed = ok(
        &server,
        &key,
        "GET",
        &format!("/instant_wins?location_id={bilbao_id}"),
        None,
    )
    .await;
    let ids: Vec<i64> = listed["instant_wins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|iw| iw["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [502], "Lisbon's draw is not listed at Bilbao");
    assert_error(
        &server
            .call_as(
                "GET",
                &format!("/instant_wins?location_id={bilbao_id}&location_code=LIS"),
                &key,
                None,
            )
            .await,
        404,
        "location_not_found",
    );
    ok(
        &server,
        &key,
        "GET",
        &format!("/instant_wins?location_id={bilbao_id}&location_code=BIL"),
        None,
    )
    .await;
}

/// The id of the Location whose code is `code`.
async fn server_location_id(server: &TestServer, key: &CreatedApiKey, code: &str) -> String {
    let location = ok(
        server,
        key,
        "GET",
        &format!("/locations/{code}?search_by=code"),
        None,
    )
    .await;
    location["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_coupon_is_used_where_its_locations_say_and_never_on_what_it_excludes() {
    let (server, _dir) = server_with(&FILES, "2026-11-23T10:00:00Z").await;
    let key = server.bootstrap_key();
    catalogue(&server, &key).await;
    let created = ok(
        &server,
        &key,
        "POST",
        "/customers",
        Some(json!({"email": "ana@example.com"})),
    )
    .await;
    let ana = created["id"].as_str().unwrap().to_string();

    // Validating at a store (nothing used): in the north, and refused in
    // Seville.
    let validate = |location: &'static str| {
        let path = format!("/vouchers/NORTH10?customer_id={ana}&location_code={location}");
        let (server, key) = (&server, &key);
        async move { server.call_as("GET", &path, key, None).await }
    };
    assert_eq!(validate("BIL").await.0, 200);
    assert_error(&validate("SEV").await, 422, "voucher_out_location");

    let seville = cart_at(&server, &key, &ana, "T1", Some("SEV"), &["NORTH10"]).await;
    let rejected: Vec<&Value> = seville["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "voucher_rejected")
        .collect();
    assert_eq!(rejected.len(), 1, "{seville}");
    assert_eq!(rejected[0]["code"], "voucher_out_location", "{seville}");

    // In Bilbao it takes 10% of the milk only: the bread (by its feature)
    // and the gift card (sent by its alias) are excluded.
    let bilbao = cart_at(&server, &key, &ana, "T2", Some("BIL"), &["NORTH10"]).await;
    let taken: Vec<(i64, f64)> = bilbao["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "voucher")
        .map(|e| {
            (
                e["line"].as_i64().unwrap_or(0),
                e["value"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(taken, [(1, 1.0)], "{bilbao}");
}
