//! The server processes sharing a store. Each registers itself when it
//! starts, with a short lease it renews while it runs ([`INSTANCE_LEASE`]);
//! one whose lease lapsed is gone, and what it held (the Idempotency-Key of a
//! request it was running) is free at once rather than when that hold's own
//! lease ends. An embedded store is opened by one process only, so when one
//! starts every process registered before is gone: a till's retry after a
//! crash and restart goes through immediately.

use std::time::Duration;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::storage::Store;
use crate::storage::execute;

/// How long a process counts as running after it last said so.
pub const INSTANCE_LEASE: Duration = Duration::from_secs(15);

/// How often a running process renews its lease: three renewals fit in one
/// lease, so a slow store does not make a live process look gone.
pub const INSTANCE_RENEWAL: Duration = Duration::from_secs(5);

/// `now` plus the lease.
fn lease_end(now: Timestamp) -> String {
    let lease = chrono::Duration::from_std(INSTANCE_LEASE).unwrap_or_default();
    Timestamp::from(now.as_datetime() + lease).to_string()
}

impl Store {
    /// Registers the process `id` as running at `now`. On an embedded store,
    /// which no other process can have open, every process registered
    /// before is forgotten first: it is gone.
    pub async fn register_instance(&self, id: &str, now: Timestamp) -> ApiResult<()> {
        let forget_others = if self.remote {
            ""
        } else {
            "DELETE server_instance WHERE id != type::record('server_instance', $id);"
        };
        execute(
            self.db
                .query(format!(
                    "{forget_others}
                     UPSERT type::record('server_instance', $id)
                         SET started_at = $now, alive_until = $alive_until RETURN NONE;"
                ))
                .bind(("id", id.to_string()))
                .bind(("now", now.to_string()))
                .bind(("alive_until", lease_end(now))),
        )
        .await
    }

    /// Renews the lease of the running process `id` at `now`.
    pub async fn renew_instance(&self, id: &str, now: Timestamp) -> ApiResult<()> {
        execute(
            self.db
                .query(
                    "UPSERT type::record('server_instance', $id)
                         SET alive_until = $alive_until RETURN NONE;",
                )
                .bind(("id", id.to_string()))
                .bind(("alive_until", lease_end(now))),
        )
        .await
    }

    /// Forgets the process `id`, which is stopping: what it still holds is
    /// free.
    pub async fn retire_instance(&self, id: &str) -> ApiResult<()> {
        execute(
            self.db
                .query("DELETE type::record('server_instance', $id);")
                .bind(("id", id.to_string())),
        )
        .await
    }
}
