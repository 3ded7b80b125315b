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
//! second open then starts a segment of its own. A clean stop closes the
//! store the same way ([`Store::close`]) and leaves no log to replay, so only
//! a start after a crash pays for this: a flush and a second open, up to two
//! seconds on this project's build machine, most of it SurrealKV allocating a
//! new memory table.

use std::path::Path;

use surrealdb::Surreal;
use surrealdb::engine::any::Any;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::storage::open::{LockWait, create_namespace_and_database, open_waiting_for_lock};
use crate::storage::{DATABASE, NAMESPACE, Store};

/// The write that makes the close flush even when the replay recovered
/// nothing (a segment whose only record was torn).
const MARK_THE_START: &str = "UPSERT store_start:last SET at = time::now();";

/// Opens the SurrealKV store in `directory` (`url` names it,
/// `surrealkv://PATH`) so that it appends to no log segment a crash may have
/// torn: when the last run left a log to replay, it is replayed and flushed
/// first.
pub(super) async fn open_on_a_fresh_log(url: &str, directory: &Path) -> ApiResult<Surreal<Any>> {
    // Looked at before the open, which writes to the log at once.
    let replay = left_a_log_to_replay(directory);
    let replaying = open_waiting_for_lock(url, LockWait::ANOTHER_HANDLE).await?;
    if !replay {
        return Ok(replaying);
    }
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

impl Store {
    /// Drops this handle and, when it was the last of an embedded store,
    /// waits until the engine has flushed its memory table and released the
    /// directory, so that the next start finds no log to replay. Gives up
    /// waiting after [`LockWait::CLEAN_STOP`]'s time: nothing is lost then,
    /// the next start replays the log.
    pub async fn close(self) {
        let directory = self.directory.clone().filter(|_| self.db.is_last_handle());
        drop(self);
        if let Some(directory) = directory {
            LockWait::CLEAN_STOP
                .until_released(&directory.join(LOCK_FILE))
                .await;
        }
    }
}

/// The file SurrealKV holds locked while a store is open.
const LOCK_FILE: &str = "LOCK";

/// Whether the store in `directory` holds a write-ahead log to replay: any
/// non-empty segment (`wal/*.wal`). A new store and one closed cleanly have
/// none; anything this does not recognise counts as a log to replay, so that
/// a change of SurrealKV's layout costs a flush, never the protection.
fn left_a_log_to_replay(directory: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return false;
    };
    if entries.flatten().next().is_none() {
        return false;
    }
    let Ok(segments) = std::fs::read_dir(directory.join("wal")) else {
        return true;
    };
    segments.flatten().any(|segment| {
        let path = segment.path();
        path.extension().is_none_or(|extension| extension != "wal")
            || segment.metadata().map_or(true, |meta| meta.len() > 0)
    })
}

#[cfg(test)]
mod tests {
    use super::left_a_log_to_replay;
    use crate::storage::{Store, execute};

    #[tokio::test]
    async fn a_store_closed_cleanly_leaves_no_log_and_keeps_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        let url = format!("surrealkv://{}", path.display());
        let store = Store::connect(&url, None).await.unwrap();
        execute(store.db.query("CREATE kept:one SET n = 1"))
            .await
            .unwrap();
        assert!(left_a_log_to_replay(&path), "written, not yet flushed");
        let other = store.clone();
        store.close().await;
        other.close().await;
        assert!(!left_a_log_to_replay(&path), "flushed by the close");
        let reopened = Store::connect(&url, None).await.unwrap();
        let kept: Option<i64> = reopened
            .db
            .query("SELECT VALUE n FROM ONLY kept:one")
            .await
            .unwrap()
            .take(0)
            .unwrap();
        assert_eq!(kept, Some(1));
    }

    #[test]
    fn only_a_non_empty_log_segment_is_replayed_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        assert!(!left_a_log_to_replay(&store), "no store yet");
        std::fs::create_dir_all(&store).unwrap();
        assert!(!left_a_log_to_replay(&store), "an empty directory");
        std::fs::write(store.join("manifest"), b"m").unwrap();
        assert!(left_a_log_to_replay(&store), "a layout without a log");
        let wal = store.join("wal");
        std::fs::create_dir_all(&wal).unwrap();
        assert!(!left_a_log_to_replay(&store), "a log without segments");
        std::fs::write(wal.join("00000000000000000003.wal"), b"").unwrap();
        assert!(!left_a_log_to_replay(&store), "an empty segment");
        std::fs::write(wal.join("00000000000000000004.wal"), b"torn").unwrap();
        assert!(left_a_log_to_replay(&store), "a segment with records");
    }
}
