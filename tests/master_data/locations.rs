//! Locations: created in a time zone (the Company's by default), read by id
//! or code, changed and deleted; bad input refused and changing nothing.

use super::*;

#[tokio::test]
async fn a_location_is_read_by_id_or_code_and_has_a_time_zone() {
    let server = TestServer::start().await;
    let key = server.company_in_zone("madrid", "Europe/Madrid").await;
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
    let created = ok(
        &server,
        &key,
        "POST",
        "/locations",
        Some(json!({
            "code": "S1", "name": "Centre", "country": "es",
            "address": {"line1": "Gran Vía 1", "city": "Madrid", "postal_code": "28013"},
            "coordinates": {"latitude": 40.42, "longitude": -3.70},
            "features": {"region": ["north"]}
        })),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("loc_"), "{created}");
    assert_eq!(
        (
            &created["country"],
            &created["time_zone"],
            &created["features"]
        ),
        (
            &json!("ES"),
            &json!("Europe/Madrid"),
            &json!({"region": ["north"]})
        )
    );
    assert_eq!(
        ok(&server, &key, "GET", &format!("/locations/{id}"), None).await,
        created
    );
    assert_eq!(
        ok(&server, &key, "GET", "/locations/S1?search_by=code", None).await,
        created
    );

    for (body, status, code) in [
        (
            json!({"code": "S1", "name": "Again", "country": "ES"}),
            409,
            "location_already_exists",
        ),
        (
            json!({"code": "S2", "name": "X", "country": "ES", "time_zone": "Mars/Olympus"}),
            400,
            "invalid_request",
        ),
        (
            json!({"code": "S2", "name": "X", "country": "ESP"}),
            400,
            "invalid_request",
        ),
        (
            json!({"code": "S2", "name": "X", "country": "ES", "coordinates": {"latitude": 91, "longitude": 0}}),
            400,
            "invalid_request",
        ),
        (
            json!({"code": "S2", "name": "X", "country": "ES", "features": {"region": ["south"]}}),
            422,
            "unknown_feature",
        ),
    ] {
        assert_error(
            &server.call_as("POST", "/locations", &key, Some(body)).await,
            status,
            code,
        );
    }
    assert_error(
        &server
            .call_as("GET", "/locations/S2?search_by=code", &key, None)
            .await,
        404,
        "location_not_found",
    );

    let changed = ok(
        &server,
        &key,
        "PATCH",
        "/locations/S1?search_by=code",
        Some(json!({
            "time_zone": "Atlantic/Canary", "address": null, "features": {}
        })),
    )
    .await;
    assert_eq!(
        (
            &changed["time_zone"],
            &changed["address"],
            &changed["features"],
            &changed["coordinates"]["latitude"]
        ),
        (
            &json!("Atlantic/Canary"),
            &Value::Null,
            &json!({}),
            &json!(40.42)
        )
    );
    ok(&server, &key, "DELETE", &format!("/locations/{id}"), None).await;
    assert_error(
        &server
            .call_as("GET", &format!("/locations/{id}"), &key, None)
            .await,
        404,
        "location_not_found",
    );
    ok(
        &server,
        &key,
        "POST",
        "/locations",
        Some(json!({"code": "S1", "name": "New centre", "country": "ES"})),
    )
    .await;
}
