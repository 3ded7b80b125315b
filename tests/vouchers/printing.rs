//! A Coupon's excluded products, and Vouchers printed in the Customer's
//! language with the print recorded.

use super::*;

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
