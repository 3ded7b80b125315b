//! Repository of Idempotency-Keys and the responses they replay.

use crate::http::idempotency::model::KeyClaim;
use crate::http::idempotency::model::StoredResponse;
use serde::Deserialize;
use serde_json::Value;

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::storage::Store;
use crate::storage::execute;

#[derive(Debug, Deserialize)]
struct KeyRecord {
    state: String,
    fingerprint: String,
    lease_until: String,
    #[serde(default)]
    response: Option<StoredResponse>,
}

impl Store {
    /// Claims `key` of `company` for a request with `fingerprint`, in one
    /// transaction: a missing, expired or abandoned (lease passed) key becomes
    /// `running` for this request.
    pub async fn claim_idempotency_key(
        &self,
        company: &str,
        key: &str,
        fingerprint: &str,
        now: Timestamp,
        lease_until: Timestamp,
        expires_at: Timestamp,
    ) -> ApiResult<KeyClaim> {
        let query = "BEGIN TRANSACTION;
             LET $record = type::record('idempotency', [$company, $key]);
             LET $found = (SELECT * OMIT id FROM ONLY $record);
             LET $live = IF $found != NONE AND $found.expires_at > $now { $found } ELSE { NONE };
             IF $live == NONE OR ($live.state == 'running' AND $live.lease_until <= $now AND $live.fingerprint == $fingerprint) {
                 UPSERT $record CONTENT {
                     company: $company, key: $key, fingerprint: $fingerprint, state: 'running',
                     lease_until: $lease_until, expires_at: $expires_at, created_at: $now
                 } RETURN NONE;
             };
             $live;
             COMMIT TRANSACTION;";
        let mut response = self
            .transact(|db| {
                db.query(query)
                    .bind(("company", company.to_string()))
                    .bind(("key", key.to_string()))
                    .bind(("fingerprint", fingerprint.to_string()))
                    .bind(("now", now.to_string()))
                    .bind(("lease_until", lease_until.to_string()))
                    .bind(("expires_at", expires_at.to_string()))
            })
            .await?;
        let index = response.num_statements().saturating_sub(2);
        let live: Option<Value> = response
            .take(index)
            .map_err(|e| ApiError::internal(format!("reading the idempotency key: {e}")))?;
        let Some(live) = live else {
            return Ok(KeyClaim::Run);
        };
        let record: KeyRecord = serde_json::from_value(live)
            .map_err(|e| ApiError::internal(format!("stored idempotency key unreadable: {e}")))?;
        Ok(if record.fingerprint != fingerprint {
            KeyClaim::Mismatch
        } else if record.state == "done" {
            match record.response {
                Some(response) => KeyClaim::Replay(response),
                None => KeyClaim::InUse,
            }
        } else if record.lease_until.as_str() > now.to_string().as_str() {
            KeyClaim::InUse
        } else {
            KeyClaim::Run
        })
    }

    /// Stores the response of the request that holds `key`.
    pub async fn complete_idempotency_key(
        &self,
        company: &str,
        key: &str,
        fingerprint: &str,
        response: &StoredResponse,
    ) -> ApiResult<()> {
        execute(
            self.db
                .query(
                    "UPDATE type::record('idempotency', [$company, $key]) \
                     SET state = 'done', response = $response \
                     WHERE fingerprint = $fingerprint AND state = 'running' RETURN NONE",
                )
                .bind(("company", company.to_string()))
                .bind(("key", key.to_string()))
                .bind(("fingerprint", fingerprint.to_string()))
                .bind((
                    "response",
                    serde_json::to_value(response).map_err(ApiError::internal)?,
                )),
        )
        .await
    }

    /// Gives `key` up after a transient failure, so a retry runs again.
    pub async fn release_idempotency_key(
        &self,
        company: &str,
        key: &str,
        fingerprint: &str,
    ) -> ApiResult<()> {
        execute(
            self.db
                .query(
                    "DELETE type::record('idempotency', [$company, $key]) \
                     WHERE fingerprint = $fingerprint AND state = 'running'",
                )
                .bind(("company", company.to_string()))
                .bind(("key", key.to_string()))
                .bind(("fingerprint", fingerprint.to_string())),
        )
        .await
    }

    /// Deletes every key that expired before `now`.
    pub async fn purge_idempotency_keys(&self, now: Timestamp) -> ApiResult<()> {
        execute(
            self.db
                .query("DELETE idempotency WHERE expires_at <= $now")
                .bind(("now", now.to_string())),
        )
        .await
    }
}
