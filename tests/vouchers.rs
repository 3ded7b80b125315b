//! Discounts, Coupons and Vouchers over HTTP: Coupons from files and through
//! the API (created, read, changed, deleted), every refusal changing nothing.

#[path = "vouchers/bulk.rs"]
mod bulk;
#[path = "vouchers/carts.rs"]
mod carts;
mod common;
#[path = "vouchers/discounts.rs"]
mod discounts;
#[path = "vouchers/earned.rs"]
mod earned;
#[path = "vouchers/guesses.rs"]
mod guesses;
#[path = "vouchers/holders.rs"]
mod holders;
#[path = "vouchers/lifecycle.rs"]
mod lifecycle;
#[path = "vouchers/limits.rs"]
mod limits;
#[path = "vouchers/stacking.rs"]
mod stacking;
#[path = "vouchers/static_codes.rs"]
mod static_codes;

use common::{TestServer, all_at_once};
use loyalty::resources::companies::model::CreatedApiKey;
use serde_json::{Value, json};

fn assert_error(status: u16, body: &Value, expected_status: u16, code: &str) {
    assert_eq!(
        (status, body["code"].as_str()),
        (expected_status, Some(code)),
        "{body}"
    );
    assert!(body["error"].is_string(), "{body}");
}

async fn create_coupon(server: &TestServer, key: &CreatedApiKey, body: Value) -> Value {
    let (status, coupon) = server.call_as("POST", "/coupons", key, Some(body)).await;
    assert_eq!(status, 200, "{coupon}");
    coupon
}

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

async fn customer(server: &TestServer, key: &CreatedApiKey, email: &str) -> String {
    let (status, customer) = server
        .call_as("POST", "/customers", key, Some(json!({"email": email})))
        .await;
    assert_eq!(status, 200, "{customer}");
    customer["id"].as_str().unwrap().to_string()
}

async fn trigger(
    server: &TestServer,
    key: &CreatedApiKey,
    customer: &str,
    coupon: &Value,
) -> Value {
    let (status, voucher) = server
        .call_as(
            "POST",
            "/discounts/trigger",
            key,
            Some(json!({"customer_id": customer, "coupon_id": coupon["id"]})),
        )
        .await;
    assert_eq!(status, 200, "{voucher}");
    voucher
}

/// The code of a Voucher of `coupon` triggered for `customer`.
async fn issued_code(
    server: &TestServer,
    key: &CreatedApiKey,
    customer: &str,
    coupon: &Value,
) -> String {
    trigger(server, key, customer, coupon).await["code"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_triggered_voucher_is_validated_by_customer_place_day_and_hour() {
    // A Saturday morning within the Coupon's month.
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({
            "name": "Weekend mornings", "discount": {"percent": 20},
            "code_pattern": "WKND-#####", "valid_from": "2026-07-01T00:00:00Z",
            "valid_to": "2026-07-31T23:59:59Z", "locations": ["S1"],
            "weekdays": ["saturday"], "hours": {"from": "09:00", "to": "13:00"},
        }),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &coupon).await;
    let code = voucher["code"].as_str().unwrap().to_string();
    assert!(code.starts_with("WKND-") && code.len() == 10, "{voucher}");
    assert_eq!(voucher["coupon_id"], coupon["id"]);
    assert_eq!(voucher["coupon_name"], "Weekend mornings");
    assert_eq!(voucher["customer_id"], ana.as_str());
    assert_eq!(voucher["state"], "active");
    assert_eq!(voucher["uses_left"], 1);
    assert_eq!(voucher["source"], "trigger");

    let validate = |query: String| {
        let server = &server;
        let key = &key;
        async move { server.get_as(&format!("/vouchers/{query}"), key).await }
    };
    // However the code is written.
    let written = code.to_lowercase().replace('-', " ");
    let (status, valid) = validate(format!("{written}?customer_id={ana}&location_code=S1")).await;
    assert_eq!((status, &valid), (200, &voucher));
    let (status, refused) = validate(format!("{code}?customer_id={bob}")).await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let (status, refused) = validate(format!("{code}?customer_code=nobody")).await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let (status, refused) = validate("NO-SUCH-CODE".into()).await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let (status, refused) = validate(format!("{code}?location_code=S2")).await;
    assert_error(status, &refused, 422, "voucher_out_location");
    for (at, expected) in [
        ("2026-07-04T14:00:00Z", "voucher_out_date"), // after its hours
        ("2026-07-05T10:00:00Z", "voucher_out_date"), // a Sunday
        ("2026-06-27T10:00:00Z", "voucher_out_date"), // a Saturday before it starts
        ("2026-08-01T10:00:00Z", "voucher_expired"),  // a Saturday after it ends
    ] {
        server.set_time(at);
        let (status, refused) = validate(code.clone()).await;
        assert_error(status, &refused, 422, expected);
    }
    server.set_time("2026-07-11T09:30:00Z");
    let (status, _) = validate(code.clone()).await;
    assert_eq!(status, 200);
    // The Coupon's state is its Vouchers'.
    let path = format!("/coupons/{}", coupon["id"]);
    let (status, _) = server
        .call_as("PATCH", &path, &key, Some(json!({"active": false})))
        .await;
    assert_eq!(status, 200);
    let (status, refused) = validate(code.clone()).await;
    assert_error(status, &refused, 422, "voucher_inactive");
    let (_, listed) = server
        .get_as(&format!("/vouchers?customer_id={ana}"), &key)
        .await;
    assert_eq!(listed["vouchers"][0]["state"], "inactive", "{listed}");
    let (status, _) = server.call_as("DELETE", &path, &key, None).await;
    assert_eq!(status, 200);
    let (status, refused) = validate(code.clone()).await;
    assert_error(status, &refused, 422, "voucher_deleted");
    let (_, listed) = server
        .get_as(&format!("/vouchers?customer_id={ana}"), &key)
        .await;
    assert_eq!(listed["vouchers"][0]["state"], "deleted", "{listed}");
}

#[tokio::test]
async fn a_trigger_that_cannot_issue_is_refused_and_issues_nothing() {
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let post = |body: Value| {
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", "/discounts/trigger", key, Some(body))
                .await
        }
    };
    let (status, refused) = post(json!({"customer_id": ana, "coupon_id": 999})).await;
    assert_error(status, &refused, 404, "coupon_not_found");
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "A", "discount": {"percent": 5}}),
    )
    .await;
    let (status, refused) =
        post(json!({"customer_id": "cus_nobody", "coupon_id": coupon["id"]})).await;
    assert_error(status, &refused, 404, "customer_not_found");
    let (status, refused) = post(json!({"coupon_id": coupon["id"]})).await;
    assert_error(status, &refused, 400, "invalid_request");
    let (status, refused) = post(json!({"customer_id": " ", "coupon_id": coupon["id"]})).await;
    assert_error(status, &refused, 400, "invalid_request");
    let over = create_coupon(
        &server,
        &key,
        json!({"name": "Over", "discount": {"percent": 5}, "valid_to": "2026-07-01T00:00:00Z"}),
    )
    .await;
    let (status, refused) = post(json!({"customer_id": ana, "coupon_id": over["id"]})).await;
    assert_error(status, &refused, 422, "voucher_expired");
    let path = format!("/coupons/{}", coupon["id"]);
    server
        .call_as("PATCH", &path, &key, Some(json!({"active": false})))
        .await;
    let (status, refused) = post(json!({"customer_id": ana, "coupon_id": coupon["id"]})).await;
    assert_error(status, &refused, 422, "voucher_inactive");
    let (_, listed) = server
        .get_as(&format!("/vouchers?customer_id={ana}"), &key)
        .await;
    assert_eq!(listed["vouchers"], json!([]), "{listed}");
}

#[tokio::test]
async fn a_coupon_whose_codes_ran_out_refuses_with_voucher_code_taken() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    // Two codes in all: `XA` and `XB`.
    let tiny = create_coupon(
        &server,
        &key,
        json!({"name": "Tiny", "discount": {"percent": 5}, "code_pattern": "X#", "charset": "AB"}),
    )
    .await;
    let mut issued = Vec::new();
    for n in 0..8 {
        let holder = customer(&server, &key, &format!("t{n}@example.com")).await;
        let (status, answer) = server
            .call_as(
                "POST",
                "/discounts/trigger",
                &key,
                Some(json!({"customer_id": holder, "coupon_id": tiny["id"]})),
            )
            .await;
        match status {
            200 => issued.push(answer["code"].as_str().unwrap().to_string()),
            _ => assert_error(status, &answer, 409, "voucher_code_taken"),
        }
    }
    issued.sort();
    assert_eq!(issued, ["XA", "XB"], "each code once, then refusals");
}

#[tokio::test]
async fn concurrent_triggers_each_issue_a_voucher_of_its_own_code() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    // A small keyspace (9^3 = 729 codes) makes collisions likely; each is
    // drawn again.
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "A", "discount": {"percent": 5}, "code_pattern": "X-###", "charset": "23456789A"}),
    )
    .await;
    let requests = (0..24)
        .map(|_| {
            server
                .request_as("POST", "/discounts/trigger", &key)
                .json(&json!({"customer_id": ana, "coupon_id": coupon["id"]}))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let mut codes: Vec<String> = answers
        .iter()
        .map(|(status, body)| {
            assert_eq!(*status, 200, "{body}");
            body["code"].as_str().unwrap().to_string()
        })
        .collect();
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), 24);
    // Listed in pages, each Voucher once.
    let listed = server
        .every_page(
            &key,
            &format!("/vouchers?customer_id={ana}"),
            "vouchers",
            10,
        )
        .await;
    let mut seen: Vec<String> = listed
        .iter()
        .map(|voucher| voucher["code"].as_str().unwrap().to_string())
        .collect();
    seen.sort();
    assert_eq!(seen, codes);
    let (_, other) = server.get_as("/vouchers?coupon_id=601", &key).await;
    assert_eq!(other["vouchers"], json!([]));
}

#[tokio::test]
async fn vouchers_are_redeemed_all_or_none_and_rolled_back_once() {
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Two uses", "discount": {"amount": 5}, "uses_per_voucher": 2, "locations": ["S1"]}),
    )
    .await;
    let first = trigger(&server, &key, &ana, &coupon).await;
    let second = trigger(&server, &key, &ana, &coupon).await;
    let bobs = trigger(&server, &key, &bob, &coupon).await;
    let (first_code, second_code) = (
        first["code"].as_str().unwrap().to_string(),
        second["code"].as_str().unwrap().to_string(),
    );
    let redeem = |body: Value| {
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", "/vouchers/redeem", key, Some(body))
                .await
        }
    };
    // One code of the list cannot be used: nothing is redeemed, and the
    // refusal names each failing code.
    let (status, refused) = redeem(json!({
        "customer_id": ana, "location_code": "S1",
        "codes": [first_code, bobs["code"], "NOPE-0000"],
    }))
    .await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let errors = refused["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{refused}");
    assert_eq!(errors[0]["voucher_code"], bobs["code"]);
    assert_eq!(errors[1]["voucher_code"], "NOPE-0000");
    assert!(
        errors.iter().all(|e| e["code"] == "voucher_not_found"),
        "{refused}"
    );
    let (status, refused) = redeem(json!({"customer_id": ana, "codes": [first_code]})).await;
    assert_error(status, &refused, 422, "voucher_out_location");
    let (status, refused) = redeem(json!({
        "customer_id": ana, "location_code": "S1", "codes": [first_code, first_code.to_lowercase()],
    }))
    .await;
    assert_error(status, &refused, 400, "invalid_request");
    let (_, unchanged) = server
        .get_as(&format!("/vouchers/{first_code}"), &key)
        .await;
    assert_eq!(unchanged["uses_left"], 2, "nothing was used: {unchanged}");

    let (status, redeemed) = redeem(json!({
        "customer_id": ana, "location_code": "S1", "cart_code": "T-1", "codes": [first_code, second_code],
    }))
    .await;
    assert_eq!(status, 200, "{redeemed}");
    let redemptions = redeemed["redemptions"].as_array().unwrap();
    assert_eq!(redemptions.len(), 2);
    assert_eq!(redemptions[0]["voucher_code"], first_code.as_str());
    assert_eq!(redemptions[0]["cart_code"], "T-1");
    assert_eq!(redeemed["vouchers"][0]["uses_left"], 1);
    let (status, _) =
        redeem(json!({"customer_id": ana, "location_code": "S1", "codes": [first_code]})).await;
    assert_eq!(status, 200);
    let (status, refused) =
        redeem(json!({"customer_id": ana, "location_code": "S1", "codes": [first_code]})).await;
    assert_error(status, &refused, 422, "voucher_redeemed");
    let (_, spent) = server
        .get_as(&format!("/vouchers?customer_id={ana}"), &key)
        .await;
    assert_eq!(spent["vouchers"][0]["state"], "redeemed", "{spent}");

    // Rolled back by code: its latest use returns, once.
    let rollback = |body: Value| {
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", "/vouchers/rollback", key, Some(body))
                .await
        }
    };
    let (status, rolled) = rollback(json!({"customer_id": ana, "codes": [first_code]})).await;
    assert_eq!(status, 200, "{rolled}");
    assert!(
        rolled["redemptions"][0]["rolled_back_at"].is_string(),
        "{rolled}"
    );
    let (_, back) = server
        .get_as(&format!("/vouchers/{first_code}"), &key)
        .await;
    assert_eq!(
        (back["state"].as_str(), back["uses_left"].as_i64()),
        (Some("active"), Some(1))
    );
    // By id: the first redemption, then never again.
    let first_use = redemptions[0]["redemption_id"].as_str().unwrap();
    let (status, rolled) = rollback(json!({"redemption_ids": [first_use]})).await;
    assert_eq!(status, 200, "{rolled}");
    let (status, refused) = rollback(json!({"redemption_ids": [first_use]})).await;
    assert_error(status, &refused, 422, "voucher_not_redeemed");
    let (status, refused) = rollback(json!({"customer_id": ana, "codes": [first_code]})).await;
    assert_error(status, &refused, 422, "voucher_not_redeemed");
    let (_, back) = server
        .get_as(&format!("/vouchers/{first_code}"), &key)
        .await;
    assert_eq!(
        back["uses_left"], 2,
        "each use returned exactly once: {back}"
    );
    let (status, refused) = rollback(json!({"redemption_ids": ["rdm_nothing"]})).await;
    assert_error(status, &refused, 404, "redemption_not_found");
    let (status, refused) = rollback(json!({"customer_id": bob, "codes": [second_code]})).await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let (status, refused) = rollback(json!({"codes": [second_code]})).await;
    assert_error(status, &refused, 400, "invalid_request");
    let (status, refused) = rollback(json!({"customer_id": ana})).await;
    assert_error(status, &refused, 400, "invalid_request");

    // A retried rollback with its Idempotency-Key replays the first answer.
    let second_use = redemptions[1]["redemption_id"].as_str().unwrap();
    let retried = || {
        server
            .request_as("POST", "/vouchers/rollback", &key)
            .header("Idempotency-Key", "rollback-1")
            .json(&json!({"redemption_ids": [second_use]}))
    };
    let (status, answer) = server.send(retried()).await;
    assert_eq!(status, 200, "{answer}");
    let (status, replayed) = server.send(retried()).await;
    assert_eq!((status, &replayed), (200, &answer));
}

#[tokio::test]
async fn concurrent_rollbacks_by_code_give_back_each_use_once() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Four", "discount": {"percent": 5}, "uses_per_voucher": 4}),
    )
    .await;
    let code = issued_code(&server, &key, &ana, &coupon).await;
    let body = json!({"customer_id": ana, "codes": [code]});
    for _ in 0..4 {
        let (status, used) = server
            .call_as("POST", "/vouchers/redeem", &key, Some(body.clone()))
            .await;
        assert_eq!(status, 200, "{used}");
    }
    let requests = (0..6)
        .map(|_| {
            server
                .request_as("POST", "/vouchers/rollback", &key)
                .json(&body)
        })
        .collect();
    let answers = all_at_once(requests).await;
    let given_back: Vec<String> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .map(|(_, answer)| {
            answer["redemptions"][0]["redemption_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(given_back.len(), 4, "each use once: {answers:?}");
    let distinct: std::collections::HashSet<&String> = given_back.iter().collect();
    assert_eq!(distinct.len(), 4, "{given_back:?}");
    for (status, answer) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(*status, answer, 422, "voucher_not_redeemed");
    }
    let (_, read) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_eq!(read["uses_left"], 4, "{read}");
}

#[tokio::test]
async fn a_single_use_voucher_is_used_once_whatever_the_race() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Once", "discount": {"percent": 10}}),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &coupon).await;
    let code = voucher["code"].as_str().unwrap();
    let requests = (0..64)
        .map(|n| {
            // The same code, written in as many ways as tills write it.
            let written = if n % 2 == 0 {
                code.to_string()
            } else {
                code.to_lowercase()
            };
            server
                .request_as("POST", "/vouchers/redeem", &key)
                .json(&json!({"customer_id": ana, "codes": [written]}))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let won = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(won, 1, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(*status, body, 422, "voucher_redeemed");
        assert_eq!(
            body["errors"][0]["voucher_code"]
                .as_str()
                .map(str::to_uppercase),
            Some(code.to_string())
        );
    }
    let (_, after) = server.get_as(&format!("/vouchers/{code}"), &key).await;
    assert_error(422, &after, 422, "voucher_redeemed");
}

#[tokio::test]
async fn a_customer_selects_and_deselects_vouchers_in_their_wallet() {
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "A", "discount": {"percent": 5}}),
    )
    .await;
    let over = create_coupon(
        &server,
        &key,
        json!({"name": "Until Monday", "discount": {"percent": 5}, "valid_to": "2026-07-06T00:00:00Z"}),
    )
    .await;
    let first = trigger(&server, &key, &ana, &coupon).await;
    let second = trigger(&server, &key, &ana, &over).await;
    let bobs = trigger(&server, &key, &bob, &coupon).await;
    let code = |v: &Value| v["code"].as_str().unwrap().to_string();
    let selected = |customer: String| {
        let server = &server;
        let key = &key;
        async move {
            let (status, body) = server
                .get_as(&format!("/customers/{customer}/vouchers/selected"), key)
                .await;
            assert_eq!(status, 200, "{body}");
            body["vouchers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["code"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert!(selected(ana.clone()).await.is_empty());
    let (status, one) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/select", code(&first)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{one}");
    let at = one["selected_at"].clone();
    assert!(at.is_string(), "{one}");
    // Selecting again keeps the first time.
    server.set_time("2026-07-04T11:00:00Z");
    let (_, again) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/select", code(&first)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(again["selected_at"], at);
    // Another's Voucher, an unknown code: the list is refused whole.
    let (status, refused) = server
        .call_as(
            "PUT",
            "/vouchers/select",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&second), code(&bobs), "NOPE-1"]})),
        )
        .await;
    assert_error(status, &refused, 404, "voucher_not_found");
    assert_eq!(refused["errors"].as_array().unwrap().len(), 2, "{refused}");
    assert_eq!(selected(ana.clone()).await, vec![code(&first)]);
    let (status, both) = server
        .call_as(
            "PUT",
            "/vouchers/select",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&second)]})),
        )
        .await;
    assert_eq!(status, 200, "{both}");
    assert_eq!(
        selected(ana.clone()).await,
        vec![code(&first), code(&second)]
    );
    // An expired Voucher is not selected, but can be deselected.
    server.set_time("2026-07-07T10:00:00Z");
    let (status, refused) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/select", code(&second)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_error(status, &refused, 422, "voucher_expired");
    let (status, gone) = server
        .call_as(
            "PUT",
            "/vouchers/deselect",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&second)]})),
        )
        .await;
    assert_eq!(status, 200, "{gone}");
    assert!(gone["vouchers"][0].get("selected_at").is_none(), "{gone}");
    let (status, _) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/deselect", code(&first)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200);
    assert!(selected(ana.clone()).await.is_empty());
    let (status, refused) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/deselect", code(&bobs)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let (status, refused) = server
        .get_as("/customers/cus_nobody/vouchers/selected", &key)
        .await;
    assert_error(status, &refused, 404, "customer_not_found");
    assert!(selected(bob.clone()).await.is_empty());
}

#[tokio::test]
async fn a_frozen_voucher_is_used_only_under_its_hold_until_the_hold_ends() {
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let once = create_coupon(
        &server,
        &key,
        json!({"name": "Once", "discount": {"percent": 10}}),
    )
    .await;
    let twice = create_coupon(
        &server,
        &key,
        json!({"name": "Twice", "discount": {"percent": 10}, "uses_per_voucher": 2}),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &once).await;
    let code = voucher["code"].as_str().unwrap().to_string();
    let freeze = |code: String, body: Value| {
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", &format!("/vouchers/{code}/freeze"), key, Some(body))
                .await
        }
    };
    let redeem = |code: String, reservation: Option<&str>| {
        let body = match reservation {
            Some(id) => json!({"customer_id": ana, "codes": [code], "reservation_id": id}),
            None => json!({"customer_id": ana, "codes": [code]}),
        };
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", "/vouchers/redeem", key, Some(body))
                .await
        }
    };
    let (status, held) = freeze(code.clone(), json!({"customer_id": ana, "minutes": 2})).await;
    assert_eq!(status, 200, "{held}");
    assert_eq!(held["expires_at"], "2026-07-04T10:02:00Z");
    assert_eq!(held["voucher"]["state"], "frozen");
    let reservation = held["reservation_id"].as_str().unwrap().to_string();
    // Another till, without the hold, cannot use or hold it.
    let (status, refused) = redeem(code.clone(), None).await;
    assert_error(status, &refused, 422, "voucher_frozen");
    let (status, refused) = freeze(code.clone(), json!({"customer_id": ana})).await;
    assert_error(status, &refused, 422, "voucher_frozen");
    let (status, refused) = redeem(code.clone(), Some("rsv_other")).await;
    assert_error(status, &refused, 422, "voucher_frozen");
    // Unfrozen, anyone may; refrozen, the hold ends by itself.
    let (status, free) = server
        .call_as(
            "POST",
            &format!("/vouchers/{code}/unfreeze"),
            &key,
            Some(json!({"customer_id": ana, "reservation_id": reservation})),
        )
        .await;
    assert_eq!(
        (status, free["state"].as_str()),
        (200, Some("active")),
        "{free}"
    );
    let (status, _) = freeze(code.clone(), json!({"customer_id": ana, "minutes": 1})).await;
    assert_eq!(status, 200);
    server.set_time("2026-07-04T10:01:30Z");
    let (_, state) = server.get_as(&format!("/vouchers/{code}"), &key).await;
    assert_eq!(state["state"], "active", "the hold ended: {state}");
    // The checkout that holds it uses it.
    let (_, held) = freeze(code.clone(), json!({"customer_id": ana})).await;
    let reservation = held["reservation_id"].as_str().unwrap();
    let (status, used) = redeem(code.clone(), Some(reservation)).await;
    assert_eq!(status, 200, "{used}");
    assert_eq!(used["vouchers"][0]["state"], "redeemed");
    let (status, refused) = freeze(code.clone(), json!({"customer_id": ana})).await;
    assert_error(status, &refused, 422, "voucher_redeemed");

    // On a Voucher of two uses a hold takes one; the other stays free.
    let two = trigger(&server, &key, &ana, &twice).await;
    let two = two["code"].as_str().unwrap().to_string();
    let (status, held) = freeze(two.clone(), json!({"customer_id": ana})).await;
    assert_eq!(
        (status, held["voucher"]["state"].as_str()),
        (200, Some("active")),
        "{held}"
    );
    let (status, _) = redeem(two.clone(), None).await;
    assert_eq!(status, 200, "the free use");
    let (status, refused) = redeem(two.clone(), None).await;
    assert_error(status, &refused, 422, "voucher_frozen");
    let (status, _) = redeem(two.clone(), held["reservation_id"].as_str()).await;
    assert_eq!(status, 200, "the held use");
    // Another Customer's Voucher is not found.
    let bob = customer(&server, &key, "bob@example.com").await;
    let (status, refused) = freeze(two.clone(), json!({"customer_id": bob})).await;
    assert_error(status, &refused, 404, "voucher_not_found");
}

#[tokio::test]
async fn a_frozen_voucher_is_never_taken_by_another_till_in_a_race() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Once", "discount": {"percent": 10}}),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &coupon).await;
    let code = voucher["code"].as_str().unwrap();
    // 16 tills race: 8 try to hold it, 8 to redeem it without a hold.
    let requests = (0..16)
        .map(|n| {
            if n % 2 == 0 {
                server
                    .request_as("POST", &format!("/vouchers/{code}/freeze"), &key)
                    .json(&json!({"customer_id": ana}))
            } else {
                server
                    .request_as("POST", "/vouchers/redeem", &key)
                    .json(&json!({"customer_id": ana, "codes": [code]}))
            }
        })
        .collect();
    let answers = all_at_once(requests).await;
    let won: Vec<&(u16, Value)> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .collect();
    assert_eq!(won.len(), 1, "one till holds or uses it: {answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_eq!(*status, 422, "{body}");
        assert!(
            body["code"] == "voucher_frozen" || body["code"] == "voucher_redeemed",
            "{body}"
        );
    }
}

#[tokio::test]
async fn excluded_products_are_listed_per_coupon() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "A", "discount": {"percent": 5}, "excluded_products": ["GIFT"], "excluded_categories": ["alcohol"]}),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &coupon).await;
    let (status, all) = server.get_as("/vouchers/excluded_products", &key).await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(
        all["coupons"],
        json!([
            {"coupon_id": 601, "excluded_products": ["GIFTCARD"], "excluded_categories": ["tobacco"]},
            {"coupon_id": coupon["id"], "excluded_products": ["GIFT"], "excluded_categories": ["alcohol"]},
        ])
    );
    let (_, by_code) = server
        .get_as(
            &format!(
                "/vouchers/excluded_products?code={}",
                voucher["code"].as_str().unwrap()
            ),
            &key,
        )
        .await;
    assert_eq!(by_code["coupons"], json!([all["coupons"][1]]));
    let (_, by_id) = server
        .get_as("/vouchers/excluded_products?coupon_id=601", &key)
        .await;
    assert_eq!(by_id["coupons"], json!([all["coupons"][0]]));
    let (status, refused) = server
        .get_as("/vouchers/excluded_products?coupon_id=7", &key)
        .await;
    assert_error(status, &refused, 404, "coupon_not_found");
    let (status, refused) = server
        .get_as("/vouchers/excluded_products?code=NOPE", &key)
        .await;
    assert_error(status, &refused, 404, "voucher_not_found");
}

#[tokio::test]
async fn vouchers_are_printed_in_the_customers_language_and_the_print_recorded() {
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": {"en": "Five off", "es": "Cinco menos"}, "discount": {"amount": 5},
               "valid_to": "2026-12-31T23:59:59Z"}),
    )
    .await;
    let percent = create_coupon(
        &server,
        &key,
        json!({"name": "Ten", "discount": {"percent": 10}}),
    )
    .await;
    let first = trigger(&server, &key, &ana, &coupon).await;
    let second = trigger(&server, &key, &ana, &percent).await;
    let bobs = trigger(&server, &key, &bob, &coupon).await;
    let code = |v: &Value| v["code"].as_str().unwrap().to_string();
    // Spent Vouchers are not printed.
    let (status, _) = server
        .call_as(
            "POST",
            "/vouchers/redeem",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&second)]})),
        )
        .await;
    assert_eq!(status, 200);
    // One held by a checkout is still printed.
    let (status, held) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/freeze", code(&first)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{held}");
    let (status, printed) = server
        .send(
            server
                .request_as("POST", "/vouchers/print", &key)
                .header("Accept-Language", "es")
                .json(&json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{printed}");
    let printed = printed["printed"].as_array().unwrap();
    assert_eq!(printed.len(), 1, "{printed:?}");
    assert_eq!(
        printed[0]["text"],
        format!(
            "Cinco menos\n5.00 de descuento\nCódigo: {}\nVálido hasta: 2026-12-31",
            code(&first)
        )
    );
    assert_eq!(printed[0]["voucher"]["printed_at"], "2026-07-04T10:00:00Z");
    let (_, listed) = server
        .get_as(
            &format!("/vouchers?customer_id={ana}&coupon_id={}", coupon["id"]),
            &key,
        )
        .await;
    let listed = &listed["vouchers"][0];
    assert_eq!(listed["printed_at"], "2026-07-04T10:00:00Z");
    let (status, held_printed) = server
        .call_as(
            "PUT",
            "/vouchers/print",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&first)]})),
        )
        .await;
    assert_eq!(
        status, 200,
        "a held Voucher is printed by name too: {held_printed}"
    );
    let (status, _) = server
        .call_as(
            "POST",
            &format!("/vouchers/{}/unfreeze", code(&first)),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200);
    // A specified list: all or none.
    let (status, refused) = server
        .call_as(
            "PUT",
            "/vouchers/print",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&first), code(&second), code(&bobs)]})),
        )
        .await;
    assert_error(status, &refused, 422, "voucher_redeemed");
    assert_eq!(refused["errors"].as_array().unwrap().len(), 2, "{refused}");
    let (status, one) = server
        .call_as(
            "PUT",
            "/vouchers/print",
            &key,
            Some(json!({"customer_id": ana, "codes": [code(&first)]})),
        )
        .await;
    assert_eq!(status, 200, "{one}");
    assert!(
        one["printed"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Five off\n5.00 off\nCode: "),
        "{one}"
    );
}

#[tokio::test]
async fn the_published_spec_carries_every_example_and_error_example() {
    let server = TestServer::start().await;
    let spec = server.spec().await;
    for example in loyalty::http::spec::examples::all() {
        let (method, path) = example.operation.split_once(' ').unwrap();
        let operation = &spec["paths"][path][method.to_ascii_lowercase()];
        assert!(
            operation.is_object(),
            "{} is not in the spec",
            example.operation
        );
        if example.request.is_some() {
            let sent = json_media(&operation["requestBody"]["content"])["example"].clone();
            assert!(
                sent.is_object(),
                "{}: no request example",
                example.operation
            );
        }
        if example.response.is_some() {
            let answered = json_media(&operation["responses"]["200"]["content"])["example"].clone();
            assert!(
                answered.is_object(),
                "{}: no answer example",
                example.operation
            );
        }
    }
    let refusals = json_media(
        &spec["paths"]["/vouchers/{code}"]["get"]["responses"]["422"]["content"],
    )["examples"]
        .clone();
    assert_eq!(
        refusals["voucher_expired"]["value"]["code"], "voucher_expired",
        "{refusals}"
    );
}

/// The JSON media type of an OpenAPI `content` object.
fn json_media(content: &Value) -> &Value {
    content
        .as_object()
        .and_then(|types| {
            types
                .iter()
                .find(|(media_type, _)| media_type.starts_with("application/json"))
        })
        .map_or(&Value::Null, |(_, media)| media)
}
