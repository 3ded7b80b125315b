//! Points campaigns through the API: listed with the campaign files' ones,
//! created and updated as specifications the same compiler checks, stored,
//! and evaluated by the same engine. Their ids come from a range campaign
//! files may not use, so the two never collide.

use serde_json::{Value, json};

use crate::common::language::Language;
use crate::common::money::decimal_to_f64;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::api_campaigns::campaign_source;
use crate::resources::api_campaigns::resource::CampaignResource;
use crate::resources::api_campaigns::service::OfferAmounts;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::limits::OfferLimit;
use crate::resources::points::model::PerAmountOf;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsRounding;
use crate::resources::points_campaigns::model::PointsCampaign;
use crate::resources::points_campaigns::model::PointsCampaignSpec;
use crate::resources::points_campaigns::model::PointsRules;
use crate::resources::points_campaigns::rules::Expiry;
use crate::resources::points_campaigns::rules::PointsAccrual;

/// Points campaigns, as the one flow of API-written campaigns lists,
/// creates and changes them.
pub struct PointsCampaigns;

impl CampaignResource for PointsCampaigns {
    const KIND: &'static str = "points";
    const NOUN: &'static str = "points campaign";
    const NOT_FOUND: ErrorCode = ErrorCode::PointsCampaignNotFound;
    const NEEDS: &'static str = "points";
    const SECTIONS: &'static [&'static str] = &[];
    type Spec = PointsCampaignSpec;
    type View = PointsCampaign;

    /// Its fields are a campaign file's.
    fn file_spec(spec: &PointsCampaignSpec, _new: bool) -> ApiResult<Value> {
        serde_json::to_value(spec).map_err(ApiError::internal)
    }

    fn offer(_spec: &PointsCampaignSpec) -> Option<&(dyn OfferAmounts + Sync)> {
        None
    }

    fn settle(_patch: &PointsCampaignSpec, _merged: &mut Value) {}

    fn view(campaign: &Campaign, language: &Language) -> Option<PointsCampaign> {
        match &campaign.kind {
            CampaignKind::Points(accrual) => Some(describe(campaign, accrual, language)),
            _ => None,
        }
    }
}

/// The campaign as the API shows it.
fn describe(campaign: &Campaign, accrual: &PointsAccrual, language: &Language) -> PointsCampaign {
    let points = PointsRules {
        per_amount: accrual.per_amount.map(decimal_to_f64),
        per_amount_of: accrual.on_paid.then_some(PerAmountOf::Paid),
        rounding: Some(accrual.rounding).filter(|r| *r != PointsRounding::Floor),
        per_product: accrual.per_product.clone(),
        fixed: accrual.fixed,
        balance: Some(accrual.kind).filter(|k| *k != PointsKind::Points),
        expires_after_days: match accrual.expiry {
            Some(Expiry::AfterDays(days)) => Some(days),
            _ => None,
        },
        expires_at: match accrual.expiry {
            Some(Expiry::At(at)) => Some(at.instant(&language.locale)),
            _ => None,
        },
    };
    PointsCampaign {
        header: CampaignHeader::of(campaign, language, &language.locale),
        source: campaign_source(campaign).to_string(),
        on: match &campaign.listens {
            Listens::Cart => Some(json!("cart")),
            Listens::CustomEvent(kind) => Some(json!({ "custom_event": kind })),
            Listens::Trigger(kind) => Some(json!({ "trigger": kind })),
            Listens::Customer(moment) => Some(json!(moment.name())),
            Listens::Prize | Listens::Play(_) => None,
        },
        when: campaign.when.as_ref().map(|w| w.source.clone()),
        points,
        limits: campaign.limits.iter().map(OfferLimit::rules).collect(),
    }
}
