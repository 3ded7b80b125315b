//! Example requests of the points operations (API points campaigns, the
//! ledger's redemptions, transfers and adjustments), published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

/// A transfer of points between two Customers.
const TRANSFER: &str = r#"{"from_customer_code": "EXT-2", "to_customer_code": "EXT-1",
    "points": 250, "kind": "points", "description": "Family pooling"}"#;

/// The points operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample {
        operation: "POST /points",
        request: Some(
            r#"{"name": {"en": "Double points, 100 a week", "es": "Puntos dobles"},
                "on": "cart", "when": "cart.total >= 10.0",
                "points": {"per_amount": 2, "rounding": "floor", "expires_after_days": 365},
                "limits": [{"points": 100, "per": "week", "each": "customer"}]}"#,
        ),
        response: None,
    },
    OperationExample {
        operation: "PATCH /points/{value}",
        request: Some(r#"{"active": false}"#),
        response: None,
    },
    OperationExample {
        operation: "POST /points/redeem",
        request: Some(
            r#"{"customer_code": "EXT-1", "points": 500, "kind": "points",
                "description": "Cinema tickets"}"#,
        ),
        response: None,
    },
    OperationExample {
        operation: "POST /points/redeem_cart",
        request: Some(r#"{"cart_id": "T1-0001", "points": 300, "kind": "points"}"#),
        response: None,
    },
    OperationExample {
        operation: "POST /points/transfer",
        request: Some(TRANSFER),
        response: None,
    },
    OperationExample {
        operation: "POST /scores/transfer",
        request: Some(TRANSFER),
        response: None,
    },
    OperationExample {
        operation: "POST /scores/trigger",
        request: Some(
            r#"{"customer_code": "EXT-1", "points": 100, "kind": "points",
                "description": "Goodwill after a late delivery"}"#,
        ),
        response: None,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::points::operations::{Adjustment, CartRedemption, Redemption, Transfer};
    use crate::resources::points_campaigns::model::PointsCampaignSpec;

    #[test]
    fn every_example_is_what_the_operation_accepts() {
        for example in EXAMPLES {
            let (operation, request) = (example.operation, example.request);
            match operation {
                "POST /points" | "PATCH /points/{value}" => {
                    parses::<PointsCampaignSpec>(operation, request)
                }
                "POST /points/redeem" => parses::<Redemption>(operation, request),
                "POST /points/redeem_cart" => parses::<CartRedemption>(operation, request),
                "POST /points/transfer" | "POST /scores/transfer" => {
                    parses::<Transfer>(operation, request)
                }
                "POST /scores/trigger" => parses::<Adjustment>(operation, request),
                other => panic!("no check for {other}"),
            }
        }
    }
}
