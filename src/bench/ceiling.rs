//! The store's own ceiling on this machine: how many small records the
//! embedded engine commits per second, each in its own synced transaction,
//! with no service in front of it. The service's write paths are reported as
//! a fraction of it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::time::Instant;

use crate::bench::load::Load;
use crate::bench::load::RunResult;

/// A new SurrealKV store at `path` (synced on commit, the service's
/// default), with its namespace and database in use: a store the
/// benchmark writes to straight, with no service in front.
pub(crate) async fn open_raw_store(
    path: &Path,
) -> anyhow::Result<surrealdb::Surreal<surrealdb::engine::any::Any>> {
    let url = format!("surrealkv://{}", path.display());
    let db = surrealdb::engine::any::connect(url.as_str())
        .await
        .with_context(|| format!("cannot open {url}"))?;
    db.query(
        "DEFINE NAMESPACE IF NOT EXISTS bench; USE NS bench; DEFINE DATABASE IF NOT EXISTS bench;",
    )
    .await?
    .check()?;
    db.use_ns("bench").use_db("bench").await?;
    Ok(db)
}

/// Commits one small record per transaction from `writers` concurrent tasks
/// for `duration`, on a new SurrealKV store at `path` (synced on commit, the
/// service's default).
pub async fn raw_store_writes(
    path: &Path,
    writers: usize,
    duration: Duration,
) -> anyhow::Result<RunResult> {
    let db = open_raw_store(path).await?;
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let tally = Arc::new(tokio::sync::Mutex::new((Vec::new(), 0u64)));
    let mut tasks = tokio::task::JoinSet::new();
    for writer in 0..writers.max(1) {
        let (db, tally) = (db.clone(), Arc::clone(&tally));
        tasks.spawn(async move {
            let mut n = 0u64;
            while Instant::now() < deadline {
                n += 1;
                let sent = Instant::now();
                let written = db
                    .query("CREATE probe CONTENT { writer: $writer, n: $n, payload: $payload } RETURN NONE")
                    .bind(("writer", writer as i64))
                    .bind(("n", n as i64))
                    .bind(("payload", "x".repeat(200)))
                    .await
                    .and_then(|r| r.check());
                let micros = sent.elapsed().as_micros() as u64;
                let mut tally = tally.lock().await;
                match written {
                    Ok(_) => tally.0.push(micros),
                    Err(_) => tally.1 += 1,
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    let elapsed = started.elapsed();
    let (mut latencies_us, errors) = std::mem::take(&mut *tally.lock().await);
    latencies_us.sort_unstable();
    let mut statuses = std::collections::BTreeMap::new();
    statuses.insert(200, latencies_us.len() as u64);
    Ok(RunResult {
        load: Load::Saturation(writers),
        elapsed,
        latencies_us,
        statuses,
        transport_errors: errors,
    })
}
