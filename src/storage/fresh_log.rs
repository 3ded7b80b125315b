//! Opening an embedded (SurrealKV) store so that what is written after a
//! crash survives the next crash too.
//!
//! SurrealKV 0.21 replays its write-ahead log when it opens, but it opens the
//! log's writer on the newest segment *before* the replay reads it. A SIGKILL
//! in the middle of a log write leaves a torn tail, and then either:
//!
//! - the replay finds a torn record, repairs the segment by writing a new
//!   file over its name, and the writer goes on appending to the old file,
//!   which no name reaches any more; or
//! - the tail is torn inside a record header, the replay reads it as the end
//!   of the log, and the writer appends after the torn bytes, so the next
//!   replay stops there.
//!
//! Either way every commit acknowledged after that start is gone after the
//! next crash (`loyalty torture` caught it: a whole cycle's answers unknown
//! to their Idempotency-Keys after the restart).
//!
//! So nothing is ever appended to a replayed segment: the store is opened
//! once to replay its log, given one write so that closing it always flushes
//! its memory table, and closed. A clean close writes the replayed commits
//! to a table file, moves the log past the old segments and removes them; the
//! second open then starts a segment of its own. The cost is one flush of
//! the memory table at every start, what a clean shutdown does anyway.

use surrealdb::Surreal;
use surrealdb::engine::any::Any;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::storage::open::{LockWait, create_namespace_and_database, open_waiting_for_lock};
use crate::storage::{DATABASE, NAMESPACE};

/// The write that makes the close flush even when the replay recovered
/// nothing (a segment whose only record was torn).
const MARK_THE_START: &str = "UPSERT store_start:last SET at = time::now();";

/// Opens the SurrealKV store at `url` (`surrealkv://PATH`) on a fresh log
/// segment, its earlier log replayed and flushed.
pub(super) async fn open_on_a_fresh_log(url: &str, lock_wait: LockWait) -> ApiResult<Surreal<Any>> {
    let replaying = open_waiting_for_lock(url, lock_wait).await?;
    create_namespace_and_database(&replaying).await?;
    replaying
        .query(format!(
            "USE NS {NAMESPACE} DB {DATABASE}; {MARK_THE_START}"
        ))
        .await
        .and_then(|response| response.check())
        .map_err(|error| {
            ApiError::new(
                ErrorCode::StoreUnavailable,
                format!("cannot write to the store {url} after replaying its log: {error}"),
            )
        })?;
    // The engine closes (flush, log moved on, lock released) once its last
    // handle is gone; the second open waits for the lock.
    drop(replaying);
    tracing::info!(store = %url, "write-ahead log replayed; reopening the store on a fresh log");
    open_waiting_for_lock(url, LockWait::OUR_OWN_CLOSE).await
}
