//! What this process knows of Idempotency-Keys beyond the store: which keys
//! its own requests are running, and the outcomes it could not record.
//!
//! A key the store says this process holds, while none of its requests runs
//! it, was left by a request that could not record its outcome (the store
//! was unreachable when it ended): a retry through this process takes it
//! over at once instead of waiting out the key's lease. Two requests of this
//! process with the same key are kept apart here, before the store is asked.
//!
//! An outcome not recorded (the response to replay, or the release after a
//! transient failure) is kept and recorded when the store answers again, so
//! a retry through another process does not wait out the lease either.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::http::idempotency::model::StoredResponse;

/// A key of a Company.
type CompanyKey = (String, String);

/// What becomes of a key once its request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOutcome {
    /// Replay this response to every retry.
    Complete(StoredResponse),
    /// Free the key: the request failed transiently and a retry runs again.
    Release,
}

/// An outcome waiting for the store.
#[derive(Debug, Clone)]
pub struct Unrecorded {
    /// The Company.
    pub company: String,
    /// The key.
    pub key: String,
    /// The fingerprint of the request that held it.
    pub fingerprint: String,
    /// What becomes of it.
    pub outcome: KeyOutcome,
}

/// The keys this process's requests are running, and the outcomes waiting.
#[derive(Debug, Default)]
pub struct KeysHere {
    running: Mutex<HashSet<CompanyKey>>,
    unrecorded: Mutex<Vec<Unrecorded>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Plain sets: a panic while one was held left it consistent.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl KeysHere {
    /// Marks `key` of `company` as run by a request of this process until
    /// the returned guard drops; `None` when another request here runs it.
    pub fn start(self: &Arc<Self>, company: &str, key: &str) -> Option<RunningKey> {
        let entry = (company.to_string(), key.to_string());
        locked(&self.running)
            .insert(entry.clone())
            .then(|| RunningKey {
                keys: self.clone(),
                entry,
            })
    }

    /// Keeps an outcome the store did not take, to record it later.
    pub fn keep(&self, unrecorded: Unrecorded) {
        locked(&self.unrecorded).push(unrecorded);
    }

    /// Takes every outcome kept so far.
    pub fn take_unrecorded(&self) -> Vec<Unrecorded> {
        std::mem::take(&mut *locked(&self.unrecorded))
    }
}

/// A key a request of this process runs; forgotten when dropped.
#[derive(Debug)]
pub struct RunningKey {
    keys: Arc<KeysHere>,
    entry: CompanyKey,
}

impl Drop for RunningKey {
    fn drop(&mut self) {
        locked(&self.keys.running).remove(&self.entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_runs_once_in_a_process_until_its_request_ends() {
        let keys = Arc::new(KeysHere::default());
        let first = keys.start("c", "k").expect("free");
        assert!(keys.start("c", "k").is_none(), "running here");
        assert!(keys.start("other", "k").is_some(), "another Company's key");
        drop(first);
        assert!(
            keys.start("c", "k").is_some(),
            "free once the request ended"
        );
    }
}
