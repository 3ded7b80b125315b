//! Whether a remote store answers. A SurrealDB server can go away (a restart,
//! a network cut); the client then reconnects by itself, once a second, and
//! replays the session (sign-in, namespace, database), but meanwhile a query
//! would wait in the client's queue until the server is back, and its
//! request would hang. Instead, the first sign that the connection is gone
//! (a query answered `Connection reset`, or the lease renewal not answered
//! within [`PROBE_WAIT`]) marks the store unreachable: the queries waiting
//! stop waiting, and every request is answered at once with 503
//! `store_unavailable` (with `Retry-After: 1`) without sending anything,
//! until the next renewal (every second) reaches the store again.
//!
//! A write under way when the connection broke may or may not have been
//! committed, as with any lost connection: it is never acknowledged, and a
//! retry with the same Idempotency-Key does it once or replays it.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use surrealdb::types::ConnectionError;
use tokio::sync::Notify;

/// How long the lease renewal, a one-record write, may take before the store
/// counts as unreachable.
pub const PROBE_WAIT: Duration = Duration::from_secs(5);

/// Whether the store answered lately, and who waits on it.
#[derive(Debug)]
pub struct StoreHealth {
    /// Whether the connection can break at all (a remote server).
    remote: bool,
    unreachable: AtomicBool,
    /// Wakes the queries waiting when the store is found unreachable.
    lost: Notify,
}

impl StoreHealth {
    /// The health of a store, remote or embedded, not known to be unreachable.
    pub fn new(remote: bool) -> StoreHealth {
        StoreHealth {
            remote,
            unreachable: AtomicBool::new(false),
            lost: Notify::new(),
        }
    }

    /// Whether requests may go to the store: false from a sign that the
    /// connection is gone until a probe reaches the store again.
    pub fn is_reachable(&self) -> bool {
        !self.unreachable.load(Ordering::Relaxed)
    }

    /// Records whether the store answered; only a remote store, whose
    /// connection can break, is ever unreachable.
    pub fn set_reachable(&self, reachable: bool) {
        if !self.remote {
            return;
        }
        let was_reachable = !self.unreachable.swap(!reachable, Ordering::Relaxed);
        match (was_reachable, reachable) {
            (true, false) => {
                self.lost.notify_waiters();
                tracing::error!(
                    "the store cannot be reached: requests are answered 503 store_unavailable until it is back"
                );
            }
            (false, true) => tracing::warn!("the store is reachable again"),
            _ => {}
        }
    }

    /// `query`'s answer, unless the store is or becomes unreachable first;
    /// a `probe` is sent and awaited whatever the store's health.
    pub(crate) async fn bound<T>(
        &self,
        query: impl Future<Output = surrealdb::Result<T>>,
        probe: bool,
    ) -> surrealdb::Result<T> {
        if !self.remote || probe {
            return query.await;
        }
        if !self.is_reachable() {
            return Err(unreachable());
        }
        let lost = self.lost.notified();
        tokio::pin!(lost);
        lost.as_mut().enable();
        tokio::select! {
            answer = query => {
                if let Err(error) = &answer && error.is_connection() {
                    self.set_reachable(false);
                }
                answer
            }
            _ = lost => Err(unreachable()),
        }
    }
}

/// The error of a query the store was not reachable for.
fn unreachable() -> surrealdb::Error {
    surrealdb::Error::connection(
        "the store is unreachable".to_string(),
        ConnectionError::ConnectionFailed,
    )
}

impl crate::storage::Store {
    /// Whether requests may go to the store ([`StoreHealth::is_reachable`]).
    pub fn is_reachable(&self) -> bool {
        self.db.health.is_reachable()
    }

    /// Renews the lease of the process `id` at `now` as the store's probe
    /// ([`crate::storage::Store::renew_instance`]):
    /// an answer within [`PROBE_WAIT`] makes the store reachable, none makes
    /// it unreachable. How many processes run, when it answered.
    pub async fn probe(
        &self,
        id: &str,
        now: crate::common::time::Timestamp,
    ) -> crate::error::ApiResult<u32> {
        // The probe is sent even while the store counts as unreachable: it
        // is what finds it back.
        let renewed = tokio::time::timeout(PROBE_WAIT, self.renew_instance(id, now)).await;
        match renewed {
            Ok(Ok(processes)) => {
                self.db.health.set_reachable(true);
                Ok(processes)
            }
            Ok(Err(error)) => {
                if error.code == crate::error::ErrorCode::StoreUnavailable {
                    self.db.health.set_reachable(false);
                }
                Err(error)
            }
            Err(_) => {
                self.db.health.set_reachable(false);
                Err(crate::storage::store_unreachable())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_query_waiting_stops_when_the_store_is_found_unreachable() {
        let health = std::sync::Arc::new(StoreHealth::new(true));
        let waiting = {
            let health = health.clone();
            tokio::spawn(async move {
                health
                    .bound(std::future::pending::<surrealdb::Result<()>>(), false)
                    .await
            })
        };
        tokio::task::yield_now().await;
        health.set_reachable(false);
        let answer = waiting.await.expect("ran");
        assert!(answer.is_err_and(|e| e.is_connection()));
        // While unreachable nothing is sent; a probe is.
        let refused = health.bound(async { Ok(1) }, false).await;
        assert!(refused.is_err_and(|e| e.is_connection()));
        assert_eq!(health.bound(async { Ok(1) }, true).await.ok(), Some(1));
        health.set_reachable(true);
        assert_eq!(health.bound(async { Ok(2) }, false).await.ok(), Some(2));
    }

    #[tokio::test]
    async fn an_embedded_store_is_never_unreachable() {
        let health = StoreHealth::new(false);
        health.set_reachable(false);
        assert!(health.is_reachable());
        assert_eq!(health.bound(async { Ok(3) }, false).await.ok(), Some(3));
    }
}
