//! Example requests of the Coupon operations, published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::coupons::model::{Coupon, CouponList, CouponSpec, DeletedCoupon};

/// A Coupon as answers show it.
macro_rules! coupon {
    () => {
        r#"{"id": 1000000, "source": "api", "name": "Five off", "active": true,
            "discount": {"amount": 5}, "code_pattern": "FIVE-#####",
            "valid_from": "2026-07-01T00:00:00Z", "valid_to": "2026-09-30T23:59:59Z",
            "locations": ["S1", "S2"], "excluded_products": ["GIFTCARD"],
            "excluded_categories": ["tobacco"], "uses_per_voucher": 1, "issues_per_customer": 3,
            "weekdays": ["saturday", "sunday"], "hours": {"from": "09:00", "to": "13:00"},
            "stacking": {"priority": 10, "combines_with": [], "exclusive": false,
                         "base": "discounted"},
            "limits": [{"redemptions": 500, "per": "day"}]}"#
    };
}

/// The Coupon operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("POST /coupons")
        .takes::<CouponSpec>(
            r#"{"name": {"en": "Five off", "es": "Cinco menos"}, "discount": {"amount": 5},
                "code_pattern": "FIVE-#####", "valid_from": "2026-07-01T00:00:00Z",
                "valid_to": "2026-09-30T23:59:59Z", "locations": ["S1", "S2"],
                "excluded_products": ["GIFTCARD"], "excluded_categories": ["tobacco"],
                "uses_per_voucher": 1, "issues_per_customer": 3,
                "weekdays": ["saturday", "sunday"], "hours": {"from": "09:00", "to": "13:00"},
                "stacking": {"priority": 10, "exclusive": false},
                "limits": [{"redemptions": 500, "per": "day"}]}"#,
        )
        .answers::<Coupon>(coupon!()),
    OperationExample::new("PATCH /coupons/{id}")
        .takes::<CouponSpec>(r#"{"valid_to": "2026-10-31T23:59:59Z", "active": true}"#)
        .answers::<Coupon>(coupon!()),
    OperationExample::new("GET /coupons/{id}").answers::<Coupon>(coupon!()),
    OperationExample::new("DELETE /coupons/{id}")
        .answers::<DeletedCoupon>(r#"{"id": 1000000, "result": "deleted"}"#),
    OperationExample::new("GET /coupons").answers::<CouponList>(concat!(
        r#"{"coupons": ["#,
        coupon!(),
        "]}"
    )),
];
