//! Example requests and answers of the discount operations, published in
//! the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

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
    OperationExample {
        operation: "POST /discounts",
        request: Some(
            r#"{"name": "10% off coffee", "available_from": "2026-07-01T00:00:00Z",
                "when": "cart.total >= 10.0",
                "discount": {"applies_to": "lines", "lines": "line.product_code == \"COFFEE\"",
                             "percent": 10, "max_amount": 3},
                "stacking": {"priority": 5, "group": "coffee"},
                "limits": [{"amount": 200, "per": "day", "each": "location"}]}"#,
        ),
        response: Some(campaign!()),
    },
    OperationExample {
        operation: "PATCH /discounts/{value}",
        request: Some(r#"{"active": false}"#),
        response: Some(campaign!()),
    },
    OperationExample {
        operation: "GET /discounts/{value}",
        request: None,
        response: Some(campaign!()),
    },
    OperationExample {
        operation: "GET /discounts",
        request: None,
        response: Some(concat!(r#"{"discounts": ["#, campaign!(), "]}")),
    },
    OperationExample {
        operation: "GET /discounts/transactions",
        request: None,
        response: Some(concat!(r#"{"transactions": ["#, transaction!(), "]}")),
    },
    OperationExample {
        operation: "POST /discounts/redeem",
        request: Some(
            r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "discount_id": 1000001,
                "base_amount": 42.5, "location_code": "S1",
                "description": "Goodwill: late delivery"}"#,
        ),
        response: Some(transaction!()),
    },
    OperationExample {
        operation: "POST /discounts/trigger",
        request: Some(r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "coupon_id": 1000000}"#),
        response: Some(
            r#"{"id": "vch_01j9z3k4m5n6p7q8r9s0t1v2w3", "code": "FIVE-7KQ2M", "coupon_id": 1000000,
                "coupon_name": "Five off", "customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0",
                "state": "active", "uses_left": 1, "source": "trigger",
                "created_at": "2026-07-04T10:00:00Z"}"#,
        ),
    },
];

#[cfg(test)]
mod tests {
    use poem_openapi::types::ParseFromJSON;
    use serde_json::Value;

    use super::*;
    use crate::resources::discounts::api::CouponTrigger;
    use crate::resources::discounts::model::{
        DiscountCampaign, DiscountCampaignList, DiscountCampaignSpec, DiscountRedeem,
        DiscountTransaction, DiscountTransactionList,
    };
    use crate::resources::vouchers::model::Voucher;

    fn parses<T: ParseFromJSON>(text: Option<&str>) {
        let value: Option<Value> = text.map(|t| serde_json::from_str(t).unwrap());
        if let Err(error) = T::parse_from_json(value) {
            panic!("{}", error.into_message());
        }
    }

    fn example(operation: &str) -> &'static OperationExample {
        EXAMPLES
            .iter()
            .find(|e| e.operation == operation)
            .unwrap_or_else(|| panic!("no example of {operation}"))
    }

    #[test]
    fn every_example_is_what_the_operation_accepts_and_answers() {
        for operation in ["POST /discounts", "PATCH /discounts/{value}"] {
            parses::<DiscountCampaignSpec>(example(operation).request);
            parses::<DiscountCampaign>(example(operation).response);
        }
        parses::<DiscountCampaign>(example("GET /discounts/{value}").response);
        parses::<DiscountCampaignList>(example("GET /discounts").response);
        parses::<DiscountTransactionList>(example("GET /discounts/transactions").response);
        parses::<DiscountRedeem>(example("POST /discounts/redeem").request);
        parses::<DiscountTransaction>(example("POST /discounts/redeem").response);
        parses::<CouponTrigger>(example("POST /discounts/trigger").request);
        parses::<Voucher>(example("POST /discounts/trigger").response);
    }
}
