//! Example requests of the points operations (API points campaigns, the
//! ledger's redemptions, transfers and adjustments), published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::points::operations::{Adjustment, CartRedemption, Redemption, Transfer};
use crate::resources::points_campaigns::model::PointsCampaignSpec;

/// A transfer of points between two Customers.
const TRANSFER: &str = r#"{"from_customer_code": "EXT-2", "to_customer_code": "EXT-1",
    "points": 250, "kind": "points", "description": "Family pooling"}"#;

/// The points operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("POST /points").takes::<PointsCampaignSpec>(
        r#"{"name": {"en": "Double points, 100 a week", "es": "Puntos dobles"},
                "on": "cart", "when": "cart.total >= 10.0",
                "points": {"per_amount": 2, "rounding": "floor", "expires_after_days": 365},
                "limits": [{"points": 100, "per": "week", "each": "customer"}]}"#,
    ),
    OperationExample::new("PATCH /points/{value}")
        .takes::<PointsCampaignSpec>(r#"{"active": false}"#),
    OperationExample::new("POST /points/redeem").takes::<Redemption>(
        r#"{"customer_code": "EXT-1", "points": 500, "kind": "points",
                "description": "Cinema tickets"}"#,
    ),
    OperationExample::new("POST /points/redeem_cart")
        .takes::<CartRedemption>(r#"{"cart_id": "T1-0001", "points": 300, "kind": "points"}"#),
    OperationExample::new("POST /points/transfer").takes::<Transfer>(TRANSFER),
    OperationExample::new("POST /scores/transfer").takes::<Transfer>(TRANSFER),
    OperationExample::new("POST /scores/trigger").takes::<Adjustment>(
        r#"{"customer_code": "EXT-1", "points": 100, "kind": "points",
                "description": "Goodwill after a late delivery"}"#,
    ),
];
