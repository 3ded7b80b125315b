//! The `reward` kind: a Reward of the catalogue, redeemed with points or
//! given as a prize. Its keys compile to a [`Reward`]; it has no effects of
//! its own in an event.

use crate::engine::campaign_file::CampaignFile;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::engine::kinds::KindDefinition;
use crate::engine::kinds::KindRules;
use crate::engine::kinds::Reference;
use crate::engine::kinds::written;
use crate::engine::not_applied::NotApplied;
use crate::engine::schema::{def, one_of, text, whole};
use crate::resources::rewards::rules::Reward;
use crate::resources::rewards::rules::RewardFields;
use crate::resources::rewards::rules::RewardGift;
use serde_json::{Value, json};

/// How a `reward` campaign file reads.
pub static REWARD: KindDefinition = KindDefinition {
    keys: |file: &CampaignFile| {
        written(&[
            ("image_url", file.image_url.is_some()),
            ("points_cost", file.points_cost.is_some()),
            ("points_cost_by_tier", !file.points_cost_by_tier.is_empty()),
            ("balance", file.balance.is_some()),
            ("stock", file.stock.is_some()),
            ("limit", file.limit.is_some()),
            ("gives", file.gives.is_some()),
        ])
    },
    compile: |file, problems, _| {
        RewardFields {
            image_url: file.image_url.take(),
            points_cost: file.points_cost.take(),
            points_cost_by_tier: std::mem::take(&mut file.points_cost_by_tier),
            balance: file.balance.take(),
            stock: file.stock.take(),
            limit: file.limit.take(),
            gives: file.gives.take(),
        }
        .compile(problems)
        .map(|reward| CampaignKind::Reward(Box::new(reward)))
    },
    schema,
    required: None,
    sample: "id: 1\nkind: reward\nname: R\n",
};

/// The schema of the keys it describes.
fn schema() -> Vec<(&'static str, Value)> {
    vec![
        ("image_url", text("Reward: an http(s) image.")),
        ("points_cost", whole("Reward: what a redemption costs.", 0)),
        (
            "points_cost_by_tier",
            json!({ "type": "object", "additionalProperties": { "type": "integer", "minimum": 0 }, "description": "Reward: the cost for Customers of each tier." }),
        ),
        (
            "balance",
            one_of(
                &["points", "wallet"],
                "Reward: the balance that pays (default points).",
            ),
        ),
        (
            "stock",
            whole("Reward: units in total; -1 (default) is unlimited.", -1),
        ),
        (
            "limit",
            def(
                "reward_limit",
                "Reward: most redemptions per Customer and period.",
            ),
        ),
        ("gives", def("gives", "Reward: what a redemption gives.")),
    ]
}

impl KindRules for Reward {
    fn references(&self) -> Vec<Reference> {
        match self.gives {
            RewardGift::Voucher { coupon_id } => vec![Reference {
                kind: "coupon",
                id: coupon_id,
                key: "gives:",
                what: format!("the Reward gives a Voucher of Coupon {coupon_id}"),
            }],
            RewardGift::Game { game_id } => vec![Reference {
                kind: "game",
                id: game_id,
                key: "gives:",
                what: format!("the Reward gives a participation in game {game_id}"),
            }],
            RewardGift::Item(_) | RewardGift::Points { .. } => Vec::new(),
        }
    }

    fn effects(&self, _cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        Err("a Reward has no effects of its own".into())
    }
}
