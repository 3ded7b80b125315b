//! Keeps the first transactions the group commit sends, their SurrealQL and
//! the rows bound to it, each as a JSON file (`serve --capture-batches`), so
//! that `loyalty bench --replay` can run them again and again, whole or with
//! statements taken out, and tell what each statement costs (BENCHMARKS.md).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::error::{ApiError, ApiResult};

/// Transactions kept: enough of every batch size the group commit makes.
pub const CAPTURED_TRANSACTIONS: usize = 200;

/// Where the transactions are kept, and how many are kept so far.
#[derive(Debug)]
pub(crate) struct BatchCapture {
    dir: PathBuf,
    kept: AtomicUsize,
}

impl BatchCapture {
    /// Keeps transactions in `dir` (created if missing).
    pub(crate) fn new(dir: PathBuf) -> ApiResult<BatchCapture> {
        std::fs::create_dir_all(&dir)
            .map_err(|e| ApiError::invalid(format!("cannot create {}: {e}", dir.display())))?;
        Ok(BatchCapture {
            dir,
            kept: AtomicUsize::new(0),
        })
    }

    /// Keeps the transaction recording `events` events, `text` over
    /// `bindings`, as `NNN-E-events.json` (`{"events", "text",
    /// "bindings"}`), unless [`CAPTURED_TRANSACTIONS`] are kept already. A
    /// file that cannot be written is logged and skipped: capturing never
    /// fails a write. (Written in place, on the batch's task: a few hundred
    /// small files, and only when asked for.)
    pub(crate) fn keep(&self, events: usize, text: &str, bindings: &Value) {
        let n = self.kept.fetch_add(1, Ordering::Relaxed);
        if n >= CAPTURED_TRANSACTIONS {
            return;
        }
        let path = self.dir.join(format!("{n:03}-{events}-events.json"));
        let file = json!({ "events": events, "text": text, "bindings": bindings });
        if let Err(error) = std::fs::write(&path, file.to_string()) {
            tracing::warn!(path = %path.display(), %error, "a captured transaction was not written");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_transactions_each_in_a_file_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let capture = BatchCapture::new(dir.path().join("batches")).unwrap();
        for events in 1..=CAPTURED_TRANSACTIONS + 5 {
            capture.keep(events, "BEGIN; COMMIT;", &json!({ "carts": [events] }));
        }
        let files = std::fs::read_dir(dir.path().join("batches"))
            .unwrap()
            .count();
        assert_eq!(files, CAPTURED_TRANSACTIONS);
        let first: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("batches/000-1-events.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            first,
            json!({ "events": 1, "text": "BEGIN; COMMIT;", "bindings": { "carts": [1] } })
        );
    }
}
