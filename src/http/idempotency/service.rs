//! Idempotency-Keys: the first completed response of a POST, PATCH or PUT is
//! kept for 24 hours and replayed for retries of the same request.

use std::time::Duration;

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::here::KeyOutcome;
use crate::http::idempotency::here::RunningKey;
use crate::http::idempotency::here::Unrecorded;
use crate::http::idempotency::model::KeyClaim;
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

/// Claims `key` for a request with `fingerprint`; while the claim
/// runs, and after a [`KeyClaim::Run`] the request with the returned
/// guard, other requests of this process are kept from it.
pub async fn claim_idempotency_key(
    services: &Services,
    company: &str,
    key: &str,
    fingerprint: &str,
) -> ApiResult<(KeyClaim, Option<RunningKey>)> {
    validate_key(key)?;
    let Some(running) = services.gate.keys_here.start(company, key) else {
        return Ok((KeyClaim::InUse, None));
    };
    let now = services.now();
    let claim = services
        .store
        .claim_idempotency_key(
            company,
            key,
            fingerprint,
            &services.instance_id,
            now,
            later(now, KEY_LEASE),
            later(now, KEY_LIFETIME),
        )
        .await;
    if let Err(error) = &claim
        && error.code == ErrorCode::StoreUnavailable
    {
        // The claim may still reach the store when it is back: free the
        // key then, after it.
        services.gate.keys_here.keep(Unrecorded {
            company: company.to_string(),
            key: key.to_string(),
            fingerprint: fingerprint.to_string(),
            outcome: KeyOutcome::Release,
        });
    }
    let claim = claim?;
    // Only a request that runs holds the key here: a replay does not.
    let running = matches!(claim, KeyClaim::Run).then_some(running);
    Ok((claim, running))
}

/// Records what becomes of `key` now its request ended; when the store
/// does not take it, it is kept and recorded once the store answers
/// again ([`record_kept_key_outcomes`]).
pub async fn record_key_outcome(
    services: &Services,
    company: &str,
    key: &str,
    fingerprint: &str,
    outcome: KeyOutcome,
) {
    let unrecorded = Unrecorded {
        company: company.to_string(),
        key: key.to_string(),
        fingerprint: fingerprint.to_string(),
        outcome,
    };
    if let Err(error) = record(services, &unrecorded).await {
        tracing::error!(%error, key, "idempotency key's outcome not recorded; kept to record later");
        services.gate.keys_here.keep(unrecorded);
    }
}

/// Records the key outcomes kept while the store did not answer; those
/// it still does not take are kept for the next time.
pub async fn record_kept_key_outcomes(services: &Services) {
    for unrecorded in services.gate.keys_here.take_unrecorded() {
        // A retry this process runs with the key now holds it: what
        // becomes of the key is that request's to say.
        let Some(_running) = services
            .gate
            .keys_here
            .start(&unrecorded.company, &unrecorded.key)
        else {
            continue;
        };
        if record(services, &unrecorded).await.is_err() {
            services.gate.keys_here.keep(unrecorded);
        }
    }
}

async fn record(services: &Services, unrecorded: &Unrecorded) -> ApiResult<()> {
    let Unrecorded {
        company,
        key,
        fingerprint,
        outcome,
    } = unrecorded;
    match outcome {
        KeyOutcome::Complete(response) => {
            services
                .store
                .complete_idempotency_key(
                    company,
                    key,
                    (fingerprint, &services.instance_id),
                    response,
                )
                .await
        }
        KeyOutcome::Release => {
            services
                .store
                .release_idempotency_key(company, key, (fingerprint, &services.instance_id))
                .await
        }
    }
}

/// Forgets keys older than their lifetime.
pub async fn purge_expired_keys(services: &Services) -> ApiResult<()> {
    services.store.purge_idempotency_keys(services.now()).await
}
