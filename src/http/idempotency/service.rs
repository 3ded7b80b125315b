//! Idempotency-Keys: the first completed response of a POST, PATCH or PUT is
//! kept for 24 hours and replayed for retries of the same request.

use std::time::Duration;

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::http::idempotency::model::KeyClaim;
use crate::http::idempotency::model::StoredResponse;
use crate::services::Services;

/// How long a completed key is remembered.
pub const KEY_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);
/// How long a running request holds its key before a retry may take it over
/// (the request timeout is well below this).
pub const KEY_LEASE: Duration = Duration::from_secs(120);
/// Longest accepted Idempotency-Key.
pub const MAX_KEY_LENGTH: usize = 255;

fn later(now: Timestamp, by: Duration) -> Timestamp {
    Timestamp::from(now.as_datetime() + chrono::Duration::from_std(by).unwrap_or_default())
}

/// Checks an Idempotency-Key value: 1 to 255 visible ASCII characters.
pub fn validate_key(key: &str) -> ApiResult<()> {
    if key.is_empty() || key.len() > MAX_KEY_LENGTH || !key.chars().all(|c| c.is_ascii_graphic()) {
        return Err(ApiError::invalid(format!(
            "Idempotency-Key must be 1 to {MAX_KEY_LENGTH} visible ASCII characters"
        )));
    }
    Ok(())
}

impl Services {
    /// Claims `key` for a request with `fingerprint`.
    pub async fn claim_idempotency_key(
        &self,
        company: &str,
        key: &str,
        fingerprint: &str,
    ) -> ApiResult<KeyClaim> {
        validate_key(key)?;
        let now = self.now();
        self.store
            .claim_idempotency_key(
                company,
                key,
                fingerprint,
                &self.instance_id,
                now,
                later(now, KEY_LEASE),
                later(now, KEY_LIFETIME),
            )
            .await
    }

    /// Stores the response of the request holding `key`.
    pub async fn complete_idempotency_key(
        &self,
        company: &str,
        key: &str,
        fingerprint: &str,
        response: &StoredResponse,
    ) -> ApiResult<()> {
        self.store
            .complete_idempotency_key(company, key, fingerprint, response)
            .await
    }

    /// Frees `key` after a transient failure so a retry runs again.
    pub async fn release_idempotency_key(
        &self,
        company: &str,
        key: &str,
        fingerprint: &str,
    ) -> ApiResult<()> {
        self.store
            .release_idempotency_key(company, key, fingerprint)
            .await
    }

    /// Forgets keys older than their lifetime.
    pub async fn purge_idempotency_keys(&self) -> ApiResult<()> {
        self.store.purge_idempotency_keys(self.now()).await
    }
}
