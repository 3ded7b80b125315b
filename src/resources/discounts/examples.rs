//! Example requests and answers of the discount operations, published in
//! the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::discounts::api::CouponTrigger;
use crate::resources::discounts::model::{
    DiscountCampaign, DiscountCampaignList, DiscountCampaignSpec, DiscountRedeem,
    DiscountTransaction, DiscountTransactionList,
};
use crate::resources::vouchers::model::Voucher;

/// A discount campaign as answers show it.
macro_rules! campaign {
    () => {
        r#"{"id": 1000001, "source": "api", "name": "10% off coffee", "active": true,
            "available_from": "2026-07-01T00:00:00Z", "when": "cart.total >= 10.0",
            "discount": {"applies_to": "lines", "lines": "line.product_code == \"COFFEE\"",
                         "percent": 10, "max_amount": 3},
            "stacking": {"priority": 5, "group": "coffee", "combines_with": [],
                         "exclusive": false, "base": "original"},
            "limits": [{"amount": 200, "per": "day", "each": "location"}]}"#
    };
}

/// A discount transaction as answers show it.
macro_rules! transaction {
    () => {
        r#"{"id": "dtx_01j9z3m2n3b4v5c6x7z8l9k0j1", "customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0",
            "source": "redeem", "value": 4.25,
            "discounts": [{"discount_id": 1000001, "discount_name": "Goodwill 10%",
                           "given_by": "campaign", "value": 4.25}],
            "location_code": "S1", "description": "Goodwill: late delivery", "base_amount": 42.5,
            "created_at": "2026-07-04T10:00:00Z"}"#
    };
}

/// The discount operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("POST /discounts")
        .takes::<DiscountCampaignSpec>(
            r#"{"name": "10% off coffee", "available_from": "2026-07-01T00:00:00Z",
                "when": "cart.total >= 10.0",
                "discount": {"applies_to": "lines", "lines": "line.product_code == \"COFFEE\"",
                             "percent": 10, "max_amount": 3},
                "stacking": {"priority": 5, "group": "coffee"},
                "limits": [{"amount": 200, "per": "day", "each": "location"}]}"#,
        )
        .answers::<DiscountCampaign>(campaign!()),
    OperationExample::new("PATCH /discounts/{value}")
        .takes::<DiscountCampaignSpec>(r#"{"active": false}"#)
        .answers::<DiscountCampaign>(campaign!()),
    OperationExample::new("GET /discounts/{value}").answers::<DiscountCampaign>(campaign!()),
    OperationExample::new("GET /discounts").answers::<DiscountCampaignList>(concat!(
        r#"{"discounts": ["#,
        campaign!(),
        "]}"
    )),
    OperationExample::new("GET /discounts/transactions")
        .answers::<DiscountTransactionList>(concat!(r#"{"transactions": ["#, transaction!(), "]}")),
    OperationExample::new("POST /discounts/redeem")
        .takes::<DiscountRedeem>(
            r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "discount_id": 1000001,
                "base_amount": 42.5, "location_code": "S1",
                "description": "Goodwill: late delivery"}"#,
        )
        .answers::<DiscountTransaction>(transaction!()),
    OperationExample::new("POST /discounts/trigger")
        .takes::<CouponTrigger>(
            r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "coupon_id": 1000000}"#,
        )
        .answers::<Voucher>(
            r#"{"id": "vch_01j9z3k4m5n6p7q8r9s0t1v2w3", "code": "FIVE-7KQ2M", "coupon_id": 1000000,
                "coupon_name": "Five off", "customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0",
                "state": "active", "uses_left": 1, "source": "trigger",
                "created_at": "2026-07-04T10:00:00Z"}"#,
        ),
];
