//! Repository of API keys. Secrets are never stored, only their digests.

use crate::resources::companies::model::StoredKey;
use chrono::{DateTime, Utc};
use surrealdb::types::SurrealValue;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::companies::model::ApiKey;
use crate::resources::companies::store::companies::parse_environment;
use crate::storage::Store;
use crate::storage::execute;
use crate::storage::first;
use crate::storage::store_error;

/// An API key as stored; the record id is `api_key:<key value>`.
#[derive(Debug, Clone, SurrealValue)]
#[surreal(crate = "surrealdb::types")]
struct ApiKeyRow {
    key: String,
    company: String,
    environment: String,
    description: String,
    enabled: bool,
    system: bool,
    secret_digest: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    last_used_at: Option<DateTime<Utc>>,
    /// True for the demo Company's first key until its secret is printed
    /// (`resources/companies/bootstrap.rs`); absent otherwise.
    secret_unshown: Option<bool>,
}

impl ApiKeyRow {
    fn into_stored(self) -> ApiResult<StoredKey> {
        Ok(StoredKey {
            key: ApiKey {
                environment: parse_environment(&self.environment)?,
                key: self.key,
                company: self.company,
                description: self.description,
                enabled: self.enabled,
                system: self.system,
                created_at: self.created_at,
                updated_at: self.updated_at,
                last_used_at: self.last_used_at,
            },
            secret_digest: self.secret_digest,
        })
    }
}

impl Store {
    /// Stores a new key with the digest of its secret; `secret_unshown`
    /// marks a key whose secret is yet to be shown (the demo Company's).
    pub async fn create_key(
        &self,
        key: &ApiKey,
        secret_digest: &str,
        secret_unshown: bool,
    ) -> ApiResult<()> {
        let row = ApiKeyRow {
            key: key.key.clone(),
            company: key.company.clone(),
            environment: key.environment.as_str().to_string(),
            description: key.description.clone(),
            enabled: key.enabled,
            system: key.system,
            secret_digest: secret_digest.to_string(),
            created_at: key.created_at,
            updated_at: key.updated_at,
            last_used_at: key.last_used_at,
            secret_unshown: secret_unshown.then_some(true),
        };
        execute(
            self.db
                .query("CREATE type::record('api_key', $key) CONTENT $row RETURN NONE")
                .bind(("key", key.key.clone()))
                .bind(("row", row)),
        )
        .await?;
        Ok(())
    }

    /// The key with value `key`, with its secret digest.
    pub async fn stored_key(&self, key: &str) -> ApiResult<Option<StoredKey>> {
        let row: Option<ApiKeyRow> = first(
            self.db
                .query("SELECT * OMIT id FROM ONLY type::record('api_key', $key)")
                .bind(("key", key.to_string())),
        )
        .await?;
        row.map(ApiKeyRow::into_stored).transpose()
    }

    /// Every key, optionally only those of one Company, oldest first.
    pub async fn keys(&self, company: Option<&str>) -> ApiResult<Vec<ApiKey>> {
        let query = match company {
            Some(_) => {
                "SELECT * OMIT id FROM api_key WHERE company = $company ORDER BY created_at, key"
            }
            None => "SELECT * OMIT id FROM api_key ORDER BY created_at, key",
        };
        let rows: Vec<ApiKeyRow> = first(
            self.db
                .query(query)
                .bind(("company", company.unwrap_or_default().to_string())),
        )
        .await?;
        rows.into_iter()
            .map(|row| row.into_stored().map(|stored| stored.key))
            .collect()
    }

    /// Sets `enabled` on a non-system key and returns the updated record.
    ///
    /// The `system = false` guard is inside the statement, so a system key is
    /// never changed even if the caller's earlier check raced.
    pub async fn set_key_enabled(&self, key: &str, enabled: bool) -> ApiResult<Option<ApiKey>> {
        let mut response = self
            .db
            .query(
                "UPDATE ONLY type::record('api_key', $key) \
                 SET enabled = $enabled, updated_at = time::now() \
                 WHERE system = false RETURN AFTER",
            )
            .bind(("key", key.to_string()))
            .bind(("enabled", enabled))
            .await
            .and_then(|r| r.check())
            .map_err(store_error)?;
        let row: Option<ApiKeyRow> = response
            .take(0)
            .map_err(|e| ApiError::internal(format!("reading the updated key: {e}")))?;
        row.map(|row| row.into_stored().map(|stored| stored.key))
            .transpose()
    }

    /// Records when keys were last used: `(key, at)`, each kept only when
    /// later than what the record holds (another process may have written a
    /// later use). Touches no Customer.
    pub async fn record_key_uses(&self, uses: &[(String, DateTime<Utc>)]) -> ApiResult<()> {
        let uses: Vec<(String, DateTime<Utc>)> = uses.to_vec();
        execute(
            self.db
                .query_keeping_customers(
                    "FOR $use IN $uses {
                         UPDATE type::record('api_key', $use[0])
                             SET last_used_at = $use[1]
                             WHERE last_used_at = NONE OR last_used_at < $use[1]
                             RETURN NONE;
                     }",
                )
                .bind(("uses", uses)),
        )
        .await
    }

    /// Keys of `company` whose secret was never shown.
    pub async fn unshown_keys(&self, company: &str) -> ApiResult<Vec<String>> {
        first(
            self.db
                .query("SELECT VALUE key FROM api_key WHERE company = $company AND secret_unshown = true")
                .bind(("company", company.to_string())),
        )
        .await
    }

    /// Records that `key`'s secret was shown.
    pub async fn mark_secret_shown(&self, key: &str) -> ApiResult<()> {
        execute(
            self.db
                .query("UPDATE type::record('api_key', $key) SET secret_unshown = NONE RETURN NONE")
                .bind(("key", key.to_string())),
        )
        .await
    }

    /// Disables `key`, whose secret nobody ever saw; kept on record.
    pub async fn retire_unshown_key(&self, key: &str) -> ApiResult<()> {
        execute(
            self.db
                .query(
                    "UPDATE type::record('api_key', $key) \
                     SET enabled = false, secret_unshown = NONE, updated_at = time::now() \
                     WHERE secret_unshown = true RETURN NONE",
                )
                .bind(("key", key.to_string())),
        )
        .await
    }
}
