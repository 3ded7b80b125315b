//! What this process knows of the units given of limited prizes, so that a
//! cart's draws do not read every stock shard of every limited prize
//! (16 rows per prize) from the store.
//!
//! The view never counts more units than the store holds: it is filled from
//! the store, and a unit is added only after the transaction that took it
//! committed ([`StockView::taken`]). Stock stays exact whatever the view says,
//! because the transaction checks the shard it takes from
//! ([`crate::resources::instant_wins::store::draw_batch::TAKE_STOCK`]); a draw that picked a shard the view
//! thought open but is full is refused as contended, the prize is forgotten
//! ([`StockView::forget`]) and the retried draw reads it afresh.
//!
//! Events of one process that follow one another therefore see exactly what
//! they would read from the store, so seeded rehearsals draw the same
//! results. Other processes sharing a remote store add units the view does
//! not see; entries older than [`FRESH_FOR`] are read again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::resources::instant_wins::store::stock::PrizeCounters;
use crate::storage::memory::Memory;

/// How long units read from the store are used without reading them again.
pub(crate) const FRESH_FOR: Duration = Duration::from_secs(1);

/// A prize: (Company, Instant Win rule id, prize id).
pub(crate) type PrizeKey = (String, i64, String);

#[derive(Debug)]
struct Entry {
    counters: PrizeCounters,
    read_at: Instant,
    /// Units added since the entry was created, to tell whether a read
    /// started before one of them.
    added: u64,
}

/// The units given per prize and shard, as far as this process knows.
#[derive(Debug, Default)]
pub(crate) struct StockView {
    entries: Mutex<HashMap<PrizeKey, Entry>>,
}

/// A read of the store about to start: what the view had added by then.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadStart {
    added: HashMap<PrizeKey, u64>,
}

impl Memory {
    /// The stock view this process keeps (Instant Wins keep one:
    /// [`crate::resources::instant_wins::contribution`]).
    pub(crate) fn stock_view(&self) -> Option<&StockView> {
        self.kinds.get()
    }
}

impl StockView {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PrizeKey, Entry>> {
        // A panic while holding the lock left counters that are still a lower
        // bound: keep using them.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The counters of every prize of `prizes` when all are fresh at `now`;
    /// `None` when one of them must be read from the store.
    pub(crate) fn fresh(
        &self,
        prizes: &[PrizeKey],
        now: Instant,
    ) -> Option<HashMap<PrizeKey, PrizeCounters>> {
        let entries = self.lock();
        prizes
            .iter()
            .map(|key| {
                let entry = entries.get(key)?;
                (now.saturating_duration_since(entry.read_at) < FRESH_FOR)
                    .then(|| (key.clone(), entry.counters.clone()))
            })
            .collect()
    }

    /// Notes that the store is about to be read for `prizes`.
    pub(crate) fn read_starts(&self, prizes: &[PrizeKey]) -> ReadStart {
        let entries = self.lock();
        ReadStart {
            added: prizes
                .iter()
                .filter_map(|key| Some((key.clone(), entries.get(key)?.added)))
                .collect(),
        }
    }

    /// Keeps `counters`, read from the store at `read_at` (what `start` saw
    /// just before). Where the view added no unit since the read started,
    /// the read replaces it; otherwise each shard keeps the higher count,
    /// as the read may have missed the units added meanwhile.
    pub(crate) fn read(
        &self,
        start: &ReadStart,
        counters: HashMap<PrizeKey, PrizeCounters>,
        read_at: Instant,
    ) {
        let mut entries = self.lock();
        for (key, read) in counters {
            match entries.get_mut(&key) {
                Some(entry) if start.added.get(&key) == Some(&entry.added) => {
                    entry.counters = read;
                    entry.read_at = read_at;
                }
                Some(entry) => {
                    entry.counters.frozen = entry.counters.frozen.max(read.frozen);
                    for (kept, read) in entry.counters.shards.iter_mut().zip(&read.shards) {
                        *kept = (*kept).max(*read);
                    }
                    entry.read_at = read_at;
                }
                None => {
                    entries.insert(
                        key,
                        Entry {
                            counters: read,
                            read_at,
                            added: 0,
                        },
                    );
                }
            }
        }
    }

    /// Counts a unit of `key` taken from `shard` by a committed transaction.
    pub(crate) fn taken(&self, key: &PrizeKey, shard: i64) {
        let mut entries = self.lock();
        if let Some(entry) = entries.get_mut(key)
            && let Some(given) = entry.counters.shards.get_mut(shard as usize)
        {
            *given += 1;
            entry.added += 1;
        }
    }

    /// Forgets `key`: the next draw reads it from the store.
    pub(crate) fn forget(&self, key: &PrizeKey) {
        self.lock().remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::instant_wins::store::stock::STOCK_SHARDS;

    fn key(prize: &str) -> PrizeKey {
        ("c".to_string(), 1, prize.to_string())
    }

    fn counters(shards: &[(usize, i64)]) -> PrizeCounters {
        let mut counters = PrizeCounters {
            frozen: 0,
            shards: vec![0; STOCK_SHARDS as usize],
        };
        for (index, given) in shards {
            counters.shards[*index] = *given;
        }
        counters
    }

    fn read(view: &StockView, prize: &str, shards: &[(usize, i64)], at: Instant) {
        let start = view.read_starts(&[key(prize)]);
        view.read(&start, HashMap::from([(key(prize), counters(shards))]), at);
    }

    #[test]
    fn a_prize_is_fresh_for_a_while_after_it_was_read() {
        let view = StockView::default();
        let at = Instant::now();
        assert!(view.fresh(&[key("a")], at).is_none(), "never read");
        read(&view, "a", &[(3, 2)], at);
        let fresh = view.fresh(&[key("a")], at + FRESH_FOR / 2).unwrap();
        assert_eq!(fresh[&key("a")].total(), 2);
        assert!(view.fresh(&[key("a")], at + FRESH_FOR).is_none(), "stale");
        assert!(
            view.fresh(&[key("a"), key("b")], at).is_none(),
            "one prize missing reads them"
        );
    }

    #[test]
    fn units_taken_are_counted_and_a_read_started_before_does_not_lose_them() {
        let view = StockView::default();
        let at = Instant::now();
        read(&view, "a", &[(0, 1)], at);
        let start = view.read_starts(&[key("a")]);
        view.taken(&key("a"), 0);
        view.taken(&key("a"), 5);
        // The read started before the units were added and missed shard 5's.
        view.read(
            &start,
            HashMap::from([(key("a"), counters(&[(0, 2), (7, 1)]))]),
            at,
        );
        let seen = &view.fresh(&[key("a")], at).unwrap()[&key("a")];
        assert_eq!((seen.shards[0], seen.shards[5], seen.shards[7]), (2, 1, 1));
        // A read started after replaces the view.
        read(&view, "a", &[(0, 1)], at);
        assert_eq!(view.fresh(&[key("a")], at).unwrap()[&key("a")].total(), 1);
    }

    #[test]
    fn a_forgotten_prize_is_read_again() {
        let view = StockView::default();
        let at = Instant::now();
        read(&view, "a", &[], at);
        view.forget(&key("a"));
        assert!(view.fresh(&[key("a")], at).is_none());
        view.taken(&key("a"), 0);
        assert!(view.fresh(&[key("a")], at).is_none(), "not counted unread");
    }
}
