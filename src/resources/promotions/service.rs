//! Legacy Promotions: each stored as a campaign created through the API
//! (kind `promotion`, compiled as a discount campaign), so it is evaluated,
//! stacked and answered exactly like one.

use serde_json::{Value, json};

use crate::common::amount::Amount;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::api_campaigns::API_RECORD;
use crate::resources::api_campaigns::store::StoredCampaign;
use crate::resources::customers::model::normalise_code;
use crate::resources::master_data::model::normalise_features;
use crate::resources::promotions::model::Promotion;
use crate::resources::promotions::model::PromotionSpec;
use crate::resources::promotions::spec::campaign_spec;
use crate::services::Services;

/// The kind Promotions are stored as.
const KIND: &str = "promotion";

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::PromotionNotFound,
        format!("no legacy Promotion `{id}`"),
    )
}

/// The Promotion `id` kept in `stored`.
fn promotion_from(id: i64, record: &Value) -> ApiResult<Promotion> {
    let spec: PromotionSpec = serde_json::from_value(record.clone())
        .map_err(|e| ApiError::internal(format!("stored Promotion {id} unreadable: {e}")))?;
    Ok(Promotion {
        id,
        name: spec.name.unwrap_or_default(),
        description: spec.description,
        active: spec.active.unwrap_or(true),
        valid_from: spec.valid_from,
        valid_to: spec.valid_to,
        products: spec.products.unwrap_or_default(),
        features: spec.features.unwrap_or_default(),
        percent: spec.percent,
        amount: spec
            .amount
            .and_then(|amount| amount.amount("`amount`").ok()),
        priority: spec.priority.unwrap_or(0),
        exclusive: spec.exclusive.unwrap_or(false),
    })
}

/// The Promotion a stored campaign keeps.
fn stored_promotion(stored: &StoredCampaign) -> ApiResult<Promotion> {
    promotion_from(stored.id, &stored.spec[API_RECORD])
}

impl Services {
    /// Creates a legacy Promotion; it applies from the next cart on.
    pub async fn create_promotion(
        &self,
        company: &str,
        spec: PromotionSpec,
    ) -> ApiResult<Promotion> {
        let spec = self.checked_promotion(company, spec).await?;
        let record = json!(spec);
        self.create_api_campaign(
            company,
            (KIND, &campaign_spec(&spec, &record)),
            |campaign| promotion_from(campaign.id, &record),
        )
        .await
    }

    /// Changes Promotion `id`: the fields sent replace the stored ones
    /// (`percent` replaces `amount` and the other way round).
    pub async fn update_promotion(
        &self,
        company: &str,
        id: &str,
        patch: PromotionSpec,
    ) -> ApiResult<Promotion> {
        let stored = self.stored_promotion_campaign(company, id).await?;
        let mut merged: PromotionSpec = serde_json::from_value(stored.spec[API_RECORD].clone())
            .map_err(|e| ApiError::internal(format!("stored Promotion {id} unreadable: {e}")))?;
        if patch.percent.is_some() {
            merged.amount = None;
        }
        if patch.amount.is_some() {
            merged.percent = None;
        }
        let mut document = json!(merged);
        if let (Some(target), Value::Object(sent)) = (document.as_object_mut(), json!(patch)) {
            target.extend(sent);
        }
        let merged: PromotionSpec = serde_json::from_value(document).map_err(ApiError::internal)?;
        let merged = self.checked_promotion(company, merged).await?;
        let record = json!(merged);
        self.update_api_campaign(company, (&stored, &campaign_spec(&merged, &record)), |_| {
            promotion_from(stored.id, &record)
        })
        .await
    }

    /// Deletes Promotion `id`: it applies no more.
    pub async fn delete_promotion(&self, company: &str, id: &str) -> ApiResult<i64> {
        let stored = self.stored_promotion_campaign(company, id).await?;
        self.delete_api_campaign(company, &stored).await?;
        Ok(stored.id)
    }

    /// Every legacy Promotion of the Company, by id.
    pub async fn promotions(&self, company: &str) -> ApiResult<Vec<Promotion>> {
        self.store
            .api_campaigns_of(company, KIND)
            .await?
            .iter()
            .map(stored_promotion)
            .collect()
    }

    /// Promotion `id`.
    pub async fn promotion(&self, company: &str, id: &str) -> ApiResult<Promotion> {
        stored_promotion(&self.stored_promotion_campaign(company, id).await?)
    }

    async fn stored_promotion_campaign(
        &self,
        company: &str,
        id: &str,
    ) -> ApiResult<StoredCampaign> {
        let rule_id: i64 = id.trim().parse().map_err(|_| not_found(id))?;
        self.stored_api_campaign(company, KIND, rule_id, || not_found(id))
            .await
    }

    /// `spec` checked whole: a name, one of `percent` and `amount` (money
    /// of the Company's currency), product codes as codes, features the
    /// Company has (422 `unknown_feature`).
    async fn checked_promotion(
        &self,
        company: &str,
        mut spec: PromotionSpec,
    ) -> ApiResult<PromotionSpec> {
        if spec.name.is_none() {
            return Err(ApiError::invalid("a Promotion needs a `name`"));
        }
        match (spec.percent, &spec.amount) {
            (Some(_), Some(_)) => {
                return Err(ApiError::invalid(
                    "a Promotion takes `percent` or `amount`, not both",
                ));
            }
            (None, None) => {
                return Err(ApiError::invalid("a Promotion needs `percent` or `amount`"));
            }
            _ => {}
        }
        if let Some(amount) = &spec.amount {
            let minor_units = self.company_locale(company).await?.minor_units;
            let money: Amount = amount.money("`amount`", minor_units)?;
            if money.0.is_zero() {
                return Err(ApiError::invalid("`amount` must be more than 0"));
            }
        }
        if let Some(products) = &mut spec.products {
            for code in products.iter_mut() {
                *code = normalise_code(code)?;
            }
        }
        if let Some(features) = spec.features.take() {
            let features = normalise_features(features)?;
            self.refresh_master_data_of(company).await?;
            let catalogue = self.master_data.company(company);
            for (taxonomy, slugs) in &features {
                if let Some(slug) = slugs
                    .iter()
                    .find(|slug| !catalogue.product_tree.has(taxonomy, slug))
                {
                    return Err(ApiError::new(
                        ErrorCode::UnknownFeature,
                        format!(
                            "the Company has no product feature `{slug}` in taxonomy `{taxonomy}`: create it first"
                        ),
                    ));
                }
            }
            spec.features = Some(features);
        }
        Ok(spec)
    }
}
