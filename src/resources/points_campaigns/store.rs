//! Repository of points campaigns created through the API: each stored as the
//! specification it was created or last updated with, keyed by [company, id].

use serde_json::Value;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::points_campaigns::model::API_IDS_START;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;

/// A stored points campaign.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPointsCampaign {
    /// The Company.
    pub company: String,
    /// Its rule id.
    pub id: i64,
    /// Its specification, in the campaign-file field names.
    pub spec: Value,
    /// Optimistic-concurrency revision, from 1.
    pub revision: i64,
}

fn stored_from(row: &Value) -> Option<StoredPointsCampaign> {
    Some(StoredPointsCampaign {
        company: row["company"].as_str()?.to_string(),
        id: row["rule_id"].as_i64()?,
        spec: row["spec"].clone(),
        revision: row["revision"].as_i64()?,
    })
}

impl Store {
    /// A new id for a campaign of `company` created through the API.
    pub async fn next_api_campaign_id(&self, company: &str) -> ApiResult<i64> {
        // One UPSERT is atomic: two creations never get the same id.
        let mut response = self
            .transact(|db| {
                db.query(
                    "UPSERT type::record('campaign_sequence', $company) SET next = (next ?? $start) + 1 RETURN AFTER",
                )
                .bind(("company", company.to_string()))
                .bind(("start", API_IDS_START))
            })
            .await?;
        let rows: Vec<Value> = response.take(0).map_err(crate::storage::store_error)?;
        Ok(rows
            .first()
            .and_then(|row| row["next"].as_i64())
            .map_or(API_IDS_START, |next| next - 1))
    }

    /// Stores a new campaign (`expected` 0) or replaces revision `expected`
    /// of one, as updated at `now`; `concurrent_modification` when it changed
    /// meanwhile.
    pub async fn save_points_campaign(
        &self,
        company: &str,
        id: i64,
        spec: &Value,
        expected: i64,
        now: Timestamp,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record('points_campaign', [$company, $id]);
             LET $current = (SELECT VALUE revision FROM ONLY $key) ?? 0;
             IF $current != $expected {{
                 THROW '{REFUSED}{changed}|the campaign changed meanwhile; read it again';
             }};
             UPSERT $key SET company = $company, rule_id = $id, spec = $spec,
                 revision = $expected + 1, updated_at = $now RETURN NONE;
             COMMIT TRANSACTION;",
            changed = ErrorCode::ConcurrentModification.code()
        );
        let now = now.to_string();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("id", id))
                .bind(("spec", spec.clone()))
                .bind(("expected", expected))
                .bind(("now", now.clone()))
        })
        .await?;
        Ok(())
    }

    /// The stored campaign `id` of `company`.
    pub async fn points_campaign(
        &self,
        company: &str,
        id: i64,
    ) -> ApiResult<Option<StoredPointsCampaign>> {
        let row: Option<Value> = first(
            self.db
                .query("SELECT * FROM ONLY type::record('points_campaign', [$company, $id])")
                .bind(("company", company.to_string()))
                .bind(("id", id)),
        )
        .await?;
        Ok(row.as_ref().and_then(stored_from))
    }

    /// (Company, id, revision) of every stored campaign: cheap to compare
    /// with what was last applied.
    pub async fn points_campaign_revisions(&self) -> ApiResult<Vec<(String, i64, i64)>> {
        let rows: Vec<Value> = first(self.db.query(
            "SELECT company, rule_id, revision FROM points_campaign ORDER BY company, rule_id",
        ))
        .await?;
        Ok(rows
            .iter()
            .filter_map(|row| {
                Some((
                    row["company"].as_str()?.to_string(),
                    row["rule_id"].as_i64()?,
                    row["revision"].as_i64()?,
                ))
            })
            .collect())
    }

    /// Every stored campaign of every Company.
    pub async fn all_points_campaigns(&self) -> ApiResult<Vec<StoredPointsCampaign>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT * FROM points_campaign ORDER BY company, rule_id"),
        )
        .await?;
        Ok(rows.iter().filter_map(stored_from).collect())
    }
}
