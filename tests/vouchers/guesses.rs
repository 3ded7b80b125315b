//! Guessing codes: a key that looked up 20 unknown codes within a minute is
//! refused every Voucher look-up (`voucher_lookups_limited`), its carts go
//! through with their codes rejected, and the minute's end lets it in again.

use super::carts::{MONDAY, cart, effects_of, post_cart_ok};
use super::*;

#[tokio::test]
async fn a_key_guessing_codes_is_stopped_for_the_minute_and_its_sales_go_on() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Five off", "discount": {"amount": 5}, "code_pattern": "FIVE-######"}),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &coupon).await;
    let code = voucher["code"].as_str().unwrap().to_string();

    // 19 unknown codes through the look-up, one through a cart.
    for n in 0..19 {
        let (status, body) = server.get_as(&format!("/vouchers/NOPE-{n:06}"), &key).await;
        assert_error(status, &body, 404, "voucher_not_found");
    }
    let answer = post_cart_ok(&server, &key, cart(&ana, "G-1", json!(["NOPE-999999"]))).await;
    assert_eq!(
        effects_of(&answer, "voucher_rejected")[0]["code"],
        "voucher_not_found"
    );

    // The 20th unknown code stops the key, even for a code that exists.
    let (status, body) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_error(status, &body, 429, "voucher_lookups_limited");
    for (path, request) in [
        (
            "/vouchers/redeem",
            json!({"customer_id": ana, "codes": [code]}),
        ),
        (
            &format!("/vouchers/{code}/select") as &str,
            json!({"customer_id": ana}),
        ),
        (
            &format!("/vouchers/{code}/freeze") as &str,
            json!({"customer_id": ana}),
        ),
    ] {
        let (status, body) = server.call_as("POST", path, &key, Some(request)).await;
        assert_error(status, &body, 429, "voucher_lookups_limited");
    }
    // A sale is never refused: the cart goes through, its code rejected and
    // not used.
    let answer = post_cart_ok(&server, &key, cart(&ana, "G-2", json!([code]))).await;
    let rejected = effects_of(&answer, "voucher_rejected");
    assert_eq!(rejected.len(), 1, "{answer}");
    assert_eq!(rejected[0]["code"], "voucher_lookups_limited");
    assert_eq!(rejected[0]["voucher_code"], code.as_str());
    assert!(effects_of(&answer, "voucher").is_empty());
    assert!(answer["cart"]["id"].is_string(), "{answer}");

    // The minute over, the key looks codes up again and the Voucher is whole.
    server.set_time("2026-07-06T08:01:01Z");
    let (status, body) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_eq!((status, &body["uses_left"]), (200, &json!(1)), "{body}");
}
