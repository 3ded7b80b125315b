//! SurrealDB: the schema and every query the service runs; opening a store
//! is [`open`], an embedded one on a fresh write-ahead log (`fresh_log.rs`).
//!
//! Handlers and services never write SurrealQL; they call the repositories in
//! this module. One [`Store`] is shared (cheaply cloned) by the whole process.

pub mod batch_capture;
mod batch_outcome;
pub mod connection;
pub mod duties;
pub mod event_transaction;
mod fresh_log;
pub mod group_commit;
pub mod health;
pub mod instances;
pub mod memory;
pub mod open;
pub mod page_query;
pub(crate) mod record_text;
pub mod schema;
#[cfg(test)]
mod vendored_surrealdb;
pub mod write_lanes;

use std::future::IntoFuture;
use std::time::{Duration, Instant};

use crate::storage::connection::StoreQuery;
use serde_json::Value;
use surrealdb::IndexedResults;
use surrealdb::types::SurrealValue;
use tracing::Instrument;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::written_answer;

pub use crate::storage::open::DEFAULT_REMOTE_CONNECTIONS;

/// The namespace and database every Company's data lives in.
const NAMESPACE: &str = "loyalty";
const DATABASE: &str = "loyalty";

/// Credentials for a remote SurrealDB server (`ws://`).
#[derive(Debug, Clone, Default)]
pub struct RemoteAuth {
    /// Root user name.
    pub username: String,
    /// Root password.
    pub password: String,
}

/// A handle on the store; clones share one connection.
#[derive(Clone, Debug)]
pub struct Store {
    pub(crate) db: crate::storage::connection::Db,
    /// Admits write transactions ([`Store::transact`]) a few at a time.
    pub(crate) writers: std::sync::Arc<tokio::sync::Semaphore>,
    /// How long a write waits for admission before it is refused unstarted.
    pub(crate) admission_wait: Duration,
    /// Carts and Custom Events waiting to be recorded together.
    pub(crate) event_writes: std::sync::Arc<crate::storage::group_commit::WriteQueue>,
    /// What this process keeps of the records between requests.
    pub(crate) memory: crate::storage::memory::Memory,
    /// Whether the store is a remote server, which several processes may
    /// share, rather than embedded in this one.
    pub(crate) remote: bool,
    /// What its writes go through (batch sizes, conflicts, failures),
    /// counted for `GET /metrics`.
    pub(crate) metrics: crate::telemetry::metrics::StoreMetrics,
    /// The directory of an embedded durable store (`surrealkv://`).
    pub(crate) directory: Option<std::path::PathBuf>,
    /// Where the group commit keeps its first transactions, when asked
    /// ([`Store::capture_batches`]).
    pub(crate) batch_capture: Option<std::sync::Arc<crate::storage::batch_capture::BatchCapture>>,
}

impl Store {
    /// How many queries this store was sent, by every clone of it: what
    /// requests cost in round trips (a remote store answers each one over
    /// the network). Background work counts too.
    pub fn queries_sent(&self) -> u64 {
        self.db.queries_sent()
    }

    /// The time every query of this store took from sent to answered,
    /// summed: what requests waited on it.
    pub fn query_time(&self) -> Duration {
        self.db.query_time()
    }
}

/// Prefix of a refusal raised inside SurrealQL with
/// `THROW 'REFUSED|<code>|<message>'`; [`Store::transact`] turns it into an
/// [`ApiError`] with that registered code.
pub(crate) const REFUSED: &str = "REFUSED|";

/// How many times a conflicting transaction is tried before giving up.
const MAX_ATTEMPTS: u32 = 12;

/// Whether a transaction still has to be admitted among the writers, or
/// runs under an admission its caller holds.
#[derive(Clone, Copy)]
pub(crate) enum WriterPermit {
    /// Wait for admission before each attempt ([`open::ADMISSION_WAIT`](crate::storage::open::ADMISSION_WAIT) at most).
    Wait,
    /// Already admitted: the caller holds a writer's permit for every attempt.
    Held,
}

impl Store {
    /// Runs the query built by `build` (one `BEGIN ... COMMIT` transaction) and
    /// checks every statement. A write conflict is retried with jittered
    /// backoff, which is safe because the transaction is rebuilt from the same
    /// inputs; a `REFUSED|code|message` thrown by the query becomes that error.
    /// The query may complete the Idempotency-Key of the request running on
    /// this task with its answer: `$answer` is bound for
    /// [`crate::http::idempotency::store::WRITE_ANSWER`].
    pub(crate) async fn transact<'a, F>(&'a self, build: F) -> ApiResult<IndexedResults>
    where
        F: Fn(&'a crate::storage::connection::Db) -> StoreQuery<'a>,
    {
        self.transact_admitted(WriterPermit::Wait, build).await
    }

    /// [`Store::transact`], admitted as `admission` says.
    pub(crate) async fn transact_admitted<'a, F>(
        &'a self,
        admission: WriterPermit,
        build: F,
    ) -> ApiResult<IndexedResults>
    where
        F: Fn(&'a crate::storage::connection::Db) -> StoreQuery<'a>,
    {
        let answer = written_answer();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let query = || build(&self.db).bind(("answer", answer.clone()));
            let failed = |error: surrealdb::Error| {
                let error = store_error(error);
                self.metrics
                    .errors
                    .with_label_values(&[failure_reason(&error)])
                    .inc();
                error
            };
            let started = Instant::now();
            let span = tracing::debug_span!("store_transaction", attempt);
            let mut response = match admission {
                WriterPermit::Held => query()
                    .into_future()
                    .instrument(span.clone())
                    .await
                    .map_err(failed)?,
                WriterPermit::Wait => {
                    let Ok(admitted) =
                        tokio::time::timeout(self.admission_wait, self.writers.acquire()).await
                    else {
                        self.metrics.errors.with_label_values(&["busy"]).inc();
                        return Err(server_busy());
                    };
                    // The semaphore is never closed; were it, the write runs unadmitted.
                    let _admitted = admitted.ok();
                    query()
                        .into_future()
                        .instrument(span.clone())
                        .await
                        .map_err(failed)?
                }
            };
            let errors = response.take_errors();
            span.in_scope(|| {
                tracing::debug!(
                    failed = !errors.is_empty(),
                    micros = started.elapsed().as_micros() as u64,
                    "store transaction"
                )
            });
            if errors.is_empty() {
                return Ok(response);
            }
            let messages: Vec<String> = errors.values().map(ToString::to_string).collect();
            if let Some(refusal) = messages.iter().find_map(|m| parse_refusal(m)) {
                return Err(refusal);
            }
            let conflicted = messages
                .iter()
                .any(|m| m.contains("can be retried") || m.contains("conflict"));
            if conflicted {
                self.metrics.conflicts.inc();
            }
            if conflicted && attempt >= MAX_ATTEMPTS {
                self.metrics.errors.with_label_values(&["conflicts"]).inc();
                tracing::warn!(
                    attempt,
                    "store transaction kept conflicting: {}",
                    messages.join("; ")
                );
                return Err(ApiError::new(
                    ErrorCode::ConcurrentModification,
                    "simultaneous requests kept changing the same records; retry",
                ));
            }
            if !conflicted {
                let error = store_failure(format!(
                    "store transaction failed after {attempt} attempt(s): {}",
                    messages.join("; ")
                ));
                self.metrics
                    .errors
                    .with_label_values(&[failure_reason(&error)])
                    .inc();
                return Err(error);
            }
            if attempt == 1 {
                // Usually one other transaction has just committed the same
                // record: trying again at once sees it, without making the
                // till wait out a backoff.
                tokio::task::yield_now().await;
                continue;
            }
            let base = 1u64 << attempt.min(7);
            let jitter = rand::random_range(0..=base);
            tokio::time::sleep(Duration::from_millis(base + jitter)).await;
        }
    }
}

impl Store {
    /// Every stored document of `table` belonging to `company` (by its
    /// `company` field, or the first part of its key for a table keyed
    /// `[company, ...]` without one), exactly as stored. For diagnostics and
    /// for tests that check what is really kept (for example that
    /// anonymization left no personal data).
    pub async fn raw_documents(
        &self,
        table: &str,
        company: &str,
    ) -> ApiResult<Vec<serde_json::Value>> {
        crate::common::validate::validate_slug("table", table)?;
        first(
            self.db
                .query(
                    "SELECT * FROM type::table($table) WHERE company = $company
                         OR (type::is_array(record::id(id)) AND record::id(id)[0] = $company)",
                )
                .bind(("table", table.to_string()))
                .bind(("company", company.to_string())),
        )
        .await
    }
}

impl Store {
    /// Writes `documents` into `table` exactly as they are (each with its
    /// `id`), in one statement: for tests and measurements that need many
    /// records fast, never for what the service records.
    pub async fn insert_raw_documents(
        &self,
        table: &str,
        documents: Vec<serde_json::Value>,
    ) -> ApiResult<()> {
        // A slug is a plain table name: safe to write into the text.
        crate::common::validate::validate_slug("table", table)?;
        execute(
            self.db
                .query(format!("INSERT INTO {table} $documents RETURN NONE"))
                .bind(("documents", documents)),
        )
        .await
    }
}

/// The refusal of a write not admitted within the admission wait.
fn server_busy() -> ApiError {
    ApiError::new(
        ErrorCode::ServerBusy,
        "too many requests are recording at once; nothing was recorded, retry",
    )
}

/// Reads `REFUSED|code|message` out of a SurrealDB error text.
fn parse_refusal(message: &str) -> Option<ApiError> {
    let rest = &message[message.find(REFUSED)? + REFUSED.len()..];
    let (code, text) = rest.split_once('|')?;
    let code = ErrorCode::from_code(code)?;
    Some(ApiError::new(code, text.trim_end_matches(['\'', '"'])))
}

/// Runs `query`, checks every statement, and returns the result of the first.
pub(crate) async fn first<T>(query: StoreQuery<'_>) -> ApiResult<T>
where
    T: SurrealValue,
    usize: surrealdb::opt::QueryResult<T>,
{
    let mut response = query.await.and_then(|r| r.check()).map_err(store_error)?;
    response.take(0).map_err(store_error)
}

/// Runs `query` (one `SELECT` of `fields`) and reads each row it returns
/// as a `T` of those fields in that order (a tuple): a row lacking one, or
/// holding another type, is passed over.
pub(crate) async fn first_rows<T: serde::de::DeserializeOwned>(
    query: StoreQuery<'_>,
    fields: &[&str],
) -> ApiResult<Vec<T>> {
    let rows: Vec<Value> = first(query).await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            let values = fields.iter().map(|field| row.get(*field).cloned());
            let values: Option<Vec<Value>> = values.collect();
            serde_json::from_value(Value::Array(values?)).ok()
        })
        .collect())
}

/// Runs `query` and checks every statement.
pub(crate) async fn execute(query: StoreQuery<'_>) -> ApiResult<()> {
    query.await.and_then(|r| r.check()).map_err(store_error)?;
    Ok(())
}

/// Maps a SurrealDB failure: a lost connection to a remote store to
/// `store_unavailable` ([`crate::storage::health`]), anything else to
/// `server_error`, logging the detail.
pub(crate) fn store_error(error: surrealdb::Error) -> ApiError {
    if error.is_connection() {
        tracing::warn!(%error, "the connection to the store broke");
        return store_unreachable();
    }
    store_failure(format!("store: {error}"))
}

/// The refusal of a request the store failed, from its words (`detail`):
/// 503 `store_full` when its disk is full (the operator is told in the log,
/// the client to come back later), else `server_error`.
pub(crate) fn store_failure(detail: String) -> ApiError {
    if is_disk_full(&detail) {
        tracing::error!(
            %detail,
            "the store's disk is full: writes are refused with 503 store_full until space is freed (no restart needed)"
        );
        return ApiError::new(
            ErrorCode::StoreFull,
            "the store's disk is full, so nothing was recorded; retry later (with the same Idempotency-Key)",
        );
    }
    ApiError::internal(detail)
}

/// Whether the store's words say its disk is full (ENOSPC, as the embedded
/// engine and a remote server's engine word it).
fn is_disk_full(detail: &str) -> bool {
    ["No space left on device", "os error 28", "no storage space"]
        .iter()
        .any(|words| detail.contains(words))
}

/// The `reason` label of a failed write in `loyalty_store_errors_total`.
fn failure_reason(error: &ApiError) -> &'static str {
    match error.code {
        ErrorCode::StoreUnavailable => "unreachable",
        ErrorCode::StoreFull => "disk_full",
        _ => "failed",
    }
}

/// The refusal of a request while the store cannot be reached.
pub(crate) fn store_unreachable() -> ApiError {
    ApiError::new(
        ErrorCode::StoreUnavailable,
        "the store cannot be reached; retry (with the same Idempotency-Key, a write that was under way is done once)",
    )
}

#[cfg(test)]
mod admission_tests {
    use super::*;

    #[tokio::test]
    async fn a_write_not_admitted_in_time_is_refused_and_changes_nothing() {
        let mut store = Store::connect("mem://", None).await.unwrap();
        store.writers = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
        store.admission_wait = Duration::from_millis(20);
        let write =
            "BEGIN; CREATE type::record('idempotency', ['c', 'k']) SET company = 'c'; COMMIT;";
        let refused = store.transact(|db| db.query(write)).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::ServerBusy);
        assert!(
            store
                .raw_documents("idempotency", "c")
                .await
                .unwrap()
                .is_empty()
        );
        store.writers.add_permits(1);
        store.transact(|db| db.query(write)).await.unwrap();
        assert_eq!(
            store.raw_documents("idempotency", "c").await.unwrap().len(),
            1
        );
    }
}

#[cfg(test)]
mod disk_full_tests {
    use super::*;

    #[test]
    fn a_full_disk_is_told_apart_from_other_failures() {
        let full = "store transaction failed after 1 attempt(s): Cannot COMMIT: There was a problem with a transaction: WAL error: IO error: kind=no storage space, message=No space left on device (os error 28)";
        assert_eq!(store_failure(full.to_string()).code, ErrorCode::StoreFull);
        assert_eq!(
            store_failure("store: something else broke".to_string()).code,
            ErrorCode::ServerError
        );
    }
}
