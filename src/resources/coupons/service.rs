//! Coupons through the API: a Coupon is a campaign of kind `coupon`, stored
//! as its campaign-file specification (the API's `valid_from`/`valid_to` are
//! the file's `available_from`/`available_to`, and the Coupon's own fields
//! its `coupon:` section), so files and API define the same thing.

use serde_json::{Map, Value};

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::common::language::Language;
use crate::common::money::decimal_to_f64;
use crate::engine::campaign::Campaign;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::api_campaigns::campaign_source;
use crate::resources::api_campaigns::resource::CampaignResource;
use crate::resources::api_campaigns::service::OfferAmounts;
use crate::resources::coupons::model::Coupon;
use crate::resources::coupons::model::CouponSpec;
use crate::resources::coupons::model::UsableHours;
use crate::resources::coupons::model::VoucherDiscount;
use crate::resources::coupons::rules;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::coupons::rules::CouponValue;
use crate::resources::coupons::rules::coupon_of;
use crate::resources::discounts::stacking_rules::StackingRules;
use crate::resources::limits::OfferLimit;
use crate::resources::limits::OfferLimitRules;
use crate::services::Services;

/// The kind of the campaigns this resource creates.
const KIND: &str = "coupon";

/// The fields of [`CouponSpec`] that belong in the file's `coupon:` section.
const SECTION_FIELDS: [&str; 11] = [
    "discount",
    "issues_per_customer",
    "valid_days",
    "static_code",
    "code_pattern",
    "charset",
    "excluded_products",
    "excluded_categories",
    "uses_per_voucher",
    "weekdays",
    "hours",
];

fn not_found(id: &str) -> ApiError {
    ApiError::new(ErrorCode::CouponNotFound, format!("no Coupon `{id}`"))
}

/// `spec` in the field names of a campaign file (only the fields it has).
fn file_spec(spec: &CouponSpec) -> ApiResult<Value> {
    let written = serde_json::to_value(spec).map_err(ApiError::internal)?;
    let mut file = Map::new();
    let mut section = Map::new();
    for (key, value) in written.as_object().cloned().unwrap_or_default() {
        match key.as_str() {
            "valid_from" => {
                file.insert("available_from".into(), value);
            }
            "valid_to" => {
                file.insert("available_to".into(), value);
            }
            field if SECTION_FIELDS.contains(&field) => {
                section.insert(key, value);
            }
            _ => {
                file.insert(key, value);
            }
        }
    }
    file.insert("coupon".into(), Value::Object(section));
    Ok(Value::Object(file))
}

/// Coupons, as the one flow of API-written campaigns lists, creates and
/// changes them.
pub struct Coupons;

impl CampaignResource for Coupons {
    const KIND: &'static str = KIND;
    const NOUN: &'static str = "Coupon";
    const NOT_FOUND: ErrorCode = ErrorCode::CouponNotFound;
    const NEEDS: &'static str = "discount";
    const SECTIONS: &'static [&'static str] = &["coupon", "stacking"];
    type Spec = CouponSpec;
    type View = Coupon;

    fn file_spec(spec: &CouponSpec, _new: bool) -> ApiResult<Value> {
        file_spec(spec)
    }

    fn offer(spec: &CouponSpec) -> Option<&(dyn OfferAmounts + Sync)> {
        Some(spec)
    }

    /// A `static_code` sent replaces a stored `code_pattern` (and its
    /// `charset`), and the other way round.
    fn settle(patch: &CouponSpec, merged: &mut Value) {
        StackingRules::settle_patch(patch.stacking.as_ref(), merged);
        if let Some(section) = merged.get_mut("coupon").and_then(Value::as_object_mut) {
            if patch.static_code.is_some() {
                section.remove("code_pattern");
                section.remove("charset");
            } else if patch.code_pattern.is_some() {
                section.remove("static_code");
            }
        }
    }

    fn view(campaign: &Campaign, language: &Language) -> Option<Coupon> {
        coupon_of(campaign).map(|coupon| describe(campaign, coupon, language))
    }
}

impl Services {
    /// Deletes a Coupon created through the API: its Vouchers are refused
    /// from now on (`voucher_deleted`), and its id is never given again.
    pub async fn delete_coupon(&self, company: &str, id: &str) -> ApiResult<i64> {
        let rule_id: i64 = id.parse().map_err(|_| not_found(id))?;
        let stored = self
            .stored_api_campaign(company, KIND, rule_id, || not_found(id))
            .await?;
        self.delete_api_campaign(company, &stored).await?;
        Ok(rule_id)
    }
}

/// The Coupon campaign as the API shows it.
pub(crate) fn describe(campaign: &Campaign, coupon: &rules::Coupon, language: &Language) -> Coupon {
    let render =
        |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
    let (percent, amount) = match coupon.value {
        CouponValue::Percent(percent) => (Some(decimal_to_f64(percent)), None),
        CouponValue::Amount(amount) => (None, Some(Amount(amount).into())),
    };
    let (static_code, code_pattern) = match &coupon.codes {
        CouponCodes::Static(code) => (Some(code.clone()), None),
        CouponCodes::Generated(pattern) => (None, Some(pattern.as_str().to_string())),
    };
    Coupon {
        id: campaign.id,
        source: campaign_source(campaign).to_string(),
        name: render(&campaign.name),
        description: campaign.description.as_ref().map(render),
        active: campaign.active,
        discount: VoucherDiscount {
            percent,
            amount,
            max_amount: coupon.max_amount.map(|max| Amount(max).into()),
        },
        static_code,
        code_pattern,
        valid_from: campaign.available_from.map(|t| t.instant(&language.locale)),
        valid_to: campaign.available_to.map(|t| t.instant(&language.locale)),
        locations: coupon.locations.clone(),
        excluded_products: coupon.excluded_products.clone(),
        excluded_categories: coupon.excluded_categories.clone(),
        uses_per_voucher: coupon.uses_per_voucher,
        issues_per_customer: coupon.issues_per_customer,
        valid_days: coupon.valid_days,
        weekdays: coupon.weekdays.iter().map(|d| (*d).into()).collect(),
        hours: coupon.hours.map(|hours| UsableHours {
            from: hours.from.format("%H:%M").to_string(),
            to: hours.to.format("%H:%M").to_string(),
        }),
        when: campaign.when.as_ref().map(|w| w.source.clone()),
        stacking: StackingRules::from(&campaign.stacking),
        limits: campaign.limits.iter().map(OfferLimit::rules).collect(),
    }
}

impl OfferAmounts for CouponSpec {
    fn discount_amounts(&self) -> Vec<(&'static str, Option<&SentAmount>)> {
        let discount = self.discount.as_ref();
        vec![
            ("discount.amount", discount.and_then(|d| d.amount.as_ref())),
            (
                "discount.max_amount",
                discount.and_then(|d| d.max_amount.as_ref()),
            ),
        ]
    }

    fn limit_rules(&self) -> Option<&[OfferLimitRules]> {
        self.limits.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_api_fields_become_the_files_sections() {
        let spec: CouponSpec = serde_json::from_value(json!({
            "name": "Ten", "valid_from": "2026-01-01T00:00:00Z", "locations": ["S1"],
            "discount": {"percent": 10}, "static_code": "TEN", "uses_per_voucher": 2
        }))
        .unwrap();
        assert_eq!(
            file_spec(&spec).unwrap(),
            json!({
                "name": "Ten", "available_from": "2026-01-01T00:00:00Z", "locations": ["S1"],
                "coupon": {"discount": {"percent": 10.0}, "static_code": "TEN", "uses_per_voucher": 2}
            })
        );
    }
}
