//! Authentication of integrator calls by X-Api-Key, X-Api-Secret and X-Api-Version.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::companies::model::Environment;
use crate::resources::companies::model::StoredKey;
use crate::secrets::constant_time_eq;
use crate::secrets::secret_digest;
use crate::services::Services;

/// How long a key read from the store is trusted. Keys are disabled through
/// this process's back office, which forgets them at once; a key disabled by
/// another process sharing a remote store is refused here within this time.
const KEY_FRESH_FOR: Duration = Duration::from_secs(1);

/// How old a key in use may get before it is read again in the background,
/// so a steady stream of requests never waits for the read.
const KEY_REFRESH_AFTER: Duration = Duration::from_millis(500);

/// A key as read, when, and whether a read of it is under way.
#[derive(Debug)]
struct CachedKey {
    stored: Arc<StoredKey>,
    read_at: Instant,
    refreshing: bool,
}

/// Keys read in the last second, so that a till's requests cost no store read
/// to authenticate: a key in use is read again in the background after half a
/// second. Only keys the store holds are kept, so the cache is as large as
/// the key table at most.
#[derive(Debug, Default)]
pub struct KeyCache {
    entries: RwLock<HashMap<String, CachedKey>>,
}

/// A key found fresh in the cache.
struct Fresh {
    stored: Arc<StoredKey>,
    /// Whether the caller is to read it again in the background.
    refresh: bool,
}

impl KeyCache {
    /// `key` as read less than [`KEY_FRESH_FOR`] before `now`; the first
    /// caller after [`KEY_REFRESH_AFTER`] is told to read it again.
    fn fresh(&self, key: &str, now: Instant) -> Option<Fresh> {
        let stale_soon = {
            let entries = self.entries.read().ok()?;
            let cached = entries.get(key)?;
            let age = now.saturating_duration_since(cached.read_at);
            if age >= KEY_FRESH_FOR {
                return None;
            }
            if age < KEY_REFRESH_AFTER || cached.refreshing {
                return Some(Fresh {
                    stored: cached.stored.clone(),
                    refresh: false,
                });
            }
            cached.stored.clone()
        };
        // One caller starts the read: the first to mark the entry.
        let refresh = self.entries.write().ok().is_some_and(|mut entries| {
            entries
                .get_mut(key)
                .is_some_and(|cached| !std::mem::replace(&mut cached.refreshing, true))
        });
        Some(Fresh {
            stored: stale_soon,
            refresh,
        })
    }

    fn keep(&self, stored: Arc<StoredKey>, read_at: Instant) {
        if let Ok(mut entries) = self.entries.write() {
            let cached = CachedKey {
                stored: stored.clone(),
                read_at,
                refreshing: false,
            };
            entries.insert(stored.key.key.clone(), cached);
        }
    }

    /// Lets the next caller read `key` again (a background read failed).
    fn refresh_failed(&self, key: &str) {
        if let Ok(mut entries) = self.entries.write()
            && let Some(cached) = entries.get_mut(key)
        {
            cached.refreshing = false;
        }
    }

    /// Drops `key`, so its next use reads the store.
    pub fn forget(&self, key: &str) {
        if let Ok(mut entries) = self.entries.write() {
            entries.remove(key);
        }
    }
}

/// Reads `key` from the store into the cache; the key, if the store holds it.
async fn read_key(services: &Services, key: &str) -> ApiResult<Option<Arc<StoredKey>>> {
    let read_at = Instant::now();
    match services.store.stored_key(key).await {
        Ok(Some(stored)) => {
            let stored = Arc::new(stored);
            services.gate.keys.keep(stored.clone(), read_at);
            Ok(Some(stored))
        }
        Ok(None) => {
            services.gate.keys.forget(key);
            Ok(None)
        }
        Err(error) => {
            services.gate.keys.refresh_failed(key);
            Err(error)
        }
    }
}

/// The only API version this service implements.
pub const SUPPORTED_API_VERSION: &str = "1";

/// A digest no real secret produces, compared against when the key is unknown so
/// that an unknown key costs the same work as a wrong secret.
const UNKNOWN_KEY_DIGEST: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The three authentication headers as received; any may be missing.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    /// X-Api-Key.
    pub key: Option<String>,
    /// X-Api-Secret.
    pub secret: Option<String>,
    /// X-Api-Version.
    pub version: Option<String>,
}

/// Who is calling: the Company (tenant) a valid key belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// Slug of the Company; every query of the request is scoped to it.
    pub company: String,
    /// Environment of the Company.
    pub environment: Environment,
    /// The key value used (public, safe to log).
    pub key: String,
}

/// Checks credentials and returns the calling Company.
///
/// Every failure is the same `Forbidden` error, and every path checks the
/// secret the same way (one digest, one constant-time compare, also for
/// an unknown key), so neither the answer nor its timing tells how much
/// of a secret was right. A key is read from the store at most once a
/// second ([`KeyCache`]); key values are public (they are logged), so
/// telling a known key by its faster answer gives nothing away.
pub async fn authenticate(services: &Services, credentials: &Credentials) -> ApiResult<Caller> {
    let key = credentials.key.as_deref().unwrap_or_default();
    let secret = credentials.secret.as_deref().unwrap_or_default();
    let stored = match services.gate.keys.fresh(key, Instant::now()) {
        Some(fresh) => {
            if fresh.refresh {
                let services = services.clone();
                let key = key.to_string();
                tokio::spawn(async move { read_key(&services, &key).await });
            }
            Some(fresh.stored)
        }
        None if key.is_empty() => None,
        None => read_key(services, key).await?,
    };
    let expected = stored
        .as_ref()
        .map_or(UNKNOWN_KEY_DIGEST, |s| s.secret_digest.as_str());
    let secret_ok = constant_time_eq(expected, &secret_digest(key, secret));
    let version_ok = credentials.version.as_deref() == Some(SUPPORTED_API_VERSION);
    match stored {
        Some(stored)
            if secret_ok
                && version_ok
                && stored.key.enabled
                && services
                    .serve_environment
                    .is_none_or(|env| env == stored.key.environment) =>
        {
            services
                .gate
                .key_uses
                .mark(&stored.key.key, services.now().as_datetime());
            Ok(Caller {
                company: stored.key.company.clone(),
                environment: stored.key.environment,
                key: stored.key.key.clone(),
            })
        }
        _ => Err(ApiError::forbidden()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::companies::model::ApiKey;

    fn stored(key: &str) -> Arc<StoredKey> {
        let key: ApiKey = serde_json::from_value(serde_json::json!({
            "key": key, "company": "acme", "environment": "sandbox",
            "description": "till", "enabled": true, "system": false,
            "created_at": "2026-11-22T10:00:00Z", "updated_at": "2026-11-22T10:00:00Z"
        }))
        .unwrap();
        Arc::new(StoredKey {
            key,
            secret_digest: secret_digest("lk_a", "s"),
        })
    }

    #[test]
    fn a_key_is_trusted_for_a_second_after_it_was_read_unless_forgotten() {
        let cache = KeyCache::default();
        let at = Instant::now();
        assert!(cache.fresh("lk_a", at).is_none(), "never read");
        cache.keep(stored("lk_a"), at);
        assert!(cache.fresh("lk_a", at + KEY_FRESH_FOR / 2).is_some());
        assert!(cache.fresh("lk_a", at + KEY_FRESH_FOR).is_none(), "stale");
        assert!(cache.fresh("lk_b", at).is_none());
        cache.forget("lk_a");
        assert!(cache.fresh("lk_a", at).is_none(), "forgotten");
    }

    #[test]
    fn one_caller_reads_a_key_in_use_again_after_half_a_second() {
        let cache = KeyCache::default();
        let at = Instant::now();
        cache.keep(stored("lk_a"), at);
        let young = cache.fresh("lk_a", at + KEY_REFRESH_AFTER / 2).unwrap();
        assert!(!young.refresh);
        let later = at + KEY_REFRESH_AFTER + Duration::from_millis(10);
        assert!(
            cache.fresh("lk_a", later).unwrap().refresh,
            "the first asks"
        );
        assert!(
            !cache.fresh("lk_a", later).unwrap().refresh,
            "one read at a time"
        );
        cache.refresh_failed("lk_a");
        assert!(
            cache.fresh("lk_a", later).unwrap().refresh,
            "after a failure, again"
        );
        cache.keep(stored("lk_a"), later);
        assert!(!cache.fresh("lk_a", later).unwrap().refresh, "read afresh");
    }
}
