//! Each campaign file's last good version, kept where the next start (and
//! every server sharing the store) finds it ([`crate::engine::held_back`]).

use chrono::{DateTime, Utc};
use surrealdb::types::SurrealValue;

use crate::error::ApiResult;
use crate::storage::Store;
use crate::storage::execute;
use crate::storage::first;

/// A campaign file's last good version, as the store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptCampaignFile {
    /// The Company.
    pub company: String,
    /// The file within the Company's folder.
    pub file: String,
    /// Its text.
    pub text: String,
}

/// A kept file as stored; the record id is `campaign_file:[company, file]`.
#[derive(Debug, Clone, SurrealValue)]
#[surreal(crate = "surrealdb::types")]
struct CampaignFileRow {
    company: String,
    file: String,
    text: String,
    kept_at: DateTime<Utc>,
}

impl Store {
    /// Every campaign file's last good version.
    pub async fn kept_campaign_files(&self) -> ApiResult<Vec<KeptCampaignFile>> {
        let rows: Vec<CampaignFileRow> = first(
            self.db
                .query_keeping_customers("SELECT * OMIT id FROM campaign_file"),
        )
        .await?;
        Ok(rows
            .into_iter()
            .map(|row| KeptCampaignFile {
                company: row.company,
                file: row.file,
                text: row.text,
            })
            .collect())
    }

    /// Keeps `files` as their last good versions, at `at`.
    pub async fn keep_campaign_files(
        &self,
        files: &[KeptCampaignFile],
        at: DateTime<Utc>,
    ) -> ApiResult<()> {
        if files.is_empty() {
            return Ok(());
        }
        let rows: Vec<CampaignFileRow> = files
            .iter()
            .map(|file| CampaignFileRow {
                company: file.company.clone(),
                file: file.file.clone(),
                text: file.text.clone(),
                kept_at: at,
            })
            .collect();
        execute(
            self.db
                .query_keeping_customers(
                    "FOR $row IN $rows {
                         UPSERT type::record('campaign_file', [$row.company, $row.file])
                             CONTENT $row RETURN NONE;
                     }",
                )
                .bind(("rows", rows)),
        )
        .await
    }
}
