//! Write lanes: where a Customer's events wait for the group commit
//! ([`crate::storage::group_commit`]).
//!
//! A store has a few lanes (one per core when embedded); a Customer's events
//! always go to the same one, chosen by a stable hash of its id, and each lane
//! records one batch at a time. A lane's draws take their prize units from
//! stock shards of their own ([`WriteLane::owns_shard`]), so concurrent
//! batches of different lanes seldom write the same record.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{Semaphore, oneshot};

use crate::error::ApiResult;
use crate::storage::event_transaction::EventWrite;
use crate::storage::group_commit::MAX_BATCH;

/// A write waiting for a transaction, and where its answer goes.
pub(crate) struct Waiting {
    ticket: u64,
    pub(crate) write: EventWrite,
    pub(crate) answer: oneshot::Sender<ApiResult<()>>,
}

/// Which of the store's write lanes an event goes to: `index` of `count`.
/// The lane is decided by the Customer, before the draws, so that the draws
/// take their units from the lane's own stock shards
/// ([`crate::resources::instant_wins::store::stock::PrizeCounters::pick`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteLane {
    /// This lane.
    pub index: u32,
    /// How many lanes there are.
    pub count: u32,
}

impl WriteLane {
    /// The only lane of a store with one.
    pub const ONLY: WriteLane = WriteLane { index: 0, count: 1 };

    /// Whether the stock shard `shard` belongs to this lane.
    pub fn owns_shard(self, shard: i64) -> bool {
        shard.rem_euclid(i64::from(self.count.max(1))) == i64::from(self.index)
    }

    /// The lane of `customer_id`'s events among `count`: a stable hash
    /// (FNV-1a) of its id.
    pub fn of(customer_id: &str, count: usize) -> WriteLane {
        let hash = customer_id
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            });
        let count = count.max(1) as u32;
        WriteLane {
            index: (hash % u64::from(count)) as u32,
            count,
        }
    }
}

/// One lane: its waiting writes, recorded one batch at a time.
pub(crate) struct Lane {
    waiting: Mutex<VecDeque<Waiting>>,
    next_ticket: AtomicU64,
    /// Admits this lane's one batch at a time.
    pub(crate) writer: Arc<Semaphore>,
    /// Transactions run, batches and single writes alike.
    pub(crate) transactions: AtomicU64,
}

impl Lane {
    pub(crate) fn new() -> Lane {
        Lane {
            waiting: Mutex::new(VecDeque::new()),
            next_ticket: AtomicU64::new(0),
            writer: Arc::new(Semaphore::new(1)),
            transactions: AtomicU64::new(0),
        }
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Waiting>> {
        // A panic while holding the lock leaves the queue itself consistent
        // (pushes and drains are single calls), so a poisoned lock is usable.
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn enlist(&self, write: EventWrite, answer: oneshot::Sender<ApiResult<()>>) -> u64 {
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        self.lock().push_back(Waiting {
            ticket,
            write,
            answer,
        });
        ticket
    }

    /// Takes `ticket` back if no transaction has taken it yet.
    pub(crate) fn withdraw(&self, ticket: u64) -> bool {
        let mut waiting = self.lock();
        match waiting.iter().position(|w| w.ticket == ticket) {
            Some(index) => {
                waiting.remove(index);
                true
            }
            None => false,
        }
    }

    pub(crate) fn is_waiting(&self, ticket: u64) -> bool {
        self.lock().iter().any(|w| w.ticket == ticket)
    }

    /// The oldest waiting writes, [`MAX_BATCH`] at most.
    pub(crate) fn take_batch(&self) -> Vec<Waiting> {
        let mut waiting = self.lock();
        let count = waiting.len().min(MAX_BATCH);
        waiting.drain(..count).collect()
    }
}

/// Withdraws an enlisted write whose request went away before a transaction
/// took it, so that nothing is recorded for a request nobody is answered.
pub(crate) struct Enlisted<'a> {
    pub(crate) lane: &'a Lane,
    pub(crate) ticket: u64,
}

impl Drop for Enlisted<'_> {
    fn drop(&mut self) {
        self.lane.withdraw(self.ticket);
    }
}
