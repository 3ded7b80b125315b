//! The `discount` kind: money off a cart, its lines or its units. Its
//! `discount:` section compiles to a [`Discount`]; evaluated, it offers a
//! reckoning that is settled with the other discounts and the Vouchers once
//! every campaign was evaluated ([`super::settle`]).

use crate::engine::campaign_file::CampaignFile;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::engine::kinds::KindDefinition;
use crate::engine::kinds::KindRules;
use crate::engine::kinds::written;
use crate::engine::not_applied::NotApplied;
use crate::engine::schema::def;
use crate::engine::script::Script;
use crate::resources::discounts::rules::Discount;
use crate::resources::discounts::rules::discount_offer;
use crate::resources::discounts::settle::CampaignOffer;
use serde_json::Value;

/// How a `discount` campaign file reads.
pub static DISCOUNT: KindDefinition = KindDefinition {
    keys: |file: &CampaignFile| written(&[("discount", file.discount.is_some())]),
    compile: |file, problems, compile| {
        let Some(section) = file.discount.take() else {
            problems.at_key("kind", "a `discount` campaign needs a `discount:` section");
            return None;
        };
        section
            .compile(problems, compile)
            .map(|discount| CampaignKind::Discount(Box::new(discount)))
    },
    schema,
    required: Some("discount"),
    sample: "id: 1\nkind: discount\nname: D\non: cart\ndiscount:\n  applies_to: cart\n  percent: 10\n",
};

/// The schema of the keys it describes.
fn schema() -> Vec<(&'static str, Value)> {
    vec![(
        "discount",
        def(
            "discount",
            "kind: discount - money off the cart, its lines or its units.",
        ),
    )]
}

impl KindRules for Discount {
    fn expressions(&self) -> Vec<&Script> {
        Discount::expressions(self)
    }

    /// Offers its reckoning; its effects come once the offers are settled.
    fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        let reckoning = discount_offer(cx.engine, self, cx.facts, cx.prepared)?;
        cx.discount_offers.push(CampaignOffer {
            rule_id: cx.campaign.id,
            rule_name: (cx.render)(&cx.campaign.name).into(),
            reckoning,
            position: cx.effects_so_far,
        });
        Ok(Vec::new())
    }
}
