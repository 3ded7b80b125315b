//! Vouchers issued by POST /discounts/trigger: validated by Customer, place,
//! day and hour; refusals issuing nothing; codes running out; concurrent
//! triggers each with a code of its own.

use super::*;

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
