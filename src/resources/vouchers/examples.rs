//! Example requests and answers of the Voucher operations, published in the
//! spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::vouchers::api::RolledBackRedemptions;
use crate::resources::vouchers::api::{
    ExcludedProducts, RedeemedVouchers, VoucherList, VoucherRedeem, VoucherRollback,
};
use crate::resources::vouchers::freeze_api::{FreezeRequest, UnfreezeRequest};
use crate::resources::vouchers::model::{FrozenVoucher, Voucher};
use crate::resources::vouchers::print_api::PrintedVouchers;
use crate::resources::vouchers::selection_api::Vouchers;
use crate::resources::vouchers::selection_api::{HolderCodes, VoucherHolder};

/// A Voucher as answers show it.
macro_rules! voucher {
    () => {
        r#"{"id": "vch_01j9z3k4m5n6p7q8r9s0t1v2w3", "code": "FIVE-7KQ2M", "coupon_id": 1000000,
            "coupon_name": "Five off", "customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0",
            "state": "active", "uses_left": 1, "source": "trigger",
            "created_at": "2026-07-04T10:00:00Z"}"#
    };
}

/// A redemption as answers show it.
macro_rules! redemption {
    () => {
        r#"{"redemption_id": "rdm_01j9z3q8w7e6r5t4y3u2i1o0p9", "voucher_code": "FIVE-7KQ2M",
            "voucher_id": "vch_01j9z3k4m5n6p7q8r9s0t1v2w3", "coupon_id": 1000000,
            "customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "location_code": "S1",
            "redeemed_at": "2026-07-04T10:05:00Z"}"#
    };
}

/// The Customer and the codes of a request on several Vouchers.
const HOLDER_CODES: &str =
    r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "codes": ["FIVE-7KQ2M", "SUMMER10"]}"#;

/// The Customer of a request on one Voucher.
const HOLDER: &str = r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0"}"#;

/// The Voucher operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("GET /vouchers/{code}").answers::<Voucher>(voucher!()),
    OperationExample::new("POST /vouchers/redeem").takes::<VoucherRedeem>(r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "codes": ["FIVE-7KQ2M"],
                "location_code": "S1", "cart_code": "T1-0042"}"#).answers::<RedeemedVouchers>(concat!(
            r#"{"redemptions": ["#,
            redemption!(),
            r#"], "vouchers": ["#,
            voucher!(),
            "]}"
        )),
    OperationExample::new("POST /vouchers/rollback").takes::<VoucherRollback>(r#"{"redemption_ids": ["rdm_01j9z3q8w7e6r5t4y3u2i1o0p9"]}"#).answers::<RolledBackRedemptions>(concat!(r#"{"redemptions": ["#, redemption!(), "]}")),
    OperationExample::new("POST /vouchers/{code}/freeze").takes::<FreezeRequest>(r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "minutes": 10}"#).answers::<FrozenVoucher>(concat!(
            r#"{"reservation_id": "rsv_01j9z3r4t5y6u7i8o9p0a1s2d3", "expires_at": "2026-07-04T10:10:00Z", "voucher": "#,
            voucher!(),
            "}"
        )),
    OperationExample::new("POST /vouchers/{code}/unfreeze").takes::<UnfreezeRequest>(r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "reservation_id": "rsv_01j9z3r4t5y6u7i8o9p0a1s2d3"}"#).answers::<Voucher>(voucher!()),
    OperationExample::new("POST /vouchers/{code}/select").takes::<VoucherHolder>(HOLDER).answers::<Voucher>(voucher!()),
    OperationExample::new("POST /vouchers/{code}/deselect").takes::<VoucherHolder>(HOLDER).answers::<Voucher>(voucher!()),
    OperationExample::new("PUT /vouchers/select").takes::<HolderCodes>(HOLDER_CODES).answers::<Vouchers>(concat!(r#"{"vouchers": ["#, voucher!(), "]}")),
    OperationExample::new("PUT /vouchers/deselect").takes::<HolderCodes>(HOLDER_CODES).answers::<Vouchers>(concat!(r#"{"vouchers": ["#, voucher!(), "]}")),
    OperationExample::new("POST /vouchers/print").takes::<VoucherHolder>(HOLDER).answers::<PrintedVouchers>(concat!(
            r#"{"printed": [{"voucher": "#,
            voucher!(),
            r#", "text": "Five off\n5.00 off\nCode: FIVE-7KQ2M\nUntil 2026-09-30"}]}"#
        )),
    OperationExample::new("PUT /vouchers/print").takes::<HolderCodes>(HOLDER_CODES),
    OperationExample::new("GET /vouchers").answers::<VoucherList>(concat!(r#"{"vouchers": ["#, voucher!(), "]}")),
    OperationExample::new("GET /customers/{id}/vouchers/selected").answers::<Vouchers>(concat!(r#"{"vouchers": ["#, voucher!(), "]}")),
    OperationExample::new("GET /vouchers/excluded_products").answers::<ExcludedProducts>(r#"{"coupons": [{"coupon_id": 1000000, "excluded_products": ["GIFTCARD"],
                             "excluded_categories": ["tobacco"]}]}"#),
];
