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
use crate::resources::api_campaigns::service::CampaignPatch;
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
use crate::services::Services;

/// The kind of the campaigns this resource creates.
const KIND: &str = "discount";

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::DiscountNotFound,
        format!("no discount campaign `{id}`"),
    )
}

/// `spec` in the field names of a campaign file: it listens to carts, and
/// takes off the whole cart unless it says `lines`.
fn file_spec(spec: &DiscountCampaignSpec) -> ApiResult<Value> {
    let mut file = serde_json::to_value(spec).map_err(ApiError::internal)?;
    file["on"] = json!("cart");
    Ok(file)
}

impl Services {
    /// Creates a discount campaign; it applies from the next cart on.
    pub async fn create_discount_campaign(
        &self,
        company: &str,
        spec: DiscountCampaignSpec,
        language: &Language,
    ) -> ApiResult<DiscountCampaign> {
        if spec.name.is_none() || spec.discount.is_none() {
            return Err(ApiError::invalid(
                "a discount campaign needs `name` and `discount`",
            ));
        }
        self.check_offer_amounts(company, &spec).await?;
        let mut file = file_spec(&spec)?;
        if file["discount"].get("applies_to").is_none() {
            file["discount"]["applies_to"] = json!("cart");
        }
        self.create_api_campaign(company, (KIND, &file), |campaign| {
            answer(campaign, language)
        })
        .await
    }

    /// Changes a discount campaign created through the API: the fields sent
    /// replace the stored ones (`percent` replaces `amount` and the other way
    /// round; `applies_to: cart` drops `lines`). File campaigns are changed in
    /// their files (`forbidden_request`).
    pub async fn update_discount_campaign(
        &self,
        company: &str,
        id: &str,
        patch: DiscountCampaignSpec,
        language: &Language,
    ) -> ApiResult<DiscountCampaign> {
        let rule_id: i64 = id.parse().map_err(|_| not_found(id))?;
        let changes = CampaignPatch {
            kind: KIND,
            id: rule_id,
            changes: file_spec(&patch)?,
            sections: &["discount", "stacking"],
            not_found: not_found(id),
            offer: Some(&patch),
        };
        let settle = |merged: &mut Value| {
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
        };
        self.patch_api_campaign(company, changes, settle, |campaign| {
            answer(campaign, language)
        })
        .await
    }

    /// Every discount campaign of the Company (files and API), by id.
    pub fn discount_campaigns(&self, company: &str, language: &Language) -> Vec<DiscountCampaign> {
        self.catalog
            .company(company)
            .campaigns
            .iter()
            .filter_map(|c| discount_of(c).map(|discount| describe(c, discount, language)))
            .collect()
    }

    /// The discount campaign `id`.
    pub fn discount_campaign(
        &self,
        company: &str,
        id: &str,
        language: &Language,
    ) -> ApiResult<DiscountCampaign> {
        let rule_id: i64 = id.parse().map_err(|_| not_found(id))?;
        self.catalog
            .company(company)
            .campaigns
            .iter()
            .filter(|c| c.id == rule_id)
            .find_map(|c| discount_of(c).map(|discount| describe(c, discount, language)))
            .ok_or_else(|| not_found(id))
    }
}

/// The discount of `campaign`, when it is a discount campaign.
fn discount_of(campaign: &Campaign) -> Option<&Discount> {
    match &campaign.kind {
        CampaignKind::Discount(discount) => Some(discount),
        _ => None,
    }
}

/// The campaign just created or changed, as the API shows it.
fn answer(campaign: &Campaign, language: &Language) -> ApiResult<DiscountCampaign> {
    discount_of(campaign)
        .map(|discount| describe(campaign, discount, language))
        .ok_or_else(|| ApiError::internal("a discount campaign compiled to another kind"))
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
