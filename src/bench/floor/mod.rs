//! The store's floor for a cart: the records one benchmark cart writes,
//! written straight to a new SurrealKV directory (synced on every commit, as
//! the service's store is) with no HTTP, no engine and no checks, by as many
//! writers as the group commit has lanes, [`MAX_BATCH`] carts per
//! transaction or one alone ([`FLOOR_BATCHES`]), each table's rows in one
//! plain statement whose text never changes. Whatever `POST /carts/realtime` costs above it is the service's
//! own doing (statements, checks, copies, HTTP, evaluation), not the store's:
//! the report gives the cart's CPU as a multiple of this row's.
//!
//! The floor is measured for two layouts ([`FloorLayout`]), the same carts
//! on each: the one the service writes today ([`tables::TODAY_TABLES`]),
//! each table with the secondary indexes the service's schema defines on it
//! ([`tables::floor_indexes`]), and the one #55 proposes
//! ([`tables::ONE_DOCUMENT_TABLES`]: one document per event, one
//! per-Customer state document, day buckets per month, no secondary index),
//! as many records of each per cart as a cart of the benchmark's Company
//! writes on average ([`records`]). When the service's layout changes,
//! `records.rs` and `tables.rs` change with it: today's floor is always the
//! floor of what the cart writes now.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::time::Instant;

pub mod records;
pub mod tables;

use crate::bench::floor::records::BenchCart;
pub use crate::bench::floor::records::FloorLayout;
use crate::bench::floor::tables::batch_bindings;
use crate::bench::floor::tables::batch_text;
use crate::bench::floor::tables::floor_indexes;
use crate::bench::floor::tables::floor_tables;
use crate::storage::group_commit::MAX_BATCH;
use crate::storage::write_lanes::WriteLane;

/// What the floor measured.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreFloor {
    /// The records written.
    pub layout: FloorLayout,
    /// Carts whose records were committed.
    pub carts: u64,
    /// Transactions committed.
    pub transactions: u64,
    /// Transactions the store refused (none are expected).
    pub errors: u64,
    /// The measured part.
    pub elapsed: Duration,
    /// Concurrent writers.
    pub writers: usize,
    /// Carts per transaction.
    pub batch: usize,
    /// CPU time of this process over the measured part, where the operating
    /// system says (only the floor runs in it then).
    pub cpu: Option<Duration>,
    /// Records of each table in the store afterwards, per cart committed.
    pub records_per_cart: Vec<(String, f64)>,
    /// Secondary index entries written per cart.
    pub index_entries_per_cart: f64,
    /// The store's size on disk after the run (write-ahead log included).
    pub store_bytes: Option<u64>,
}

impl StoreFloor {
    /// Carts committed per second.
    pub fn carts_per_second(&self) -> f64 {
        self.carts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// CPU time per cart committed, in milliseconds.
    pub fn cpu_ms_per_cart(&self) -> Option<f64> {
        let cpu = self.cpu?;
        (self.carts > 0).then(|| cpu.as_secs_f64() * 1000.0 / self.carts as f64)
    }

    /// Bytes of store per cart committed.
    pub fn bytes_per_cart(&self) -> Option<f64> {
        let bytes = self.store_bytes?;
        (self.carts > 0).then(|| bytes as f64 / self.carts as f64)
    }

    /// Records of `table` per cart, when the floor wrote that table.
    pub fn records_of(&self, table: &str) -> Option<f64> {
        self.records_per_cart
            .iter()
            .find(|(name, _)| name == table)
            .map(|(_, n)| *n)
    }

    /// Records per cart, all tables together.
    pub fn records_per_cart_total(&self) -> f64 {
        self.records_per_cart.iter().map(|(_, n)| n).sum()
    }

    /// The floor as one line of the report.
    pub fn describe(&self) -> String {
        let cpu = self
            .cpu_ms_per_cart()
            .map_or_else(|| "?".to_string(), |ms| format!("{ms:.3} ms"));
        let bytes = self
            .bytes_per_cart()
            .map_or_else(String::new, |bytes| format!(", {bytes:.0} bytes of store"));
        let layout = match self.layout {
            FloorLayout::Today => "",
            FloorLayout::OneDocument => " (one document per event)",
        };
        format!(
            "Store floor{layout}: {:.0} carts/s, {cpu} of CPU per cart ({} writers, {} per \
             transaction, {:.1} records and {:.1} index entries per cart{bytes}, {} errors).",
            self.carts_per_second(),
            self.writers,
            match self.batch {
                1 => "1 cart".to_string(),
                n => format!("{n} carts"),
            },
            self.records_per_cart_total(),
            self.index_entries_per_cart,
            self.errors,
        )
    }

    /// The floor as JSON.
    pub fn json(&self) -> Value {
        json!({
            "layout": self.layout.name(),
            "carts": self.carts,
            "transactions": self.transactions,
            "errors": self.errors,
            "elapsed_s": self.elapsed.as_secs_f64(),
            "writers": self.writers,
            "batch": self.batch,
            "carts_per_s": self.carts_per_second(),
            "cpu_ms_per_cart": self.cpu_ms_per_cart(),
            "records_per_cart": self.records_per_cart.iter().map(|(table, n)| (table.clone(), json!(n))).collect::<Map<String, Value>>(),
            "index_entries_per_cart": self.index_entries_per_cart,
            "store_bytes": self.store_bytes,
            "bytes_per_cart": self.bytes_per_cart(),
        })
    }
}

/// The batches the floor is measured at: the group commit's largest (as
/// at saturation) and one cart alone (as at a light load, where each cart
/// is a transaction of its own).
pub const FLOOR_BATCHES: [usize; 2] = [MAX_BATCH, 1];

/// Writes the records of benchmark carts of `customers` Customers on
/// `layout` to a new SurrealKV store at `path`, `batch` carts per
/// transaction, from `writers` concurrent tasks (each a write lane of its
/// own), for `duration`; then counts what is stored.
pub async fn store_floor(
    layout: FloorLayout,
    batch: usize,
    path: &Path,
    writers: usize,
    customers: u64,
    duration: Duration,
) -> anyhow::Result<StoreFloor> {
    let db = crate::bench::ceiling::open_raw_store(path).await?;
    let tables = floor_tables(layout);
    let mut schema: Vec<String> = tables
        .iter()
        .map(|(table, _)| format!("DEFINE TABLE {table} SCHEMALESS;"))
        .collect();
    schema.extend(
        floor_indexes(layout)
            .iter()
            .map(|(_, index)| index.to_string()),
    );
    db.query(schema.join("\n")).await?.check()?;

    let text = batch_text(layout);
    let writers = writers.max(1);
    let batch = batch.max(1);
    let seed: u64 = rand::random();
    let next = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let cpu_before = crate::bench::server::process_cpu_ticks(std::process::id());
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = tokio::task::JoinSet::new();
    for index in 0..writers {
        let lane = WriteLane {
            index: index as u32,
            count: writers as u32,
        };
        let (db, text, next) = (db.clone(), text.clone(), next.clone());
        tasks.spawn(async move {
            let (mut carts, mut transactions, mut errors) = (0u64, 0u64, 0u64);
            while Instant::now() < deadline {
                let first = next.fetch_add(batch as u64, std::sync::atomic::Ordering::Relaxed);
                let rows = batch_bindings(
                    layout,
                    (first..first + batch as u64)
                        .map(|n| BenchCart::of(n, customers, seed, lane).records(layout)),
                );
                let written = db
                    .query(text.as_str())
                    .bind(Value::Object(rows))
                    .await
                    .and_then(|response| response.check());
                match written {
                    Ok(_) => {
                        carts += batch as u64;
                        transactions += 1;
                    }
                    Err(_) => errors += 1,
                }
            }
            (carts, transactions, errors)
        });
    }
    let (mut carts, mut transactions, mut errors) = (0, 0, 0);
    while let Some(done) = tasks.join_next().await {
        let (c, t, e) = done?;
        (carts, transactions, errors) = (carts + c, transactions + t, errors + e);
    }
    let elapsed = started.elapsed();
    let cpu_after = crate::bench::server::process_cpu_ticks(std::process::id());
    let cpu = crate::bench::server::cpu_between(cpu_before, cpu_after);

    let mut records_per_cart = Vec::new();
    for (table, _) in tables {
        let counted: Option<i64> = db
            .query(format!(
                "RETURN (SELECT count() AS n FROM {table} GROUP ALL)[0].n ?? 0"
            ))
            .await?
            .check()?
            .take(0)?;
        let counted = counted.unwrap_or(0);
        records_per_cart.push((table.to_string(), counted as f64 / carts.max(1) as f64));
    }
    let mut floor = StoreFloor {
        layout,
        carts,
        transactions,
        errors,
        elapsed,
        writers,
        batch,
        cpu,
        records_per_cart,
        index_entries_per_cart: 0.0,
        store_bytes: crate::bench::soak::directory_bytes(path),
    };
    // An index of a table whose records are only moved gains no entry once
    // the record exists; one inserted per record gains one.
    floor.index_entries_per_cart = floor_indexes(layout)
        .iter()
        .filter(|(table, _)| {
            tables
                .iter()
                .any(|(name, statement)| name == table && !statement.contains("ON DUPLICATE"))
        })
        .filter_map(|(table, _)| floor.records_of(table))
        // Not `sum()`: a float sum of nothing is -0.0, printed "-0.0".
        .fold(0.0, |sum, entries| sum + entries);
    Ok(floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The floor of `layout` at `batch`, 50 Customers, 0.3 s.
    async fn floor_of(layout: FloorLayout, batch: usize) -> StoreFloor {
        let dir = tempfile::tempdir().expect("temporary directory");
        store_floor(
            layout,
            batch,
            &dir.path().join("floor"),
            2,
            50,
            Duration::from_millis(300),
        )
        .await
        .expect("the floor runs")
    }

    #[tokio::test]
    async fn the_floor_counts_what_it_committed() {
        let floor = floor_of(FloorLayout::Today, MAX_BATCH).await;
        assert_eq!(floor.errors, 0);
        assert!(floor.transactions >= 1);
        assert_eq!(floor.carts, floor.transactions * MAX_BATCH as u64);
        let per = |table: &str| floor.records_of(table).expect("counted");
        // One cart record per cart committed; Customers' totals at most one
        // each of the 50.
        assert_eq!(per("cart"), 1.0);
        assert_eq!(per("iw_draws"), 1.0);
        assert!((per("customer_state") * floor.carts as f64).round() <= 50.0);
        assert!(per("ledger_write") >= 1.0);
        // cart, ledger, draws and discounts each add an index entry.
        assert!(floor.index_entries_per_cart >= 3.0, "{floor:?}");
        let line = floor.describe();
        assert!(line.starts_with("Store floor: "), "{line}");
        assert!(
            floor.bytes_per_cart().is_some_and(|bytes| bytes > 0.0),
            "{floor:?}"
        );
        assert!(line.contains(" bytes of store, 0 errors)."), "{line}");
        assert_eq!(floor.json()["batch"], MAX_BATCH);
        assert_eq!(floor.json()["layout"], "today");
    }

    #[tokio::test]
    async fn the_one_document_floor_writes_an_event_and_a_code_per_cart_and_a_state_per_customer() {
        let floor = floor_of(FloorLayout::OneDocument, 1).await;
        assert_eq!(floor.errors, 0);
        // One cart per transaction.
        assert_eq!(floor.carts, floor.transactions);
        assert_eq!(floor.batch, 1);
        let per = |table: &str| floor.records_of(table).expect("counted");
        assert_eq!(per("event"), 1.0);
        assert_eq!(per("event_code"), 1.0);
        assert!((per("customer_state") * floor.carts as f64).round() <= 50.0);
        assert_eq!(floor.index_entries_per_cart, 0.0);
        let line = floor.describe();
        assert!(
            line.starts_with("Store floor (one document per event): "),
            "{line}"
        );
        assert!(line.contains(" 0.0 index entries per cart"), "{line}");
        assert_eq!(floor.json()["layout"], "one-document");
    }
}
