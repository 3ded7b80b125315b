//! Group commit: carts and Custom Events recorded at the same moment share one
//! transaction.
//!
//! SurrealDB spends a fixed cost on every transaction (its commit, and parsing
//! every statement of its text) besides the records it writes. Under load,
//! tills send carts faster than transactions commit one by one, so the events
//! that arrive while the writers are busy are recorded together: one text of
//! a few statements over rows of the whole batch
//! ([`crate::storage::event_transaction`]), parsed and committed once.
//!
//! Events go to one of a few lanes ([`crate::storage::write_lanes`]), by Customer, and
//! each lane records one batch at a time: concurrent batches of one lane would
//! conflict on the records they share (a popular prize's stock counters) and
//! be retried whole.
//!
//! There is no background task. Each request enlists its write in its lane
//! and waits for either its answer or the lane's admission; the one admitted
//! takes every write waiting (up to [`MAX_BATCH`]) and records them in a task
//! of their own, so a request that goes away does not abort the others. Every
//! write is answered only after the transaction that holds it has committed.
//!
//! A batch is all or nothing. When it is refused (a cart code recorded twice,
//! Instant Win counts that moved since the draw), each of its writes is
//! recorded again on its own, so each request gets exactly the answer it
//! would have had alone.

use std::sync::atomic::Ordering;

use tokio::sync::{OwnedSemaphorePermit, oneshot};
use tracing::Instrument;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::storage::Store;
use crate::storage::WriterPermit;
use crate::storage::event_transaction::BatchBindings;
use crate::storage::event_transaction::BatchTransaction;
use crate::storage::event_transaction::EventWrite;
use crate::storage::event_transaction::WRITTEN_FOR;
use crate::storage::server_busy;
use crate::storage::write_lanes::Enlisted;
use crate::storage::write_lanes::Lane;
use crate::storage::write_lanes::Waiting;
use crate::storage::write_lanes::WriteLane;

/// Most writes one transaction records. Past a handful the fixed cost is
/// shared out; a longer batch only delays the first of its answers.
pub(crate) const MAX_BATCH: usize = 16;

/// Lanes against a remote server, per node. Fewer lanes make larger batches,
/// and the server spends less CPU per event on a larger one: on a two-core
/// machine, two lanes recorded as many carts as four with one node and 7 to
/// 12 % more with two nodes (1.42 instead of 1.67 queries per cart), and 10
/// to 25 % more Custom Events. Every node has its own lanes, so the batches
/// in flight grow with the nodes. Against an embedded store there is one
/// lane per core: a transaction runs on one thread.
pub(crate) const REMOTE_LANES: usize = 2;

/// The writes waiting to be recorded, shared by the clones of a [`Store`]:
/// one lane per batch recorded at a time. A Customer's events always go to
/// the same lane, and the lanes take stock from different shards, so
/// concurrent batches seldom write the same record.
pub(crate) struct WriteQueue {
    lanes: Vec<Lane>,
}

impl std::fmt::Debug for WriteQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waiting: Vec<usize> = self.lanes.iter().map(|lane| lane.lock().len()).collect();
        let transactions: Vec<u64> = self
            .lanes
            .iter()
            .map(|lane| lane.transactions.load(Ordering::Relaxed))
            .collect();
        f.debug_struct("WriteQueue")
            .field("waiting", &waiting)
            .field("transactions", &transactions)
            .finish_non_exhaustive()
    }
}

impl WriteQueue {
    /// A queue with `lanes` lanes (at least one).
    pub(crate) fn new(lanes: usize) -> WriteQueue {
        WriteQueue {
            lanes: (0..lanes.max(1)).map(|_| Lane::new()).collect(),
        }
    }
}

impl Store {
    /// The write lane of `customer_id`'s events.
    pub fn write_lane(&self, customer_id: &str) -> WriteLane {
        WriteLane::of(customer_id, self.event_writes.lanes.len())
    }

    /// Records `write`, an event of `customer_id`, in a transaction shared
    /// with the writes waiting in its lane at the same moment, and answers
    /// once it has committed: `Ok` when it was recorded, or the error it would
    /// have had in a transaction of its own.
    pub(crate) async fn record_event(&self, customer_id: &str, write: EventWrite) -> ApiResult<()> {
        let started = std::time::Instant::now();
        let recorded = self.record_in_lane(customer_id, write).await;
        // In the request's span: how long its write waited and took.
        tracing::debug!(
            recorded = recorded.is_ok(),
            micros = started.elapsed().as_micros() as u64,
            "recorded by the group commit"
        );
        recorded
    }

    async fn record_in_lane(&self, customer_id: &str, mut write: EventWrite) -> ApiResult<()> {
        // Whose cached state the batch forgets once it has committed.
        write[WRITTEN_FOR] = customer_id.into();
        let (answer, mut answered) = oneshot::channel();
        let index = self.write_lane(customer_id).index as usize;
        let lane = &self.event_writes.lanes[index];
        let enlisted = Enlisted {
            lane,
            ticket: lane.enlist(write, answer),
        };
        let deadline = tokio::time::Instant::now() + self.admission_wait;
        loop {
            let admitted = tokio::select! {
                biased;
                answer = &mut answered => return received(answer),
                admitted = tokio::time::timeout_at(deadline, lane.writer.clone().acquire_owned()) => admitted,
            };
            match admitted {
                Ok(Ok(permit)) => {
                    let batch = lane.take_batch();
                    if !batch.is_empty() {
                        // Its own span: a batch serves several requests.
                        let span = tracing::debug_span!("group_commit_batch", lane = index);
                        tokio::spawn(
                            self.clone()
                                .record_batch(index, batch, permit)
                                .instrument(span),
                        );
                    }
                    if !lane.is_waiting(enlisted.ticket) {
                        return received(answered.await);
                    }
                }
                _ => {
                    // Not admitted in time (the semaphore is never closed).
                    if lane.withdraw(enlisted.ticket) {
                        return Err(server_busy());
                    }
                    return received(answered.await);
                }
            }
        }
    }

    /// Records `batch` of lane `index` in one transaction, or each of its
    /// writes on its own when the batch is refused, and answers every one.
    async fn record_batch(
        self,
        index: usize,
        batch: Vec<Waiting>,
        _admitted: OwnedSemaphorePermit,
    ) {
        let (writes, answers): (Vec<EventWrite>, Vec<_>) = batch
            .into_iter()
            .map(|waiting| (waiting.write, waiting.answer))
            .unzip();
        self.metrics.batch_size.observe(writes.len() as f64);
        tracing::debug!(events = writes.len(), "group commit batch");
        let together = self.record_writes(index, &writes).await;
        if together.is_ok() || writes.len() == 1 {
            for answer in answers {
                // A request that went away is not waiting for its answer.
                let _ = answer.send(together.clone());
            }
            return;
        }
        self.metrics.batches_refused.inc();
        for (write, answer) in writes.into_iter().zip(answers) {
            let alone = self
                .record_writes(index, std::slice::from_ref(&write))
                .await;
            let _ = answer.send(alone);
        }
    }

    async fn record_writes(&self, index: usize, writes: &[EventWrite]) -> ApiResult<()> {
        self.event_writes.lanes[index]
            .transactions
            .fetch_add(1, Ordering::Relaxed);
        let transaction = BatchTransaction::of(writes);
        // Every Customer entry kept before now was read before this batch
        // could commit.
        let sent = self.memory.customers.mark();
        let recorded = if let Some(refusal) = transaction.refused_whole() {
            Err(refusal)
        } else {
            let (text, bindings) = transaction.into_query();
            if let Some(capture) = &self.batch_capture {
                capture.keep(writes.len(), &text, &bindings);
            }
            let bindings = BatchBindings::new(bindings, writes);
            self.transact_admitted(WriterPermit::Held, |db| {
                db.query_keeping_customers(text.as_str())
                    .bind(bindings.for_attempt())
            })
            .await
            .map(drop)
        };
        // Before any answer, whatever the outcome (a lost answer may have
        // committed).
        self.learn_outcome(writes, sent, &recorded);
        recorded
    }
}

/// The answer a batch sent, or an error when it never sent one.
fn received(answer: Result<ApiResult<()>, oneshot::error::RecvError>) -> ApiResult<()> {
    answer.unwrap_or_else(|_| {
        Err(ApiError::internal(
            "the transaction recording this event ended without an answer",
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::time::Timestamp;
    use crate::error::ErrorCode;
    use crate::resources::carts::model::Cart;
    use crate::resources::carts::store::CartWrite;
    use crate::resources::points::ledger_entry::LedgerEntry;
    use crate::resources::points::model::PointsKind;
    use std::time::Duration;

    fn cart(code: &str, customer: &str, total: f64) -> Cart {
        serde_json::from_value(serde_json::json!({
            "id": code, "customer_id": customer, "date": "2026-11-22T10:00:00Z",
            "lines": [{"product_code": "P1", "quantity": 1.0, "price": total}],
            "total": total, "discount_total": 0.0, "points_earned": 10,
            "created_at": "2026-11-22T10:00:00Z"
        }))
        .unwrap()
    }

    /// `cart` with its `ledger` and nothing else.
    fn cart_write<'a>(cart: &'a Cart, ledger: &'a [LedgerEntry]) -> CartWrite<'a> {
        CartWrite::earning_only(cart, ledger)
    }

    fn points(customer: &str) -> Vec<LedgerEntry> {
        let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        vec![LedgerEntry::new(
            customer,
            PointsKind::Points,
            10,
            "cart",
            at,
        )]
    }

    /// Holds the writer of every lane of `store` so that writes queue up.
    async fn hold_writers(store: &Store) -> Vec<OwnedSemaphorePermit> {
        let mut held = Vec::new();
        for lane in &store.event_writes.lanes {
            held.push(lane.writer.clone().acquire_owned().await.unwrap());
        }
        held
    }

    fn waiting(store: &Store) -> usize {
        let lanes = &store.event_writes.lanes;
        lanes.iter().map(|lane| lane.lock().len()).sum()
    }

    fn transactions(store: &Store) -> u64 {
        let lanes = &store.event_writes.lanes;
        lanes
            .iter()
            .map(|lane| lane.transactions.load(Ordering::Relaxed))
            .sum()
    }

    async fn until_waiting(store: &Store, count: usize) {
        while waiting(store) < count {
            tokio::task::yield_now().await;
        }
    }

    /// Records carts `(code, customer, total)` at once and answers in order.
    async fn record_at_once(store: &Store, carts: &[(&str, &str, f64)]) -> Vec<ApiResult<()>> {
        let held = hold_writers(store).await;
        let mut tasks = Vec::new();
        for &(code, customer, total) in carts {
            let store = store.clone();
            let cart = cart(code, customer, total);
            tasks.push(tokio::spawn(async move {
                store
                    .insert_cart("c", cart_write(&cart, &points(&cart.customer_id)))
                    .await
            }));
        }
        until_waiting(store, carts.len()).await;
        drop(held);
        let mut answers = Vec::new();
        for task in tasks {
            answers.push(task.await.unwrap());
        }
        answers
    }

    /// Records the cart `code` of Customer `x` (1.00, 10 points).
    async fn record_for_x(store: &Store, code: &str) -> ApiResult<()> {
        store
            .insert_cart("c", cart_write(&cart(code, "x", 1.0), &points("x")))
            .await
    }

    /// Lets the writers go, records `code`, and checks it is the only cart stored.
    async fn release_and_record_only(store: &Store, held: Vec<OwnedSemaphorePermit>, code: &str) {
        drop(held);
        record_for_x(store, code).await.unwrap();
        let carts = store.raw_documents("cart", "c").await.unwrap();
        assert_eq!(carts.len(), 1);
        assert_eq!(carts[0]["code"], code);
    }

    async fn cart_count(store: &Store, customer: &str) -> i64 {
        let states = store.raw_documents("customer_state", "c").await.unwrap();
        states
            .iter()
            .find(|row| row["customer_id"] == customer)
            .and_then(|row| row["cart_count"].as_i64())
            .unwrap_or(0)
    }

    #[tokio::test]
    async fn carts_waiting_together_share_transactions_and_are_each_recorded() {
        let store = Store::connect("mem://", None).await.unwrap();
        let codes: Vec<String> = (0..20).map(|i| format!("T{i:02}")).collect();
        let carts: Vec<(&str, &str, f64)> = codes
            .iter()
            .enumerate()
            .map(|(i, code)| (code.as_str(), if i % 2 == 0 { "a" } else { "b" }, 5.0))
            .collect();
        let answers = record_at_once(&store, &carts).await;
        assert!(answers.iter().all(Result::is_ok), "{answers:?}");
        // 20 carts waiting: in one lane, a batch of MAX_BATCH and one of the
        // rest; in two, a batch in each.
        assert_eq!(transactions(&store), 2);
        assert_eq!(store.raw_documents("cart", "c").await.unwrap().len(), 20);
        for customer in ["a", "b"] {
            assert_eq!(cart_count(&store, customer).await, 10);
            let balance = store.balance("c", customer, PointsKind::Points).await;
            assert_eq!(balance.unwrap(), 100);
        }
    }

    #[tokio::test]
    async fn a_captured_batch_replays_as_it_was_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::connect("mem://", None).await.unwrap();
        store.capture_batches(dir.path().join("batches")).unwrap();
        let answers = record_at_once(&store, &[("A", "x", 1.0), ("B", "y", 2.0)]).await;
        assert!(answers.iter().all(Result::is_ok), "{answers:?}");
        let files: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path().join("batches"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        let mut events = 0;
        for file in &files {
            let replayed =
                crate::bench::replay::replay(file, dir.path(), Duration::from_millis(50))
                    .await
                    .unwrap();
            assert!(replayed.failures.is_empty(), "{replayed:?}");
            assert!(replayed.runs > 0, "{replayed:?}");
            events += replayed.events;
        }
        assert_eq!(events, 2, "{files:?}");
    }

    #[tokio::test]
    async fn a_refused_batch_answers_each_cart_as_it_would_alone() {
        let store = Store::connect("mem://", None).await.unwrap();
        // One Customer: one lane, so one batch in the order the carts came.
        let answers = record_at_once(
            &store,
            &[
                ("A", "x", 1.0),
                ("SAME", "x", 2.0),
                ("B", "x", 3.0),
                ("SAME", "x", 4.0),
                ("C", "x", 5.0),
            ],
        )
        .await;
        let refused: Vec<usize> = (0..answers.len())
            .filter(|&i| answers[i].is_err())
            .collect();
        assert_eq!(refused, vec![3], "{answers:?}");
        assert_eq!(
            answers[3].as_ref().unwrap_err().code,
            ErrorCode::CartAlreadyExists
        );
        // The refused batch, then each cart on its own.
        assert_eq!(transactions(&store), 6);
        let carts = store.raw_documents("cart", "c").await.unwrap();
        assert_eq!(carts.len(), 4);
        let same = carts.iter().find(|c| c["code"] == "SAME").unwrap();
        // Money is stored as a decimal, which the store answers as text.
        assert_eq!(same["total"], "2");
        assert_eq!(cart_count(&store, "x").await, 4);
        let balance = store.balance("c", "x", PointsKind::Points).await;
        assert_eq!(balance.unwrap(), 40);
    }

    #[tokio::test]
    async fn a_cart_not_admitted_in_time_is_refused_and_withdrawn() {
        let mut store = Store::connect("mem://", None).await.unwrap();
        store.admission_wait = Duration::from_millis(20);
        let held = hold_writers(&store).await;
        let late = record_for_x(&store, "LATE").await;
        assert_eq!(late.unwrap_err().code, ErrorCode::ServerBusy);
        assert_eq!(waiting(&store), 0);
        release_and_record_only(&store, held, "NEXT").await;
        assert_eq!(
            store.balance("c", "x", PointsKind::Points).await.unwrap(),
            10
        );
    }

    #[tokio::test]
    async fn a_cart_whose_request_went_away_before_its_batch_is_not_recorded() {
        let store = Store::connect("mem://", None).await.unwrap();
        let held = hold_writers(&store).await;
        let gone =
            tokio::time::timeout(Duration::from_millis(20), record_for_x(&store, "GONE")).await;
        assert!(gone.is_err(), "the write should still be waiting");
        assert_eq!(waiting(&store), 0);
        release_and_record_only(&store, held, "KEPT").await;
        assert_eq!(transactions(&store), 1);
    }
}
