//! Points campaigns through the API: listed with the campaign files' ones,
//! created and updated as specifications the same compiler checks, stored,
//! and evaluated by the same engine. Their ids come from a range campaign
//! files may not use, so the two never collide.

use serde_json::{Value, json};

use crate::common::money::decimal_to_f64;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::kinds::CampaignKind;
use crate::engine::script::RuleError;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::languages::negotiate::Language;
use crate::resources::points::model::PointsCampaign;
use crate::resources::points::model::PointsCampaignSpec;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsRounding;
use crate::resources::points::model::PointsRules;
use crate::resources::points_campaigns::model::API_IDS_START;
use crate::resources::points_campaigns::rules::Expiry;
use crate::resources::points_campaigns::store::StoredPointsCampaign;
use crate::services::Services;

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::PointsCampaignNotFound,
        format!("no points campaign `{id}`"),
    )
}

/// The problems of a specification, as one `invalid_request`.
fn invalid(errors: Vec<RuleError>) -> ApiError {
    let described: Vec<String> = errors
        .iter()
        .map(|e| {
            // The YAML the API body became is an internal detail: report the
            // message, which names the field.
            e.message.clone()
        })
        .collect();
    ApiError::invalid(format!("invalid points campaign: {}", described.join("; ")))
}

impl Services {
    /// Compiles `spec` as campaign `id` of kind `points`.
    fn compile_points_campaign(&self, id: i64, spec: &Value) -> ApiResult<Campaign> {
        let mut document = spec.clone();
        if let Some(object) = document.as_object_mut() {
            object.insert("id".into(), json!(id));
            object.insert("kind".into(), json!("points"));
        }
        let text = serde_yaml::to_string(&document).map_err(ApiError::internal)?;
        let path = std::path::PathBuf::from(format!("api/points/{id}"));
        Campaign::parse(self.catalog.engine(), &path, &text).map_err(invalid)
    }

    /// Loads the stored API campaigns into the catalog when they changed
    /// since the last time (at start, after each write, and periodically so
    /// several processes sharing a store agree).
    pub async fn refresh_api_campaigns(&self) -> ApiResult<()> {
        let revisions = self.store.points_campaign_revisions().await?;
        if self
            .api_campaign_revisions
            .lock()
            .is_ok_and(|applied| *applied == revisions)
        {
            return Ok(());
        }
        let stored = self.store.all_points_campaigns().await?;
        let mut by_company: std::collections::BTreeMap<String, Vec<Campaign>> =
            std::collections::BTreeMap::new();
        for campaign in &stored {
            match self.compile_points_campaign(campaign.id, &campaign.spec) {
                Ok(compiled) => by_company
                    .entry(campaign.company.clone())
                    .or_default()
                    .push(compiled),
                Err(error) => {
                    tracing::error!(company = %campaign.company, id = campaign.id, %error,
                    "stored points campaign does not compile; it is not applied")
                }
            }
        }
        for company in self.catalog.api_companies() {
            by_company.entry(company).or_default();
        }
        for (company, campaigns) in by_company {
            self.catalog.set_api_campaigns(&company, campaigns);
        }
        if let Ok(mut applied) = self.api_campaign_revisions.lock() {
            *applied = stored
                .iter()
                .map(|c| (c.company.clone(), c.id, c.revision))
                .collect();
        }
        Ok(())
    }

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
        // Check before taking an id, so a bad request uses up nothing.
        self.compile_points_campaign(API_IDS_START, &spec)?;
        let id = self.store.next_api_campaign_id(company).await?;
        let campaign = self.compile_points_campaign(id, &spec)?;
        self.store
            .save_points_campaign(company, id, &spec, 0, self.now())
            .await?;
        self.refresh_api_campaigns().await?;
        tracing::info!(company, id, "points campaign created");
        Ok(describe(&campaign, "api", language))
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
        let Some(StoredPointsCampaign { spec, revision, .. }) =
            self.store.points_campaign(company, rule_id).await?
        else {
            let in_files = self
                .catalog
                .company(company)
                .campaigns
                .iter()
                .any(|c| c.id == rule_id && matches!(c.kind, CampaignKind::Points(_)));
            return Err(if in_files {
                ApiError::new(
                    ErrorCode::ForbiddenRequest,
                    format!(
                        "points campaign {rule_id} comes from a campaign file; change the file"
                    ),
                )
            } else {
                not_found(id)
            });
        };
        let mut merged = spec;
        let changes = serde_json::to_value(&patch).map_err(ApiError::internal)?;
        if let (Some(target), Some(changes)) = (merged.as_object_mut(), changes.as_object()) {
            for (key, value) in changes {
                target.insert(key.clone(), value.clone());
            }
        }
        let campaign = self.compile_points_campaign(rule_id, &merged)?;
        self.store
            .save_points_campaign(company, rule_id, &merged, revision, self.now())
            .await?;
        self.refresh_api_campaigns().await?;
        tracing::info!(company, id = rule_id, "points campaign updated");
        Ok(describe(&campaign, "api", language))
    }

    /// Every points campaign of the Company (files and API), by id.
    pub fn points_campaigns(&self, company: &str, language: &Language) -> Vec<PointsCampaign> {
        let rules = self.catalog.company(company);
        rules
            .campaigns
            .iter()
            .filter(|c| matches!(c.kind, CampaignKind::Points(_)))
            .map(|c| describe(c, source_of(c), language))
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
            .map(|c| describe(c, source_of(c), language))
            .ok_or_else(|| not_found(id))
    }
}

fn source_of(campaign: &Campaign) -> &'static str {
    if campaign.id >= API_IDS_START {
        "api"
    } else {
        "file"
    }
}

/// The campaign as the API shows it.
fn describe(campaign: &Campaign, source: &str, language: &Language) -> PointsCampaign {
    let render =
        |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
    let points = match &campaign.kind {
        CampaignKind::Points(accrual) => PointsRules {
            per_amount: accrual.per_amount.map(decimal_to_f64),
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
            rounding: None,
            per_product: Default::default(),
            fixed: None,
            balance: None,
            expires_after_days: None,
            expires_at: None,
        },
    };
    PointsCampaign {
        id: campaign.id,
        source: source.to_string(),
        name: render(&campaign.name),
        description: campaign.description.as_ref().map(render),
        active: campaign.active,
        available_from: campaign.available_from.map(|t| t.instant(&language.locale)),
        available_to: campaign.available_to.map(|t| t.instant(&language.locale)),
        on: match &campaign.listens {
            Listens::Cart => Some(json!("cart")),
            Listens::CustomEvent(kind) => Some(json!({ "custom_event": kind })),
            Listens::Trigger(kind) => Some(json!({ "trigger": kind })),
            Listens::Prize => None,
        },
        when: campaign.when.as_ref().map(|w| w.source.clone()),
        points,
    }
}
