//! Points campaigns through the API: listed with the campaign files' ones,
//! created and updated as specifications the same compiler checks, stored,
//! and evaluated by the same engine. Their ids come from a range campaign
//! files may not use, so the two never collide.

use serde_json::json;

use crate::common::language::Language;
use crate::common::money::decimal_to_f64;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::api_campaigns::campaign_source;
use crate::resources::api_campaigns::service::CampaignPatch;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::limits::OfferLimit;
use crate::resources::points::model::PerAmountOf;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsRounding;
use crate::resources::points_campaigns::model::PointsCampaign;
use crate::resources::points_campaigns::model::PointsCampaignSpec;
use crate::resources::points_campaigns::model::PointsRules;
use crate::resources::points_campaigns::rules::Expiry;
use crate::services::Services;

/// The kind of the campaigns this resource creates.
const KIND: &str = "points";

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::PointsCampaignNotFound,
        format!("no points campaign `{id}`"),
    )
}

impl Services {
    /// Creates a points campaign; it applies from the next event on.
    pub async fn create_points_campaign(
        &self,
        company: &str,
        spec: PointsCampaignSpec,
        language: &Language,
    ) -> ApiResult<PointsCampaign> {
        if spec.name.is_none() || spec.points.is_none() {
            return Err(ApiError::invalid(
                "a points campaign needs `name` and `points`",
            ));
        }
        let spec = serde_json::to_value(&spec).map_err(ApiError::internal)?;
        self.create_api_campaign(company, (KIND, &spec), |campaign| {
            Ok(describe(campaign, "api", language))
        })
        .await
    }

    /// Updates a points campaign created through the API: the fields sent
    /// replace the stored ones. File campaigns are changed in their files
    /// (`forbidden_request`).
    pub async fn update_points_campaign(
        &self,
        company: &str,
        id: &str,
        patch: PointsCampaignSpec,
        language: &Language,
    ) -> ApiResult<PointsCampaign> {
        let rule_id: i64 = id.parse().map_err(|_| not_found(id))?;
        let changes = CampaignPatch {
            kind: KIND,
            id: rule_id,
            changes: serde_json::to_value(&patch).map_err(ApiError::internal)?,
            sections: &[],
            not_found: not_found(id),
            offer: None,
        };
        self.patch_api_campaign(
            company,
            changes,
            |_| {},
            |campaign| Ok(describe(campaign, "api", language)),
        )
        .await
    }

    /// Every points campaign of the Company (files and API), by id.
    pub fn points_campaigns(&self, company: &str, language: &Language) -> Vec<PointsCampaign> {
        let rules = self.catalog.company(company);
        rules
            .campaigns
            .iter()
            .filter(|c| matches!(c.kind, CampaignKind::Points(_)))
            .map(|c| describe(c, campaign_source(c), language))
            .collect()
    }

    /// The points campaign `id`.
    pub fn points_campaign(
        &self,
        company: &str,
        id: &str,
        language: &Language,
    ) -> ApiResult<PointsCampaign> {
        let rule_id: i64 = id.parse().map_err(|_| not_found(id))?;
        let rules = self.catalog.company(company);
        rules
            .campaigns
            .iter()
            .find(|c| c.id == rule_id && matches!(c.kind, CampaignKind::Points(_)))
            .map(|c| describe(c, campaign_source(c), language))
            .ok_or_else(|| not_found(id))
    }
}

/// The campaign as the API shows it.
fn describe(campaign: &Campaign, source: &str, language: &Language) -> PointsCampaign {
    let points = match &campaign.kind {
        CampaignKind::Points(accrual) => PointsRules {
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
        },
        _ => PointsRules {
            per_amount: None,
            per_amount_of: None,
            rounding: None,
            per_product: Default::default(),
            fixed: None,
            balance: None,
            expires_after_days: None,
            expires_at: None,
        },
    };
    PointsCampaign {
        header: CampaignHeader::of(campaign, language, &language.locale),
        source: source.to_string(),
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
