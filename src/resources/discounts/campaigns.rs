//! Discount campaigns through the API: listed with the campaign files'
//! ones, created and changed as the campaign-file specification the same
//! compiler checks (`kind: discount`, `on: cart`), and evaluated by the same
//! engine.

use serde_json::{Value, json};

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::common::language::Language;
use crate::common::money::decimal_to_f64;
use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::api_campaigns::campaign_source;
use crate::resources::api_campaigns::resource::CampaignResource;
use crate::resources::api_campaigns::service::OfferAmounts;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::discounts::model::DiscountAppliesTo;
use crate::resources::discounts::model::DiscountCampaign;
use crate::resources::discounts::model::DiscountCampaignSpec;
use crate::resources::discounts::model::DiscountRules;
use crate::resources::discounts::rules::Discount;
use crate::resources::discounts::rules::Figure;
use crate::resources::discounts::rules::Off;
use crate::resources::discounts::rules::Target;
use crate::resources::discounts::stacking_rules::StackingRules;
use crate::resources::limits::OfferLimit;
use crate::resources::limits::OfferLimitRules;

/// Discount campaigns, as the one flow of API-written campaigns lists,
/// creates and changes them.
pub struct DiscountCampaigns;

impl CampaignResource for DiscountCampaigns {
    const KIND: &'static str = "discount";
    const NOUN: &'static str = "discount campaign";
    const NOT_FOUND: ErrorCode = ErrorCode::DiscountNotFound;
    const NEEDS: &'static str = "discount";
    const SECTIONS: &'static [&'static str] = &["discount", "stacking"];
    type Spec = DiscountCampaignSpec;
    type View = DiscountCampaign;

    /// It listens to carts, and a new one takes off the whole cart unless
    /// it says `applies_to`.
    fn file_spec(spec: &DiscountCampaignSpec, new: bool) -> ApiResult<Value> {
        let mut file = serde_json::to_value(spec).map_err(ApiError::internal)?;
        file["on"] = json!("cart");
        if new && file["discount"].get("applies_to").is_none() {
            file["discount"]["applies_to"] = json!("cart");
        }
        Ok(file)
    }

    fn offer(spec: &DiscountCampaignSpec) -> Option<&(dyn OfferAmounts + Sync)> {
        Some(spec)
    }

    /// `percent` sent alone replaces a stored `amount` and the other way
    /// round; `applies_to: cart` drops `lines`.
    fn settle(patch: &DiscountCampaignSpec, merged: &mut Value) {
        StackingRules::settle_patch(patch.stacking.as_ref(), merged);
        let section = merged.get_mut("discount").and_then(Value::as_object_mut);
        if let (Some(section), Some(sent)) = (section, &patch.discount) {
            if sent.percent.is_some() && sent.amount.is_none() {
                section.remove("amount");
            } else if sent.amount.is_some() && sent.percent.is_none() {
                section.remove("percent");
            }
            if sent.applies_to == Some(DiscountAppliesTo::Cart) && sent.lines.is_none() {
                section.remove("lines");
            }
        }
    }

    fn view(campaign: &Campaign, language: &Language) -> Option<DiscountCampaign> {
        match &campaign.kind {
            CampaignKind::Discount(discount) => Some(describe(campaign, discount, language)),
            _ => None,
        }
    }
}

/// The discount campaign as the API shows it.
fn describe(campaign: &Campaign, discount: &Discount, language: &Language) -> DiscountCampaign {
    DiscountCampaign {
        header: CampaignHeader::of(campaign, language, &language.locale),
        source: campaign_source(campaign).to_string(),
        when: campaign.when.as_ref().map(|w| w.source.clone()),
        discount: rules_of(discount),
        stacking: StackingRules::from(&campaign.stacking),
        limits: campaign.limits.iter().map(OfferLimit::rules).collect(),
    }
}

/// The `discount` section as the API shows it.
fn rules_of(discount: &Discount) -> DiscountRules {
    let max_units = match &discount.applies_to {
        Target::EveryNth { max_units, .. } => *max_units,
        _ => None,
    };
    let (nth, units, min_units, bundle, size, max_sets) = match &discount.applies_to {
        Target::Cart | Target::Lines => (None, None, None, None, None, None),
        Target::EveryNth { nth, .. } => (Some(*nth), None, None, None, None, None),
        Target::Cheapest { units, min_units } => {
            (None, Some(*units), Some(*min_units), None, None, None)
        }
        Target::Bundle { parts, max_sets } => (
            None,
            None,
            None,
            Some(parts.iter().map(|part| part.source.clone()).collect()),
            None,
            *max_sets,
        ),
        Target::Set { size, max_sets } => (None, None, None, None, Some(*size), *max_sets),
    };
    let (percent, amount, price, expression) = match &discount.off {
        Off::Percent(Figure::Number(percent)) => (Some(decimal_to_f64(*percent)), None, None, None),
        Off::Amount(Figure::Number(amount)) => (None, Some(Amount(*amount).into()), None, None),
        Off::Price(price) => (None, None, Some(Amount(*price).into()), None),
        Off::Percent(Figure::Expression(script)) | Off::Amount(Figure::Expression(script)) => {
            (None, None, None, Some(script.source.clone()))
        }
    };
    DiscountRules {
        applies_to: Some(match discount.applies_to {
            Target::Cart => DiscountAppliesTo::Cart,
            Target::Lines => DiscountAppliesTo::Lines,
            Target::EveryNth { .. } => DiscountAppliesTo::EveryNth,
            Target::Cheapest { .. } => DiscountAppliesTo::Cheapest,
            Target::Bundle { .. } => DiscountAppliesTo::Bundle,
            Target::Set { .. } => DiscountAppliesTo::Set,
        }),
        lines: discount.lines.as_ref().map(|l| l.source.clone()),
        percent,
        amount,
        price,
        max_amount: discount.max_amount.map(|a| Amount(a).into()),
        nth,
        max_units,
        units,
        min_units,
        bundle,
        size,
        max_sets,
        expression,
    }
}

impl OfferAmounts for DiscountCampaignSpec {
    fn discount_amounts(&self) -> Vec<(&'static str, Option<&SentAmount>)> {
        let discount = self.discount.as_ref();
        vec![
            ("discount.amount", discount.and_then(|d| d.amount.as_ref())),
            (
                "discount.max_amount",
                discount.and_then(|d| d.max_amount.as_ref()),
            ),
            ("discount.price", discount.and_then(|d| d.price.as_ref())),
        ]
    }

    fn limit_rules(&self) -> Option<&[OfferLimitRules]> {
        self.limits.as_deref()
    }
}
