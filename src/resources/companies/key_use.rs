//! When each API key was last used. Authentication marks the key in this
//! process's memory (no store write on the request's path); the lease
//! renewal writes what changed to the key's record at most once a minute
//! per key, so "last used" is exact to the minute across restarts and
//! across the processes sharing a store, and the back-office page adds what
//! this process saw since.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, TimeDelta, Utc};

use crate::error::ApiResult;
use crate::resources::companies::model::ApiKey;
use crate::services::Services;

/// How long a key's use may wait in memory before it is written.
pub const WRITE_EVERY: TimeDelta = TimeDelta::minutes(1);

/// The keys used through this process.
#[derive(Debug, Default)]
pub struct KeyUses {
    seen: Mutex<HashMap<String, KeyUse>>,
}

#[derive(Debug, Clone, Copy)]
struct KeyUse {
    last: DateTime<Utc>,
    written: Option<DateTime<Utc>>,
}

impl KeyUses {
    /// Notes that `key` authenticated a request at `at`.
    pub fn mark(&self, key: &str, at: DateTime<Utc>) {
        let mut seen = self.lock();
        match seen.get_mut(key) {
            Some(known) => known.last = known.last.max(at),
            None => {
                seen.insert(
                    key.to_string(),
                    KeyUse {
                        last: at,
                        written: None,
                    },
                );
            }
        }
    }

    /// When this process last saw `key` used.
    pub fn last_seen(&self, key: &str) -> Option<DateTime<Utc>> {
        self.lock().get(key).map(|known| known.last)
    }

    /// The uses to write at `now`: each key never written, or used since
    /// it was written [`WRITE_EVERY`] ago or more. They count as written;
    /// [`KeyUses::unwritten`] puts back those that were not.
    pub fn due(&self, now: DateTime<Utc>) -> Vec<(String, DateTime<Utc>)> {
        let mut seen = self.lock();
        seen.iter_mut()
            .filter(|(_, known)| match known.written {
                None => true,
                Some(written) => known.last > written && now - written >= WRITE_EVERY,
            })
            .map(|(key, known)| {
                known.written = Some(now);
                (key.clone(), known.last)
            })
            .collect()
    }

    /// Uses whose write failed: the next renewal tries them again.
    pub fn unwritten(&self, uses: &[(String, DateTime<Utc>)]) {
        let mut seen = self.lock();
        for (key, _) in uses {
            if let Some(known) = seen.get_mut(key) {
                known.written = None;
            }
        }
    }

    // Every update is one map operation: a panic elsewhere leaves it whole.
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, KeyUse>> {
        self.seen
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Services {
    /// Writes the key uses that are due to the keys' records; a failed
    /// write is tried again at the next renewal.
    pub async fn record_key_uses(&self) {
        let due = self.gate.key_uses.due(self.now().as_datetime());
        if due.is_empty() {
            return;
        }
        if let Err(error) = self.store.record_key_uses(&due).await {
            tracing::warn!(%error, keys = due.len(), "recording when keys were last used failed");
            self.gate.key_uses.unwritten(&due);
        }
    }

    /// `keys` with what this process saw of their use since it was written.
    pub(crate) fn with_latest_use(&self, mut keys: Vec<ApiKey>) -> ApiResult<Vec<ApiKey>> {
        for key in &mut keys {
            if let Some(seen) = self.gate.key_uses.last_seen(&key.key) {
                key.last_used_at = Some(key.last_used_at.map_or(seen, |stored| stored.max(seen)));
            }
        }
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minute: i64) -> DateTime<Utc> {
        DateTime::<Utc>::UNIX_EPOCH + TimeDelta::minutes(minute)
    }

    #[test]
    fn a_use_is_written_at_once_then_at_most_once_a_minute() {
        let uses = KeyUses::default();
        uses.mark("lk_a", at(10));
        assert_eq!(uses.due(at(10)), vec![("lk_a".to_string(), at(10))]);
        uses.mark("lk_a", at(10) + TimeDelta::seconds(5));
        assert!(uses.due(at(10) + TimeDelta::seconds(30)).is_empty());
        assert_eq!(uses.due(at(11)).len(), 1);
        assert!(uses.due(at(13)).is_empty(), "not used since");
        assert_eq!(uses.last_seen("lk_a"), Some(at(10) + TimeDelta::seconds(5)));
    }

    #[test]
    fn a_failed_write_is_due_again() {
        let uses = KeyUses::default();
        uses.mark("lk_a", at(1));
        let due = uses.due(at(1));
        uses.unwritten(&due);
        assert_eq!(uses.due(at(1)), due);
    }
}
