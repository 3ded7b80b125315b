//! Example requests and answers of the Rewards operations, published in the
//! spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::rewards::api::{
    RewardList, RewardRedemption, RewardRollback, RewardTransactionList,
};
use crate::resources::rewards::model::RewardTransaction;
use crate::resources::rewards::view::RewardView;

/// A Reward as the catalogue shows it for a named Customer.
macro_rules! reward {
    () => {
        r#"{"id": 402, "name": "Tote bag", "description": "Organic cotton",
            "image_url": "https://example.com/tote.png", "active": true,
            "available_from": "2026-01-01T00:00:00Z", "available_to": "2026-12-31T23:59:59Z",
            "points_cost": 500, "points_cost_by_tier": {"gold": 400}, "balance": "points",
            "stock": 200, "stock_left": 37, "limit": {"count": 1, "per": "month"},
            "gives": {"type": "item", "item": "TOTE-01"},
            "customer_id": "cus_0190aa00000000aa00000001", "customer_cost": 500,
            "redeemed_in_period": 0, "can_redeem": false,
            "reason": "customer_not_enough_score",
            "reason_message": "Reward 402 costs 500 points; the Customer has 320"}"#
    };
}

/// A redemption as it is answered and listed.
macro_rules! redemption {
    ($state:literal, $rolled_back:literal) => {
        concat!(
            r#"{"id": "rwt_0190aa00000000aa00000002", "customer_id": "cus_0190aa00000000aa00000001",
                "reward_id": 420, "reward_name": "Five off your next basket",
                "source": "redemption", "rule_id": 420, "state": ""#,
            $state,
            r#"", "points": 200, "balance": "points",
                "given": {"type": "voucher", "coupon_id": 31, "voucher_code": "RWD-4K7Q2M",
                          "voucher_id": "vch_0190aa00000000aa00000003"},
                "location_code": "S1", "author_email": "till-7@shop.example",
                "created_at": "2026-11-23T10:00:00Z""#,
            $rolled_back,
            "}"
        )
    };
}

/// The Rewards operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("GET /rewards").answers::<RewardList>(concat!(
        r#"{"rewards": ["#,
        reward!(),
        "]}"
    )),
    OperationExample::new("GET /rewards/{id}").answers::<RewardView>(reward!()),
    OperationExample::new("POST /rewards/{id}/redeem")
        .takes::<RewardRedemption>(r#"{"customer_code": "EXT-1", "location_code": "S1"}"#)
        .answers::<RewardTransaction>(redemption!("redeemed", "")),
    OperationExample::new("GET /rewards/transactions").answers::<RewardTransactionList>(concat!(
        r#"{"reward_transactions": ["#,
        redemption!("redeemed", ""),
        r#"], "next_token_starts_after": "rwt_0190aa00000000aa00000002"}"#
    )),
    OperationExample::new("POST /rewards/transactions/{id}/rollback")
        .takes::<RewardRollback>(r#"{"reason": "returned at the desk"}"#)
        .answers::<RewardTransaction>(redemption!(
            "rolled_back",
            r#", "rolled_back_at": "2026-11-23T11:30:00Z", "rolled_back_by": "desk@shop.example",
               "rollback_reason": "returned at the desk""#
        )),
];
