//! Bulk issues through the back-office (`loyalty vouchers issue`): bearer
//! codes any Customer presents, one Voucher per listed Customer, the same
//! Vouchers when run again under one name, a Coupon's cap per Customer, and
//! the keyspace refusal with its arithmetic.

use loyalty::resources::vouchers::bulk::BulkIssue;

use super::carts::{MONDAY, cart, effects_of, post_cart_ok};
use super::*;

fn by_count(source: &str, count: u64, first: u64) -> BulkIssue {
    BulkIssue {
        source: source.into(),
        count: Some(count),
        first: Some(first),
        customer_ids: None,
    }
}

#[tokio::test]
async fn bearer_codes_are_issued_once_per_name_and_any_customer_presents_one() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let office = server.back_office().await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Flyer", "discount": {"amount": 3}, "code_pattern": "FLY-######"}),
    )
    .await;
    let coupon_id = coupon["id"].as_i64().unwrap();
    let first = office
        .bulk_issue("demo", coupon_id, by_count("spring-flyer", 1500, 0))
        .await
        .unwrap();
    assert_eq!(first.vouchers.len(), 1500);
    let codes: std::collections::HashSet<&str> =
        first.vouchers.iter().map(|v| v.code.as_str()).collect();
    assert_eq!(codes.len(), 1500, "no code twice");
    assert!(
        first
            .vouchers
            .iter()
            .all(|v| v.customer_id.is_empty() && v.code.starts_with("FLY-") && v.uses_left == 1)
    );
    // Run again under the same name: the same Vouchers, nothing new.
    let again = office
        .bulk_issue("demo", coupon_id, by_count("spring-flyer", 1500, 0))
        .await
        .unwrap();
    assert_eq!(again.vouchers, first.vouchers);
    // The next part numbers on.
    let next = office
        .bulk_issue("demo", coupon_id, by_count("spring-flyer", 10, 1500))
        .await
        .unwrap();
    assert!(
        next.vouchers
            .iter()
            .all(|v| !codes.contains(v.code.as_str()))
    );

    // Any Customer presents a bearer code, once.
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let code = first.vouchers[7].code.clone();
    let (status, valid) = server
        .get_as(&format!("/vouchers/{code}?customer_id={bob}"), &key)
        .await;
    assert_eq!(status, 200, "{valid}");
    let answer = post_cart_ok(&server, &key, cart(&ana, "F-1", json!([code]))).await;
    assert!(!effects_of(&answer, "voucher").is_empty(), "{answer}");
    let (status, used) = server
        .call_as(
            "POST",
            "/vouchers/redeem",
            &key,
            Some(json!({"customer_id": bob, "codes": [code], "location_code": "S1"})),
        )
        .await;
    assert_error(status, &used, 422, "voucher_redeemed");
}

#[tokio::test]
async fn customers_get_one_voucher_each_within_the_coupons_cap() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let office = server.back_office().await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Members", "discount": {"percent": 5}, "issues_per_customer": 2}),
    )
    .await;
    assert_eq!(coupon["issues_per_customer"], 2, "{coupon}");
    let coupon_id = coupon["id"].as_i64().unwrap();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let issue = |source: &str| BulkIssue {
        source: source.into(),
        count: None,
        first: None,
        customer_ids: Some(vec![ana.clone(), "cus_nobody".into(), bob.clone()]),
    };
    let issued = office
        .bulk_issue("demo", coupon_id, issue("june"))
        .await
        .unwrap();
    let owners: Vec<&str> = issued
        .vouchers
        .iter()
        .map(|v| v.customer_id.as_str())
        .collect();
    assert_eq!(owners, [ana.as_str(), bob.as_str()]);
    assert_eq!(issued.refused.len(), 1);
    assert_eq!(
        (
            issued.refused[0].customer_id.as_str(),
            issued.refused[0].code.as_str()
        ),
        ("cus_nobody", "customer_not_found")
    );
    // Ana is triggered one more: that is her two.
    trigger(&server, &key, &ana, &coupon).await;
    let (status, refused) = server
        .call_as(
            "POST",
            "/discounts/trigger",
            &key,
            Some(json!({"customer_id": ana, "coupon_id": coupon_id})),
        )
        .await;
    assert_error(status, &refused, 422, "coupon_issue_limit_reached");
    // A second issue refuses her and gives Bob his second.
    let july = office
        .bulk_issue("demo", coupon_id, issue("july"))
        .await
        .unwrap();
    assert_eq!(july.vouchers.len(), 1);
    assert_eq!(july.vouchers[0].customer_id, bob);
    let codes: Vec<(&str, &str)> = july
        .refused
        .iter()
        .map(|r| (r.customer_id.as_str(), r.code.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            ("cus_nobody", "customer_not_found"),
            (ana.as_str(), "coupon_issue_limit_reached")
        ]
    );
}

#[tokio::test]
async fn concurrent_triggers_never_pass_the_cap_per_customer() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Three", "discount": {"amount": 1}, "issues_per_customer": 3}),
    )
    .await;
    let ana = customer(&server, &key, "ana@example.com").await;
    let requests = (0..24)
        .map(|_| {
            server
                .request_as("POST", "/discounts/trigger", &key)
                .json(&json!({"customer_id": ana, "coupon_id": coupon["id"]}))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let issued = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(issued, 3, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(*status, body, 422, "coupon_issue_limit_reached");
    }
}

#[tokio::test]
async fn an_issue_that_would_make_codes_guessable_or_has_no_codes_is_refused() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let office = server.back_office().await;
    // 31^3 = 29791 codes: 1 % is 297.
    let short = create_coupon(
        &server,
        &key,
        json!({"name": "Short", "discount": {"amount": 1}, "code_pattern": "S-###"}),
    )
    .await;
    let refused = office
        .bulk_issue("demo", short["id"].as_i64().unwrap(), by_count("x", 300, 0))
        .await
        .unwrap_err();
    assert_eq!(refused.code.code(), "invalid_request");
    assert!(
        refused.message.contains("29791") && refused.message.contains("lengthen the pattern"),
        "{}",
        refused.message
    );
    let static_code = create_coupon(
        &server,
        &key,
        json!({"name": "Static", "discount": {"amount": 1}, "static_code": "ALL5"}),
    )
    .await;
    let refused = office
        .bulk_issue(
            "demo",
            static_code["id"].as_i64().unwrap(),
            by_count("x", 5, 0),
        )
        .await
        .unwrap_err();
    assert!(
        refused.message.contains("static code"),
        "{}",
        refused.message
    );
    let refused = office
        .bulk_issue("demo", 999, by_count("x", 5, 0))
        .await
        .unwrap_err();
    assert_eq!(refused.code.code(), "coupon_not_found");
    // Nothing was issued by the refusals.
    let (_, listed) = server.get_as("/vouchers", &key).await;
    assert_eq!(listed["vouchers"], json!([]), "{listed}");
}
