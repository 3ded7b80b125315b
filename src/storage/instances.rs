//! The server processes sharing a store. Each registers itself when it
//! starts, with a short lease it renews while it runs ([`INSTANCE_LEASE`]);
//! one whose lease lapsed is gone, and what it held (the Idempotency-Key of a
//! request it was running) is free at once rather than when that hold's own
//! lease ends. An embedded store is opened by one process only, so when one
//! starts every process registered before is gone: a till's retry after a
//! crash and restart goes through immediately.
//!
//! Each renewal also counts the live processes, among which every Company's
//! rate limits are shared ([`crate::http::rate_limits::limiters`]).

use std::time::Duration;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::storage::Store;
use crate::storage::connection::StoreQuery;
use crate::storage::execute;

/// Counts the processes whose lease runs at `$now`, after the statements
/// before it.
const COUNT_LIVE: &str =
    "(SELECT count() FROM server_instance WHERE alive_until > $now GROUP ALL)[0].count ?? 0;";

/// How long a process counts as running after it last said so.
pub const INSTANCE_LEASE: Duration = Duration::from_secs(15);

/// How often a running process renews its lease and counts the others:
/// fifteen renewals fit in one lease, so a slow store does not make a live
/// process look gone, and a process joining is counted by the others within
/// a second. One small write a second per process.
pub const INSTANCE_RENEWAL: Duration = Duration::from_secs(1);

/// `now` plus the lease.
fn lease_end(now: Timestamp) -> String {
    let lease = chrono::Duration::from_std(INSTANCE_LEASE).unwrap_or_default();
    Timestamp::from(now.as_datetime() + lease).to_string()
}

impl Store {
    /// Registers the process `id` as running at `now`; how many processes
    /// run, this one included. On an embedded store, which no other process
    /// can have open, every process registered before is forgotten first: it
    /// is gone.
    pub async fn register_instance(&self, id: &str, now: Timestamp) -> ApiResult<u32> {
        let forget_others = if self.remote {
            ""
        } else {
            "DELETE server_instance WHERE id != type::record('server_instance', $id);"
        };
        live_count(
            self.db
                .query(format!(
                    "{forget_others}
                     UPSERT type::record('server_instance', $id)
                         SET started_at = $now, alive_until = $alive_until RETURN NONE;
                     {COUNT_LIVE}"
                ))
                .bind(("id", id.to_string()))
                .bind(("now", now.to_string()))
                .bind(("alive_until", lease_end(now))),
        )
        .await
    }

    /// Renews the lease of the running process `id` at `now`; how many
    /// processes run, this one included. Sent even while the store counts as
    /// unreachable: it is the store's probe ([`Store::probe`]).
    pub async fn renew_instance(&self, id: &str, now: Timestamp) -> ApiResult<u32> {
        live_count(
            self.db
                .probe_query(format!(
                    "UPSERT type::record('server_instance', $id)
                         SET alive_until = $alive_until RETURN NONE;
                     {COUNT_LIVE}"
                ))
                .bind(("id", id.to_string()))
                .bind(("now", now.to_string()))
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

/// The count the last statement of `query` ([`COUNT_LIVE`]) returns, at
/// least 1 (the process asking).
async fn live_count(query: StoreQuery<'_>) -> ApiResult<u32> {
    let mut response = query
        .await
        .and_then(|r| r.check())
        .map_err(crate::storage::store_error)?;
    let last = response.num_statements().saturating_sub(1);
    let count: Option<i64> = response.take(last).map_err(crate::storage::store_error)?;
    Ok(u32::try_from(count.unwrap_or(1)).unwrap_or(u32::MAX).max(1))
}
