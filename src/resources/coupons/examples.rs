//! Example requests of the Coupon operations, published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

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
    OperationExample {
        operation: "POST /coupons",
        request: Some(
            r#"{"name": {"en": "Five off", "es": "Cinco menos"}, "discount": {"amount": 5},
                "code_pattern": "FIVE-#####", "valid_from": "2026-07-01T00:00:00Z",
                "valid_to": "2026-09-30T23:59:59Z", "locations": ["S1", "S2"],
                "excluded_products": ["GIFTCARD"], "excluded_categories": ["tobacco"],
                "uses_per_voucher": 1, "issues_per_customer": 3,
                "weekdays": ["saturday", "sunday"], "hours": {"from": "09:00", "to": "13:00"},
                "stacking": {"priority": 10, "exclusive": false},
                "limits": [{"redemptions": 500, "per": "day"}]}"#,
        ),
        response: Some(coupon!()),
    },
    OperationExample {
        operation: "PATCH /coupons/{id}",
        request: Some(r#"{"valid_to": "2026-10-31T23:59:59Z", "active": true}"#),
        response: Some(coupon!()),
    },
    OperationExample {
        operation: "GET /coupons/{id}",
        request: None,
        response: Some(coupon!()),
    },
    OperationExample {
        operation: "DELETE /coupons/{id}",
        request: None,
        response: Some(r#"{"id": 1000000, "result": "deleted"}"#),
    },
    OperationExample {
        operation: "GET /coupons",
        request: None,
        response: Some(concat!(r#"{"coupons": ["#, coupon!(), "]}")),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::coupons::model::{Coupon, CouponList, CouponSpec, DeletedCoupon};

    #[test]
    fn every_example_is_what_the_operation_accepts_and_answers() {
        for example in EXAMPLES {
            if example.request.is_some() {
                parses::<CouponSpec>(example.operation, example.request);
            }
            match example.operation {
                "GET /coupons" => parses::<CouponList>(example.operation, example.response),
                "DELETE /coupons/{id}" => {
                    parses::<DeletedCoupon>(example.operation, example.response)
                }
                _ => parses::<Coupon>(example.operation, example.response),
            }
        }
    }
}
