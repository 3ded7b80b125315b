//! The Customers this process read lately, kept in memory with what its
//! events are evaluated on (facts, `once` messages shown, the records its
//! draws are decided on), so that a till's identify, simulate and record of
//! one Customer read the store once.
//!
//! Only an embedded store is cached: this process is then the only writer,
//! so it knows of every change. A remote store may be written by other
//! servers, and a Customer read from it is never kept.
//!
//! Two ways an entry stops being served:
//! - the carts and Custom Events recorded by the group commit name their
//!   Customer, which is forgotten once its transaction has committed and
//!   before its answer is sent ([`CustomerCache::forget`]); or, when what
//!   the event changed is known ([`RecordedChange`]: a purchase, a points
//!   balance moved, participations counted) and the entry was kept before
//!   the transaction was sent, moved on by that change instead
//!   ([`CustomerCache::advance`]), so that the Customer's next event is not
//!   read again;
//! - every other query whose text writes moves the store's write epoch
//!   ([`WriteEpoch`]) when it completes, and an entry read before that is no
//!   longer served. A writer nobody thought of costs the cache its entries,
//!   never a stale answer.
//!
//! A read races the writes that complete while it runs: its result is kept
//! only when no write that may touch its Customer completed meanwhile
//! ([`ReadTicket`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::time::Timestamp;
use crate::pipeline::store::CustomerFacts;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::recorded::RecordedChange;
use crate::resources::customers::store::StoredCustomer;
use crate::resources::customers::store::holds_identifier;
use crate::resources::instant_wins::store::draw_state::CustomerDraws;
use crate::storage::connection::WriteEpoch;

/// How many shards the cache is split into: a write forgets the reads of
/// its Customer's shard only, and concurrent requests seldom wait on one
/// lock.
const SHARDS: usize = 64;

/// The Customers kept by default, 50,000: a few kilobytes each.
pub const DEFAULT_CAPACITY: usize = 50_000;

/// The facts of one Customer as read, from the instant its purchases were
/// read from (`None`: none were).
#[derive(Debug, Clone)]
pub struct CachedFacts {
    /// Purchases were read from this instant.
    pub since: Option<Timestamp>,
    /// The facts.
    pub facts: CustomerFacts,
}

impl CachedFacts {
    /// The facts with purchases from `since`, when these cover them.
    pub fn covering(&self, since: Option<Timestamp>) -> Option<CustomerFacts> {
        let mut facts = self.facts.clone();
        match (since, self.since) {
            (None, _) => facts.history = Arc::default(),
            // Days older than `since` are left: no window of a read from
            // `since` reaches them.
            (Some(wanted), Some(read)) if read.as_datetime() <= wanted.as_datetime() => {}
            _ => return None,
        }
        Some(facts)
    }
}

/// One Customer as this process last read it.
#[derive(Debug, Clone)]
pub struct CachedCustomer {
    /// The stored Customer.
    pub stored: StoredCustomer,
    /// Its facts, when they were read.
    pub facts: Option<CachedFacts>,
    /// The `once` messages it was shown, when they were read.
    pub printed_once: Option<Vec<String>>,
    /// Its records the draws are decided on, when they were read.
    pub draws: Option<CustomerDraws>,
    /// The write epoch the entry was read in.
    epoch: u64,
    /// When it was kept or last moved on, in [`CustomerCache::mark`]s: a
    /// write marked later knows the entry does not hold it.
    kept: u64,
}

impl CachedCustomer {
    /// What a read found: `stored`, and what else it read.
    pub fn read(
        stored: StoredCustomer,
        facts: Option<CachedFacts>,
        printed_once: Option<Vec<String>>,
    ) -> CachedCustomer {
        CachedCustomer {
            stored,
            facts,
            printed_once,
            draws: None,
            epoch: 0,
            kept: 0,
        }
    }

    /// This entry with the Customer's draw records `draws`, as read.
    pub fn with_draws(mut self, draws: Option<CustomerDraws>) -> CachedCustomer {
        self.draws = draws;
        self
    }
}

/// A Customer's key: its Company and id.
type CustomerKey = (String, String);

/// An identifier's key: Company, kind, normalised value.
type IdentifierKey = (String, &'static str, String);

#[derive(Debug, Default)]
struct Shard {
    customers: HashMap<CustomerKey, CachedCustomer>,
    /// Which Customer held an identifier when last read (checked against
    /// the Customer's entry before it is believed).
    identifiers: HashMap<IdentifierKey, String>,
}

/// What a read saw before it started: a result is kept only if no write that
/// may touch its Customer completed since.
#[derive(Debug, Clone, Copy)]
pub struct ReadTicket {
    epoch: u64,
    forgotten: [u64; SHARDS],
}

/// The Customers this process read lately (see the module's documentation).
#[derive(Debug)]
pub struct CustomerCache {
    enabled: bool,
    capacity_per_shard: usize,
    shards: Box<[Mutex<Shard>]>,
    /// Per shard: moved each time one of its Customers is forgotten.
    forgotten: Box<[AtomicU64]>,
    epoch: Arc<WriteEpoch>,
    /// Moved by every entry kept and every write about to be sent: orders
    /// the two ([`CustomerCache::mark`]).
    marks: AtomicU64,
}

/// The shard of `key`: a stable hash (FNV-1a) of its parts.
fn shard_of(parts: &[&str]) -> usize {
    let hash = parts.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, part| {
        part.bytes()
            .chain(std::iter::once(0xff))
            .fold(hash, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            })
    });
    (hash % SHARDS as u64) as usize
}

impl CustomerCache {
    /// A cache of at most `capacity` Customers (none: disabled) whose
    /// entries the writes counted by `epoch` make stale.
    pub(crate) fn new(capacity: usize, epoch: Arc<WriteEpoch>) -> CustomerCache {
        CustomerCache {
            enabled: capacity > 0,
            capacity_per_shard: capacity.div_ceil(SHARDS).max(1),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            forgotten: (0..SHARDS).map(|_| AtomicU64::new(0)).collect(),
            epoch,
            marks: AtomicU64::new(0),
        }
    }

    /// Whether Customers are kept at all.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    fn shard(&self, index: usize) -> std::sync::MutexGuard<'_, Shard> {
        // A panic while holding the lock leaves plain maps behind; they are
        // still consistent enough to serve or drop.
        self.shards[index]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The Customer `id` of `company`, as last read, unless a write may have
    /// changed it since.
    pub fn by_id(&self, company: &str, id: &str) -> Option<CachedCustomer> {
        if !self.enabled {
            return None;
        }
        let epoch = self.epoch.current();
        let shard = self.shard(shard_of(&[company, id]));
        let entry = shard
            .customers
            .get(&(company.to_string(), id.to_string()))?;
        (entry.epoch == epoch).then(|| entry.clone())
    }

    /// The Customer of `company` holding identifier `value` of `kind`, as
    /// last read, unless a write may have changed it since.
    pub fn by_identifier(
        &self,
        company: &str,
        kind: SearchBy,
        value: &str,
    ) -> Option<CachedCustomer> {
        if !self.enabled {
            return None;
        }
        if kind == SearchBy::Id {
            return self.by_id(company, value);
        }
        let id = {
            let shard = self.shard(shard_of(&[company, kind.as_str(), value]));
            shard
                .identifiers
                .get(&(company.to_string(), kind.as_str(), value.to_string()))?
                .clone()
        };
        self.by_id(company, &id)
            .filter(|entry| holds_identifier(&entry.stored.customer, kind, value))
    }

    /// What a read about to start must show to keep its result.
    pub fn ticket(&self) -> ReadTicket {
        let mut forgotten = [0; SHARDS];
        for (seen, shard) in forgotten.iter_mut().zip(self.forgotten.iter()) {
            *seen = shard.load(Ordering::Acquire);
        }
        ReadTicket {
            epoch: self.epoch.current(),
            forgotten,
        }
    }

    /// Keeps `entry`, read under `ticket` by identifier `found_by` (if not
    /// by id), unless a write that may touch it completed since the read
    /// started. What the entry did not read (facts, messages shown) is kept
    /// from the entry it replaces, which the same writes would have made
    /// stale.
    pub fn keep(
        &self,
        company: &str,
        found_by: Option<(SearchBy, &str)>,
        ticket: &ReadTicket,
        mut entry: CachedCustomer,
    ) {
        if !self.enabled || self.epoch.current() != ticket.epoch {
            return;
        }
        let id = entry.stored.customer.id.clone();
        let index = shard_of(&[company, &id]);
        {
            let mut shard = self.shard(index);
            // Checked under the lock that `forget` moves it under.
            if self.forgotten[index].load(Ordering::Acquire) != ticket.forgotten[index] {
                return;
            }
            let key = (company.to_string(), id.clone());
            entry.epoch = ticket.epoch;
            entry.kept = self.mark();
            if let Some(before) = shard
                .customers
                .get(&key)
                .filter(|e| e.epoch == ticket.epoch)
            {
                if entry.facts.is_none() {
                    entry.facts = before.facts.clone();
                }
                if entry.printed_once.is_none() {
                    entry.printed_once = before.printed_once.clone();
                }
                entry.draws = match (entry.draws.take(), &before.draws) {
                    (Some(read), Some(before)) => Some(read.over(before)),
                    (read, before) => read.or_else(|| before.clone()),
                };
            }
            if shard.customers.len() >= self.capacity_per_shard
                && !shard.customers.contains_key(&key)
            {
                // Any entry makes room: the stale ones first.
                let victim = shard
                    .customers
                    .iter()
                    .find(|(_, e)| e.epoch != ticket.epoch)
                    .or_else(|| shard.customers.iter().next())
                    .map(|(key, _)| key.clone());
                if let Some(victim) = victim {
                    shard.customers.remove(&victim);
                }
            }
            shard.customers.insert(key, entry);
        }
        if let Some((kind, value)) = found_by.filter(|(kind, _)| *kind != SearchBy::Id) {
            let mut shard = self.shard(shard_of(&[company, kind.as_str(), value]));
            if shard.identifiers.len() >= 4 * self.capacity_per_shard {
                shard.identifiers.clear();
            }
            shard
                .identifiers
                .insert((company.to_string(), kind.as_str(), value.to_string()), id);
        }
    }

    /// Forgets the Customer `id` of `company`, whose state a write that
    /// completed changed, and every read of it still running.
    pub fn forget(&self, company: &str, id: &str) {
        if !self.enabled {
            return;
        }
        let index = shard_of(&[company, id]);
        let mut shard = self.shard(index);
        self.forgotten[index].fetch_add(1, Ordering::AcqRel);
        shard
            .customers
            .remove(&(company.to_string(), id.to_string()));
    }

    /// A new mark: taken by a write just before it is sent, it is later than
    /// every entry kept so far, which were all read before the write could
    /// have committed.
    pub fn mark(&self) -> u64 {
        self.marks.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// Moves the Customer `id` of `company` on by `change`, which a write
    /// marked `sent` (taken just before it was sent) made and which has
    /// committed; forgets it instead when its entry may already hold the
    /// write (kept after `sent`) or is stale. Reads still running are
    /// refused as by [`CustomerCache::forget`]: they may have read the store
    /// before the write.
    pub fn advance(&self, company: &str, id: &str, sent: u64, change: &RecordedChange) {
        if !self.enabled {
            return;
        }
        let index = shard_of(&[company, id]);
        let mut shard = self.shard(index);
        self.forgotten[index].fetch_add(1, Ordering::AcqRel);
        let key = (company.to_string(), id.to_string());
        let epoch = self.epoch.current();
        match shard.customers.get_mut(&key) {
            Some(entry) if entry.kept < sent && entry.epoch == epoch => {
                change.apply(entry);
                entry.kept = self.mark();
            }
            _ => {
                shard.customers.remove(&key);
            }
        }
    }

    /// How many Customers are kept (stale ones included).
    pub fn len(&self) -> usize {
        (0..SHARDS).map(|i| self.shard(i).customers.len()).sum()
    }

    /// Whether no Customer is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::customers::model::Customer;

    fn stored(id: &str, code: &str) -> StoredCustomer {
        let customer: Customer = serde_json::from_value(serde_json::json!({
            "id": id, "code": code, "active": true, "loyalty_member": true,
            "consents": {}, "cards": [], "attributes": {},
            "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z",
        }))
        .unwrap();
        StoredCustomer {
            customer,
            revision: 1,
        }
    }

    fn cache() -> (CustomerCache, Arc<WriteEpoch>) {
        let epoch = Arc::new(WriteEpoch::default());
        (CustomerCache::new(1_000, epoch.clone()), epoch)
    }

    fn keep(cache: &CustomerCache, ticket: &ReadTicket, id: &str, code: &str) {
        let entry = CachedCustomer::read(stored(id, code), None, None);
        cache.keep("c", Some((SearchBy::Code, code)), ticket, entry);
    }

    #[test]
    fn a_customer_read_is_served_by_id_and_by_the_identifier_it_was_found_by() {
        let (cache, _) = cache();
        keep(&cache, &cache.ticket(), "cus_1", "A1");
        assert_eq!(
            cache.by_id("c", "cus_1").unwrap().stored.customer.id,
            "cus_1"
        );
        let by_code = cache.by_identifier("c", SearchBy::Code, "A1").unwrap();
        assert_eq!(by_code.stored.customer.id, "cus_1");
        assert!(cache.by_id("other", "cus_1").is_none());
        assert!(cache.by_identifier("c", SearchBy::Code, "A2").is_none());
    }

    #[test]
    fn a_forgotten_customer_is_read_again_and_a_read_it_raced_is_not_kept() {
        let (cache, _) = cache();
        keep(&cache, &cache.ticket(), "cus_1", "A1");
        let racing = cache.ticket();
        cache.forget("c", "cus_1");
        assert!(cache.by_id("c", "cus_1").is_none());
        keep(&cache, &racing, "cus_1", "A1");
        assert!(cache.by_id("c", "cus_1").is_none(), "read before the write");
        keep(&cache, &cache.ticket(), "cus_1", "A1");
        assert!(cache.by_id("c", "cus_1").is_some(), "read after it");
    }

    #[test]
    fn a_write_naming_nobody_makes_every_entry_stale() {
        let (cache, epoch) = cache();
        keep(&cache, &cache.ticket(), "cus_1", "A1");
        let racing = cache.ticket();
        epoch.moved();
        assert!(cache.by_id("c", "cus_1").is_none());
        keep(&cache, &racing, "cus_2", "A2");
        assert!(cache.by_id("c", "cus_2").is_none());
    }

    #[test]
    fn an_identifier_the_customer_no_longer_holds_finds_nobody() {
        let (cache, _) = cache();
        keep(&cache, &cache.ticket(), "cus_1", "A1");
        // Read again by id once its code changed.
        let entry = CachedCustomer::read(stored("cus_1", "B1"), None, None);
        cache.keep("c", None, &cache.ticket(), entry);
        assert!(cache.by_identifier("c", SearchBy::Code, "A1").is_none());
    }

    #[test]
    fn facts_serve_any_later_history_and_keep_across_a_read_without_them() {
        let (cache, _) = cache();
        let at = |s: &str| s.parse::<Timestamp>().unwrap();
        let day = |d: &str| crate::resources::carts::purchase_days::PurchaseDay {
            day: d.parse().unwrap(),
            spent: rust_decimal::Decimal::TEN,
            carts: 1,
        };
        let facts = CustomerFacts {
            history: Arc::new(crate::resources::carts::purchase_days::PurchaseDays::of([
                day("2026-10-01"),
                day("2026-11-01"),
            ])),
            ..CustomerFacts::default()
        };
        let cached = CachedFacts {
            since: Some(at("2026-09-01T00:00:00Z")),
            facts,
        };
        let entry = CachedCustomer::read(stored("cus_1", "A1"), Some(cached), None);
        cache.keep("c", None, &cache.ticket(), entry);
        keep(&cache, &cache.ticket(), "cus_1", "A1");
        let facts = cache.by_id("c", "cus_1").unwrap().facts.unwrap();
        let later = facts.covering(Some(at("2026-10-15T00:00:00Z"))).unwrap();
        assert_eq!(later.history.days().len(), 2, "the windows bound the days");
        assert!(facts.covering(Some(at("2026-08-01T00:00:00Z"))).is_none());
        assert!(facts.covering(None).unwrap().history.days().is_empty());
    }

    #[test]
    fn a_full_cache_makes_room_and_a_disabled_one_keeps_nothing() {
        let epoch = Arc::new(WriteEpoch::default());
        let small = CustomerCache::new(SHARDS, epoch.clone());
        for i in 0..10 * SHARDS {
            keep(
                &small,
                &small.ticket(),
                &format!("cus_{i}"),
                &format!("A{i}"),
            );
        }
        assert!(small.len() <= SHARDS);
        let off = CustomerCache::new(0, epoch);
        keep(&off, &off.ticket(), "cus_1", "A1");
        assert!(off.by_id("c", "cus_1").is_none());
        assert!(off.is_empty());
    }
}
