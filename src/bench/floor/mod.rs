//! The store's floor for a cart: the records one benchmark cart writes,
//! written straight to a new SurrealKV directory (synced on every commit, as
//! the service's store is) with no HTTP, no engine and no checks, by as many
//! writers as the group commit has lanes, [`MAX_BATCH`] carts per
//! transaction, each table's rows in one plain statement whose text never
//! changes. Whatever `POST /carts/realtime` costs above it is the service's
//! own doing (statements, checks, copies, HTTP, evaluation), not the store's:
//! the report gives the cart's CPU as a multiple of this row's.
//!
//! The floor is measured for two layouts ([`FloorLayout`]), the same carts
//! on each: the one the service writes today ([`TODAY_TABLES`]), each table
//! with the secondary indexes the service's schema defines on it
//! ([`floor_indexes`]), and the one #55 proposes ([`ONE_DOCUMENT_TABLES`]:
//! one document per event, one per-Customer state document, no secondary
//! index), as many records of each per cart as a cart of the benchmark's
//! Company writes on average ([`records`]). When the service's layout
//! changes, this file changes with it: today's floor is always the floor of
//! what the cart writes now.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::time::Instant;

pub mod records;

use crate::bench::floor::records::BenchCart;
use crate::bench::floor::records::CartRecords;
pub use crate::bench::floor::records::FloorLayout;
use crate::storage::group_commit::MAX_BATCH;
use crate::storage::write_lanes::WriteLane;

/// The statement moving a unit of a prize's stock shard, on either layout.
const MOVE_STOCK_SHARDS: (&str, &str) = (
    "iw_given",
    "INSERT INTO iw_given $iw_given ON DUPLICATE KEY UPDATE given += 1 RETURN NONE;",
);

/// The tables a cart writes today, in the order the floor's transaction
/// writes them, each with the statement writing a batch's rows (bound as
/// the table's name). Tables a cart adds to are `INSERT`ed; those it moves
/// (balances, totals, participation counts, stock shards) are upserted by
/// `INSERT ... ON DUPLICATE KEY UPDATE`, as the group commit moves them.
pub const TODAY_TABLES: [(&str, &str); 8] = [
    ("cart", "INSERT INTO cart $cart RETURN NONE;"),
    (
        "customer_stats",
        "INSERT INTO customer_stats $customer_stats ON DUPLICATE KEY UPDATE
             lifetime_spend += $input.lifetime_spend, cart_count += 1,
             last_purchase = $input.last_purchase RETURN NONE;",
    ),
    (
        "ledger_write",
        "INSERT INTO ledger_write $ledger_write RETURN NONE;",
    ),
    (
        "points_balance",
        "INSERT INTO points_balance $points_balance ON DUPLICATE KEY UPDATE
             balance += $input.balance RETURN NONE;",
    ),
    (
        "iw_counts",
        "INSERT INTO iw_counts $iw_counts ON DUPLICATE KEY UPDATE
             rules = $input.rules RETURN NONE;",
    ),
    ("iw_draws", "INSERT INTO iw_draws $iw_draws RETURN NONE;"),
    MOVE_STOCK_SHARDS,
    (
        "discount_transaction",
        "INSERT INTO discount_transaction $discount_transaction RETURN NONE;",
    ),
];

/// The tables a cart writes on the one-document layout: its event (refused
/// if its id exists), its code's key (refused if the code was recorded),
/// its Customer's state written whole as the service holds it after the
/// event (by one upsert moving its version), the month's day buckets of
/// its purchases, and the stock shards of prizes won, as today.
pub const ONE_DOCUMENT_TABLES: [(&str, &str); 5] = [
    ("event", "INSERT INTO event $event RETURN NONE;"),
    (
        "event_code",
        "INSERT INTO event_code $event_code RETURN NONE;",
    ),
    (
        "customer_state",
        "INSERT INTO customer_state $customer_state ON DUPLICATE KEY UPDATE
             version += 1, lifetime_spend = $input.lifetime_spend,
             cart_count = $input.cart_count, last_purchase = $input.last_purchase,
             balances = $input.balances, draws = $input.draws RETURN NONE;",
    ),
    (
        "purchase_month",
        "INSERT INTO purchase_month $purchase_month ON DUPLICATE KEY UPDATE
             days = $input.days RETURN NONE;",
    ),
    MOVE_STOCK_SHARDS,
];

/// The tables of `layout`, each with the statement writing its rows.
pub fn floor_tables(layout: FloorLayout) -> &'static [(&'static str, &'static str)] {
    match layout {
        FloorLayout::Today => &TODAY_TABLES,
        FloorLayout::OneDocument => &ONE_DOCUMENT_TABLES,
    }
}

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

/// The service's secondary indexes on the tables of `layout`, as its schema
/// defines them: (table, definition).
pub fn floor_indexes(layout: FloorLayout) -> Vec<(&'static str, &'static str)> {
    let tables = floor_tables(layout);
    crate::storage::schema::SCHEMA_PARTS
        .iter()
        .flat_map(|(_, text)| text.lines())
        .map(str::trim)
        .filter(|line| line.starts_with("DEFINE INDEX"))
        .filter_map(|line| {
            let table = line.split_whitespace().skip_while(|w| *w != "ON").nth(1)?;
            let (table, _) = tables.iter().find(|(name, _)| *name == table)?;
            Some((*table, line))
        })
        .collect()
}

/// One transaction's rows of `layout`, by table, in its tables' order.
fn batch_bindings(
    layout: FloorLayout,
    carts: impl IntoIterator<Item = CartRecords>,
) -> Map<String, Value> {
    let names = floor_tables(layout);
    let mut tables: Vec<Vec<Value>> = vec![Vec::new(); names.len()];
    for cart in carts {
        for (table, row) in cart.into_rows() {
            if let Some(i) = names.iter().position(|(name, _)| *name == table) {
                tables[i].push(row);
            }
        }
    }
    names
        .iter()
        .zip(tables)
        .map(|((name, _), rows)| (name.to_string(), Value::Array(rows)))
        .collect()
}

/// The floor's transaction on `layout`: every table's statement, always the
/// same text.
fn batch_text(layout: FloorLayout) -> String {
    let mut text = String::from("BEGIN TRANSACTION;\n");
    for (_, statement) in floor_tables(layout) {
        text.push_str(statement);
        text.push('\n');
    }
    text.push_str("COMMIT TRANSACTION;");
    text
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
    let cpu = cpu_before
        .zip(cpu_after)
        .map(|(before, after)| Duration::from_millis(after.saturating_sub(before) * 10));

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
    let index_entries_per_cart = floor_indexes(layout)
        .iter()
        .map(|(table, _)| {
            let inserted = tables
                .iter()
                .find(|(name, statement)| name == table && !statement.contains("ON DUPLICATE"));
            // An index of a table whose records are only moved gains no entry
            // once the record exists; one inserted per record gains one.
            match inserted {
                Some(_) => records_per_cart
                    .iter()
                    .find(|(name, _)| name == table)
                    .map_or(0.0, |(_, n)| *n),
                None => 0.0,
            }
        })
        .sum();
    Ok(StoreFloor {
        layout,
        carts,
        transactions,
        errors,
        elapsed,
        writers,
        batch,
        cpu,
        records_per_cart,
        index_entries_per_cart,
        store_bytes: crate::bench::soak::directory_bytes(path),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_writes_the_service_tables_with_their_own_indexes() {
        let indexes = floor_indexes(FloorLayout::Today);
        let tables: Vec<&str> = indexes.iter().map(|(table, _)| *table).collect();
        for table in ["cart", "ledger_write", "iw_draws", "discount_transaction"] {
            assert!(tables.contains(&table), "{table} in {indexes:?}");
        }
        assert!(
            indexes
                .iter()
                .all(|(table, line)| line.contains(&format!(" ON {table} "))),
            "{indexes:?}"
        );
        // The text of a transaction does not depend on its rows.
        assert_eq!(
            batch_text(FloorLayout::Today),
            batch_text(FloorLayout::Today)
        );
        assert!(batch_text(FloorLayout::Today).starts_with("BEGIN TRANSACTION;"));
    }

    #[test]
    fn the_one_document_layout_has_no_index_but_the_stock_shards_own() {
        let indexes = floor_indexes(FloorLayout::OneDocument);
        assert!(
            indexes.iter().all(|(table, _)| *table == "iw_given"),
            "{indexes:?}"
        );
        let text = batch_text(FloorLayout::OneDocument);
        for table in [
            "event",
            "event_code",
            "customer_state",
            "purchase_month",
            "iw_given",
        ] {
            assert!(
                text.contains(&format!("INSERT INTO {table} ${table}")),
                "{text}"
            );
        }
    }

    #[tokio::test]
    async fn the_floor_counts_what_it_committed() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let floor = store_floor(
            FloorLayout::Today,
            MAX_BATCH,
            &dir.path().join("floor"),
            2,
            50,
            Duration::from_millis(300),
        )
        .await
        .expect("the floor runs");
        assert_eq!(floor.errors, 0);
        assert!(floor.transactions >= 1);
        assert_eq!(floor.carts, floor.transactions * MAX_BATCH as u64);
        let per = |table: &str| {
            floor
                .records_per_cart
                .iter()
                .find(|(name, _)| name == table)
                .map(|(_, n)| *n)
                .expect("counted")
        };
        // One cart record per cart committed; Customers' totals at most one
        // each of the 50.
        assert_eq!(per("cart"), 1.0);
        assert_eq!(per("iw_draws"), 1.0);
        assert!((per("customer_stats") * floor.carts as f64).round() <= 50.0);
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
        let dir = tempfile::tempdir().expect("temporary directory");
        let floor = store_floor(
            FloorLayout::OneDocument,
            1,
            &dir.path().join("floor"),
            2,
            50,
            Duration::from_millis(300),
        )
        .await
        .expect("the floor runs");
        assert_eq!(floor.errors, 0);
        // One cart per transaction.
        assert_eq!(floor.carts, floor.transactions);
        assert_eq!(floor.batch, 1);
        let per = |table: &str| {
            floor
                .records_per_cart
                .iter()
                .find(|(name, _)| name == table)
                .map(|(_, n)| *n)
                .expect("counted")
        };
        assert_eq!(per("event"), 1.0);
        assert_eq!(per("event_code"), 1.0);
        assert!((per("customer_state") * floor.carts as f64).round() <= 50.0);
        assert_eq!(floor.index_entries_per_cart, 0.0);
        let line = floor.describe();
        assert!(
            line.starts_with("Store floor (one document per event): "),
            "{line}"
        );
        assert_eq!(floor.json()["layout"], "one-document");
    }
}
