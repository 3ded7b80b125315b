//! `loyalty bench --replay`: one transaction the group commit sent (kept by
//! `serve --capture-batches`, [`crate::storage::batch_capture`]), run again
//! and again against a new durable store with the service's schema, and
//! the CPU it costs. Each run is cancelled instead of committed, so the same
//! rows are written every time and the store never grows; the commit itself
//! is what the floor measures ([`crate::bench::floor`]). Edit a copy of the
//! file (take a statement out of its `text`, change one) and replay both,
//! alternated: what a statement costs, with no HTTP, evaluation or commit
//! around it to blur it (BENCHMARKS.md).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;
use tokio::time::Instant;

use crate::storage::Store;

/// What replaying one transaction measured.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// The file replayed.
    pub file: PathBuf,
    /// Events the transaction recorded when it was captured.
    pub events: u64,
    /// Times it ran in the measured part.
    pub runs: u64,
    /// The measured part.
    pub elapsed: Duration,
    /// CPU time of this process over the measured part, where the operating
    /// system says.
    pub cpu: Option<Duration>,
    /// What its statements refused or failed with on the first run (a
    /// replay that refuses measures less than the transaction: none are
    /// expected).
    pub failures: Vec<String>,
}

impl Replayed {
    /// CPU per run, in microseconds.
    pub fn cpu_micros_per_run(&self) -> Option<f64> {
        let cpu = self.cpu?;
        (self.runs > 0).then(|| cpu.as_secs_f64() * 1e6 / self.runs as f64)
    }

    /// The replay as one line of the report.
    pub fn describe(&self) -> String {
        let cpu = self.cpu_micros_per_run().map_or_else(
            || "?".to_string(),
            |micros| {
                format!(
                    "{micros:.0} µs of CPU per transaction, {:.0} µs per event",
                    micros / self.events.max(1) as f64
                )
            },
        );
        let failures = match self.failures.as_slice() {
            [] => String::new(),
            failures => format!(" (refused: {})", failures.join("; ")),
        };
        let events = match self.events {
            1 => "1 event".to_string(),
            n => format!("{n} events"),
        };
        format!(
            "{}: {events}, {} runs in {:.1} s, {cpu}{failures}",
            self.file.display(),
            self.runs,
            self.elapsed.as_secs_f64(),
        )
    }
}

/// The text and bindings of a captured transaction, made to run again and
/// again against an empty store: cancelled at its end, and its draws'
/// participation counts checked against none stored (the counts they saw
/// are dropped).
fn replayable(file: &Path) -> anyhow::Result<(String, Value, u64)> {
    let text = std::fs::read_to_string(file).with_context(|| format!("{}", file.display()))?;
    let captured: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a captured transaction", file.display()))?;
    let statements = captured["text"]
        .as_str()
        .filter(|text| text.trim_end().ends_with("COMMIT TRANSACTION;"))
        .with_context(|| {
            format!(
                "{}: its `text` is not a transaction ending in COMMIT TRANSACTION;",
                file.display()
            )
        })?;
    let end = statements
        .rfind("COMMIT TRANSACTION;")
        .unwrap_or(statements.len());
    let cancelled = format!("{}CANCEL TRANSACTION;", &statements[..end]);
    let mut bindings = captured["bindings"].clone();
    if let Some(bindings) = bindings.as_object_mut() {
        bindings.remove(crate::resources::instant_wins::store::draw_batch::COUNTS_SEEN.binding);
    }
    let events = captured["events"].as_u64().unwrap_or(1);
    Ok((cancelled, bindings, events))
}

/// Runs the transaction of `file` for `duration` (after a warm-up of a
/// fifth of it) against a new durable store under `dir`, removed after.
pub async fn replay(file: &Path, dir: &Path, duration: Duration) -> anyhow::Result<Replayed> {
    let (text, bindings, events) = replayable(file)?;
    let path = dir.join(format!("replay-{:08x}", rand::random::<u32>()));
    let store = Store::connect(&format!("surrealkv://{}", path.display()), None)
        .await
        .map_err(|e| anyhow::anyhow!("{}", e.message))?;
    let run = || async {
        store
            .db
            .query(text.as_str())
            .bind(bindings.clone())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
    };
    let mut first = run().await?;
    let failures = first
        .take_errors()
        .into_values()
        .map(|error| error.to_string())
        .filter(|error| !error.contains("not executed") && !error.contains("cancelled"))
        .collect();
    let warm_up = Instant::now();
    while warm_up.elapsed() < duration / 5 {
        run().await?;
    }
    let cpu_before = crate::bench::server::process_cpu_ticks(std::process::id());
    let started = Instant::now();
    let mut runs = 0;
    while started.elapsed() < duration {
        run().await?;
        runs += 1;
    }
    let elapsed = started.elapsed();
    let cpu_after = crate::bench::server::process_cpu_ticks(std::process::id());
    // Closed before its directory goes: the engine flushes on close.
    store.close().await;
    // A directory left behind is only disk; the measure stands.
    let _ = std::fs::remove_dir_all(&path);
    Ok(Replayed {
        file: file.to_path_buf(),
        events,
        runs,
        elapsed,
        cpu: crate::bench::server::cpu_between(cpu_before, cpu_after),
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_captured_transaction_runs_again_and_again_and_stores_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("000-2-events.json");
        let captured = json!({
            "events": 2,
            "text": "BEGIN TRANSACTION;\nINSERT INTO cart $carts RETURN NONE;\nCOMMIT TRANSACTION;",
            "bindings": { "carts": [{"id": ["c", "A"]}, {"id": ["c", "B"]}], "draw_counts_seen": [{}] },
        });
        std::fs::write(&file, captured.to_string()).unwrap();
        let (text, bindings, events) = replayable(&file).unwrap();
        assert!(text.ends_with("CANCEL TRANSACTION;"), "{text}");
        assert_eq!(
            bindings,
            json!({ "carts": [{"id": ["c", "A"]}, {"id": ["c", "B"]}] })
        );
        assert_eq!(events, 2);

        // The same cart codes every run: none is refused as recorded before.
        let replayed = replay(&file, dir.path(), Duration::from_millis(200))
            .await
            .unwrap();
        assert!(replayed.runs > 1, "{replayed:?}");
        assert!(replayed.failures.is_empty(), "{replayed:?}");
        assert!(
            replayed.describe().contains("2 events"),
            "{}",
            replayed.describe()
        );

        std::fs::write(dir.path().join("not.json"), "{\"text\": \"SELECT 1;\"}").unwrap();
        assert!(replayable(&dir.path().join("not.json")).is_err());
    }
}
