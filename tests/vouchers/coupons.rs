//! Coupons through the API: created, read, changed and deleted; a Coupon
//! file read but changed only in its file; bad Coupons refused creating
//! nothing; each Company's own; concurrent changes never lost silently.

use super::*;

#[tokio::test]
async fn a_coupon_is_created_read_changed_and_deleted_through_the_api() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let coupon = create_coupon(
        &server,
        &key,
        json!({
            "name": {"en": "Five off", "es": "Cinco menos"},
            "discount": {"amount": 5.5},
            "code_pattern": "FIVE-#####",
            "valid_from": "2026-01-01T00:00:00Z",
            "valid_to": "2026-12-31T23:59:59Z",
            "locations": ["S1"],
            "excluded_products": ["GIFTCARD"],
            "excluded_categories": ["tobacco"],
            "uses_per_voucher": 2,
            "weekdays": ["saturday", "sunday"],
            "hours": {"from": "09:00", "to": "13:30"},
        }),
    )
    .await;
    let id = coupon["id"].as_i64().unwrap();
    assert!(id >= 1_000_000, "{coupon}");
    assert_eq!(coupon["source"], "api");
    assert_eq!(coupon["name"], "Five off");
    assert_eq!(coupon["discount"], json!({"amount": 5.5}));
    assert_eq!(coupon["code_pattern"], "FIVE-#####");
    assert_eq!(coupon["uses_per_voucher"], 2);
    assert_eq!(coupon["weekdays"], json!(["saturday", "sunday"]));
    assert_eq!(coupon["hours"], json!({"from": "09:00", "to": "13:30"}));
    assert_eq!(coupon["valid_to"], "2026-12-31T23:59:59Z");

    let (status, read) = server.get_as(&format!("/coupons/{id}"), &key).await;
    assert_eq!((status, &read), (200, &coupon));
    let (status, list) = server.get_as("/coupons", &key).await;
    assert_eq!(status, 200, "{list}");
    let ids: Vec<i64> = list["coupons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![601, id], "the file's Coupon and the API's, by id");

    // A change replaces the fields sent; a static code replaces the pattern.
    let (status, changed) = server
        .call_as(
            "PATCH",
            &format!("/coupons/{id}"),
            &key,
            Some(json!({"static_code": "FIVEOFF", "discount": {"percent": 15}})),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["static_code"], "FIVEOFF");
    assert!(changed.get("code_pattern").is_none(), "{changed}");
    assert_eq!(changed["discount"], json!({"percent": 15.0}));
    assert_eq!(changed["uses_per_voucher"], 2, "kept: {changed}");
    assert_eq!(changed["locations"], json!(["S1"]));

    let (status, deleted) = server
        .call_as("DELETE", &format!("/coupons/{id}"), &key, None)
        .await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted, json!({"id": id, "result": "deleted"}));
    let (status, gone) = server.get_as(&format!("/coupons/{id}"), &key).await;
    assert_error(status, &gone, 404, "coupon_not_found");
    let (status, again) = server
        .call_as("DELETE", &format!("/coupons/{id}"), &key, None)
        .await;
    assert_error(status, &again, 404, "coupon_not_found");
    // Its id is never given again.
    let next = create_coupon(
        &server,
        &key,
        json!({"name": "Next", "discount": {"percent": 5}}),
    )
    .await;
    assert!(next["id"].as_i64().unwrap() > id, "{next}");
}

#[tokio::test]
async fn a_coupon_file_is_read_through_the_api_and_changed_only_in_its_file() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let (status, coupon) = server.call_as("GET", "/coupons/601", &key, None).await;
    assert_eq!(status, 200, "{coupon}");
    assert_eq!(coupon["source"], "file");
    assert_eq!(coupon["static_code"], "SUMMER10");
    assert_eq!(
        coupon["discount"],
        json!({"percent": 10.0, "max_amount": 20.0})
    );
    assert_eq!(coupon["excluded_categories"], json!(["tobacco"]));
    for method in ["PATCH", "DELETE"] {
        let body = (method == "PATCH").then(|| json!({"name": "Mine now"}));
        let (status, refused) = server.call_as(method, "/coupons/601", &key, body).await;
        assert_error(status, &refused, 403, "forbidden_request");
    }
    // Another kind's id is no Coupon.
    let (status, refused) = server.get_as("/coupons/101", &key).await;
    assert_error(status, &refused, 404, "coupon_not_found");
}

#[tokio::test]
async fn every_bad_coupon_is_refused_with_why_and_creates_nothing() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let bad = [
        (json!({"discount": {"percent": 10}}), "name"),
        (json!({"name": "X"}), "discount"),
        (json!({"name": "X", "discount": {}}), "exactly one"),
        (
            json!({"name": "X", "discount": {"percent": 10, "amount": 2}}),
            "exactly one",
        ),
        (
            json!({"name": "X", "discount": {"percent": 101}}),
            "percent",
        ),
        (json!({"name": "X", "discount": {"amount": -1}}), "amount"),
        (
            json!({"name": "X", "discount": {"amount": 5.555}}),
            "`discount.amount` 5.555 has more than 2 decimals",
        ),
        (
            json!({"name": "X", "discount": {"amount": "5"}}),
            "`discount.amount`",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5, "max_amount": 0}}),
            "max_amount",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "static_code": "A", "code_pattern": "A-###"}),
            "not both",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "static_code": "50%"}),
            "static_code",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "code_pattern": "NONE"}),
            "code_pattern",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "charset": "0O12"}),
            "read the same",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "uses_per_voucher": 0}),
            "uses_per_voucher",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "weekdays": ["funday"]}),
            "weekdays",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "hours": {"from": "18:00", "to": "09:00"}}),
            "before",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "valid_from": "2026-02-01T00:00:00Z", "valid_to": "2026-01-01T00:00:00Z"}),
            "before",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "when": "no_such_thing > 1"}),
            "no_such_thing",
        ),
        (
            json!({"name": "X", "discount": {"percent": 5}, "colour": "red"}),
            "colour",
        ),
    ];
    for (body, said) in bad {
        let (status, refused) = server
            .call_as("POST", "/coupons", &key, Some(body.clone()))
            .await;
        assert_error(status, &refused, 400, "invalid_request");
        assert!(
            refused["error"].as_str().unwrap().contains(said),
            "{body}: {refused}"
        );
    }
    let (_, list) = server.get_as("/coupons", &key).await;
    assert_eq!(
        list["coupons"].as_array().unwrap().len(),
        1,
        "only the file's: {list}"
    );
    // The first API Coupon still gets the first id: refusals used none up.
    let first = create_coupon(
        &server,
        &key,
        json!({"name": "A", "discount": {"percent": 5}}),
    )
    .await;
    assert_eq!(first["id"], 1_000_000);
    // A change is checked like a new Coupon, and a refused one changes nothing.
    let (status, refused) = server
        .call_as(
            "PATCH",
            "/coupons/1000000",
            &key,
            Some(json!({"discount": {"percent": 500}})),
        )
        .await;
    assert_error(status, &refused, 400, "invalid_request");
    let (_, read) = server.get_as("/coupons/1000000", &key).await;
    assert_eq!(read, first);
    for path in ["/coupons/999", "/coupons/abc"] {
        let (status, refused) = server
            .call_as("PATCH", path, &key, Some(json!({"name": "Y"})))
            .await;
        assert_error(status, &refused, 404, "coupon_not_found");
    }
}

#[tokio::test]
async fn coupons_are_each_companys_own() {
    let server = TestServer::start().await;
    let demo = server.bootstrap_key();
    let other = server.company_with_key("other").await;
    let coupon = create_coupon(
        &server,
        &demo,
        json!({"name": "A", "discount": {"percent": 5}}),
    )
    .await;
    let path = format!("/coupons/{}", coupon["id"]);
    let (status, refused) = server.get_as(&path, &other).await;
    assert_error(status, &refused, 404, "coupon_not_found");
    let (status, refused) = server.call_as("DELETE", &path, &other, None).await;
    assert_error(status, &refused, 404, "coupon_not_found");
    let (status, still) = server.get_as(&path, &demo).await;
    assert_eq!(status, 200, "{still}");
}

#[tokio::test]
async fn concurrent_changes_of_one_coupon_never_lose_one_silently() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "A", "discount": {"percent": 5}}),
    )
    .await;
    let path = format!("/coupons/{}", coupon["id"]);
    let requests = (1..=8)
        .map(|n| {
            server
                .request_as("PATCH", &path, &key)
                .json(&json!({"uses_per_voucher": n}))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let applied: Vec<i64> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .map(|(_, body)| body["uses_per_voucher"].as_i64().unwrap())
        .collect();
    for (status, body) in &answers {
        assert!(
            *status == 200 || (*status == 409 && body["code"] == "concurrent_modification"),
            "{status} {body}"
        );
    }
    assert!(!applied.is_empty());
    // What is stored is one of the changes that were answered 200.
    let (_, read) = server.get_as(&path, &key).await;
    assert!(
        applied.contains(&read["uses_per_voucher"].as_i64().unwrap()),
        "{read} {applied:?}"
    );
}
