//! Repository of the campaigns created through the API: one row per
//! campaign, keyed by [company, id], holding its kind, its specification and
//! an optimistic-concurrency revision.

use serde_json::Value;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::api_campaigns::API_IDS_START;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::first_rows;

/// A stored campaign.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredCampaign {
    /// The Company.
    pub company: String,
    /// Its rule id.
    pub id: i64,
    /// Its kind (`points`, `coupon`, ...).
    pub kind: String,
    /// Its specification, in the campaign-file field names.
    pub spec: Value,
    /// Optimistic-concurrency revision, from 1.
    pub revision: i64,
    /// When it was deleted; a deleted campaign is never applied.
    pub deleted_at: Option<String>,
}

fn stored_from(row: &Value) -> Option<StoredCampaign> {
    Some(StoredCampaign {
        company: row["company"].as_str()?.to_string(),
        id: row["rule_id"].as_i64()?,
        kind: row["kind"].as_str()?.to_string(),
        spec: row["spec"].clone(),
        revision: row["revision"].as_i64()?,
        deleted_at: row["deleted_at"].as_str().map(str::to_string),
    })
}

/// One change to a stored campaign, made only if it is still at the
/// revision it was read at.
pub struct CampaignWrite<'a> {
    /// The Company.
    pub company: &'a str,
    /// The campaign's id.
    pub id: i64,
    /// Its kind.
    pub kind: &'a str,
    /// The specification to keep.
    pub spec: &'a Value,
    /// The revision it was read at (0: a new campaign).
    pub expected: i64,
    /// When the change is made.
    pub now: Timestamp,
    /// Whether the change deletes it.
    pub delete: bool,
    /// A Coupon's static code (as written, and its key): claimed for this
    /// campaign in the same transaction, refused when a Voucher or another
    /// Coupon holds it. A claim is never given back: the Vouchers of a
    /// static code keep naming its Coupon.
    pub static_code: Option<(&'a str, String)>,
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

    /// Stores a new campaign or changes one; `concurrent_modification` when
    /// it changed since it was read.
    pub async fn save_api_campaign(&self, write: CampaignWrite<'_>) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record('api_campaign', [$company, $id]);
             LET $current = ($key.revision) ?? 0;
             IF $current != $expected {{
                 THROW '{REFUSED}{changed}|the campaign changed meanwhile; read it again';
             }};
             IF $code_key != NONE AND !$delete {{
                 LET $claim = type::record('static_code', [$company, $code_key]);
                 IF record::exists(type::record('voucher', [$company, $code_key]))
                     OR (record::exists($claim) AND $claim.rule_id != $id) {{
                     THROW '{REFUSED}{taken}|the code ' + $code + ' is held by another Voucher or Coupon (codes are compared ignoring case, spaces, dashes and confusable characters)';
                 }};
                 UPSERT $claim SET rule_id = $id RETURN NONE;
             }};
             UPSERT $key SET company = $company, rule_id = $id, kind = $kind, spec = $spec,
                 revision = $expected + 1, updated_at = $now,
                 deleted_at = IF $delete {{ $now }} ELSE {{ NONE }} RETURN NONE;
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            changed = ErrorCode::ConcurrentModification.code(),
            taken = ErrorCode::VoucherCodeTaken.code(),
        );
        let now = write.now.to_string();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", write.company.to_string()))
                .bind(("id", write.id))
                .bind(("kind", write.kind.to_string()))
                .bind(("spec", write.spec.clone()))
                .bind(("expected", write.expected))
                .bind(("now", now.clone()))
                .bind(("delete", write.delete))
                .bind((
                    "code",
                    write.static_code.as_ref().map(|(code, _)| code.to_string()),
                ))
                .bind((
                    "code_key",
                    write.static_code.as_ref().map(|(_, key)| key.clone()),
                ))
        })
        .await?;
        Ok(())
    }

    /// The stored campaign `id` of `company`, deleted or not.
    pub async fn api_campaign(&self, company: &str, id: i64) -> ApiResult<Option<StoredCampaign>> {
        let row: Option<Value> = first(
            self.db
                .query("RETURN type::record('api_campaign', [$company, $id]).*")
                .bind(("company", company.to_string()))
                .bind(("id", id)),
        )
        .await?;
        Ok(row.as_ref().and_then(stored_from))
    }

    /// (Company, id, revision) of every stored campaign: cheap to compare
    /// with what was last applied.
    pub async fn api_campaign_revisions(&self) -> ApiResult<Vec<(String, i64, i64)>> {
        first_rows(
            self.db.query(
                "SELECT company, rule_id, revision FROM api_campaign ORDER BY company, rule_id",
            ),
            &["company", "rule_id", "revision"],
        )
        .await
    }

    /// The Company's stored campaigns of `kind` not deleted, by id.
    pub async fn api_campaigns_of(
        &self,
        company: &str,
        kind: &str,
    ) -> ApiResult<Vec<StoredCampaign>> {
        let rows: Vec<Value> = first(
            self.db
                .query(
                    "SELECT * FROM api_campaign WHERE company = $company AND kind = $kind
                         AND deleted_at = NONE ORDER BY rule_id",
                )
                .bind(("company", company.to_string()))
                .bind(("kind", kind.to_string())),
        )
        .await?;
        Ok(rows.iter().filter_map(stored_from).collect())
    }

    /// Every stored campaign of every Company, deleted ones included.
    pub async fn all_api_campaigns(&self) -> ApiResult<Vec<StoredCampaign>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT * FROM api_campaign ORDER BY company, rule_id"),
        )
        .await?;
        Ok(rows.iter().filter_map(stored_from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::execute;

    #[tokio::test]
    async fn points_campaigns_of_an_older_store_move_to_the_api_campaigns() {
        let store = Store::connect("mem://", None).await.unwrap();
        // The store as the release before this table left it.
        execute(store.db.query(
            "DELETE migration:api_campaigns;
             DEFINE TABLE points_campaign SCHEMALESS;
             CREATE type::record('points_campaign', ['demo', 1000003]) CONTENT {
                 company: 'demo', rule_id: 1000003, spec: { name: 'Old', points: { fixed: 5 } },
                 revision: 2, updated_at: '2026-11-01T00:00:00Z' };",
        ))
        .await
        .unwrap();
        store.apply_schema().await.unwrap();
        let moved = store
            .api_campaign("demo", 1_000_003)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(moved.kind, "points");
        assert_eq!(moved.revision, 2);
        assert_eq!(moved.spec["points"]["fixed"], 5);
        assert_eq!(moved.deleted_at, None);
        let old: Vec<Value> = first(store.db.query("SELECT * FROM points_campaign"))
            .await
            .unwrap_or_default();
        assert!(old.is_empty(), "{old:?}");
        // Applying the schema again (every start) changes nothing.
        store.apply_schema().await.unwrap();
        assert_eq!(store.all_api_campaigns().await.unwrap().len(), 1);
    }
}
