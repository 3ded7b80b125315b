//! Discounts, Coupons and Vouchers over HTTP: Coupons from files and through
//! the API (created, read, changed, deleted), every refusal changing nothing.

#[path = "vouchers/bulk.rs"]
mod bulk;
#[path = "vouchers/carts.rs"]
mod carts;
mod common;
#[path = "vouchers/coupons.rs"]
mod coupons;
#[path = "vouchers/discounts.rs"]
mod discounts;
#[path = "vouchers/earned.rs"]
mod earned;
#[path = "vouchers/freezing.rs"]
mod freezing;
#[path = "vouchers/guesses.rs"]
mod guesses;
#[path = "vouchers/holders.rs"]
mod holders;
#[path = "vouchers/lifecycle.rs"]
mod lifecycle;
#[path = "vouchers/limits.rs"]
mod limits;
#[path = "vouchers/printing.rs"]
mod printing;
#[path = "vouchers/redemptions.rs"]
mod redemptions;
#[path = "vouchers/selection.rs"]
mod selection;
#[path = "vouchers/spec.rs"]
mod spec;
#[path = "vouchers/stacking.rs"]
mod stacking;
#[path = "vouchers/static_codes.rs"]
mod static_codes;
#[path = "vouchers/triggers.rs"]
mod triggers;

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
