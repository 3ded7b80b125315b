//! Sharded stock counters of Instant Win prizes.
//!
//! A prize's units given are kept in [`STOCK_SHARDS`] counter records, and its
//! stock is split between them once and for all: shard `k` may give at most
//! its [`allowance`]. A winning draw takes its unit from one shard with room,
//! and its transaction refuses (`draw_contended`) if that shard filled up in
//! the meantime. So the units given never exceed the stock, exactly as with
//! one counter, but concurrent winners of a popular prize write different
//! records most of the time instead of all colliding on one: a till's cart
//! does not queue behind every other till's draw. Each write lane of the
//! store ([`WriteLane`]) takes units from shards of its own while they have
//! room, so that the lanes' concurrent transactions do not collide either.
//!
//! Counters written before sharding (one record per prize, with no `shard`)
//! are kept as they are and never written again; the shards split what stock
//! they left.

use serde_json::Value;

use crate::storage::write_lanes::WriteLane;

/// How many counter records a prize's stock is split into.
pub const STOCK_SHARDS: i64 = 16;

/// The units a prize has given, per shard.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PrizeCounters {
    /// Units counted by a counter from before sharding; never changes.
    pub frozen: i64,
    /// Units given by each shard, `STOCK_SHARDS` of them.
    pub shards: Vec<i64>,
}

/// The shard a won unit is taken from, and how many units that shard may give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StockShard {
    /// 0 to `STOCK_SHARDS - 1`.
    pub index: i64,
    /// The shard's share of the stock.
    pub allowance: i64,
}

/// The share of shard `index` of `stock` units, of which `frozen` were given
/// before sharding: the rest, split as evenly as it goes, lower shards first.
pub fn allowance(stock: i64, frozen: i64, index: i64) -> i64 {
    let rest = (stock - frozen).max(0);
    rest / STOCK_SHARDS + i64::from(index < rest % STOCK_SHARDS)
}

impl PrizeCounters {
    /// Counters from the stored rows of one prize: rows with a `shard` field
    /// are shards, a row without one is the counter from before sharding.
    pub fn from_rows<'a>(rows: impl Iterator<Item = &'a Value>) -> PrizeCounters {
        let mut counters = PrizeCounters {
            frozen: 0,
            shards: vec![0; STOCK_SHARDS as usize],
        };
        for row in rows {
            let given = row["given"].as_i64().unwrap_or(0);
            match row["shard"].as_i64() {
                Some(index) if (0..STOCK_SHARDS).contains(&index) => {
                    counters.shards[index as usize] = given;
                }
                Some(_) => {}
                None => counters.frozen += given,
            }
        }
        counters
    }

    /// Units given in all.
    pub fn total(&self) -> i64 {
        self.frozen + self.shards.iter().sum::<i64>()
    }

    /// A shard with room left under `stock`, chosen by `random` (in [0, 1))
    /// among those of `lane` that have some, or among all that have some
    /// when none of the lane's has; `None` when every shard is full.
    pub fn pick(&self, stock: i64, random: f64, lane: WriteLane) -> Option<StockShard> {
        let all_open: Vec<StockShard> = (0..STOCK_SHARDS)
            .map(|index| StockShard {
                index,
                allowance: allowance(stock, self.frozen, index),
            })
            .filter(|shard| {
                self.shards.get(shard.index as usize).copied().unwrap_or(0) < shard.allowance
            })
            .collect();
        let lanes_open: Vec<StockShard> = all_open
            .iter()
            .copied()
            .filter(|shard| lane.owns_shard(shard.index))
            .collect();
        let open = if lanes_open.is_empty() {
            all_open
        } else {
            lanes_open
        };
        if open.is_empty() {
            return None;
        }
        let position = ((random.clamp(0.0, 1.0) * open.len() as f64) as usize).min(open.len() - 1);
        Some(open[position])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        /// The shards split exactly the stock the frozen counter left.
        #[test]
        fn allowances_add_up_to_the_stock_left(stock in 0i64..10_000, frozen in 0i64..12_000) {
            let sum: i64 = (0..STOCK_SHARDS).map(|k| allowance(stock, frozen, k)).sum();
            prop_assert_eq!(sum, (stock - frozen).max(0));
        }

        /// Taking units wherever `pick` says, one at a time and from any
        /// lane, gives exactly the stock and then nothing more; a lane takes
        /// from its own shards while one of them has room.
        #[test]
        fn picking_gives_the_stock_and_no_more(
            stock in 0i64..200,
            frozen in 0i64..50,
            lanes in 1u32..5,
            picks in proptest::collection::vec((0.0f64..1.0, 0u32..4), 300),
        ) {
            let mut counters = PrizeCounters { frozen, shards: vec![0; STOCK_SHARDS as usize] };
            for (random, lane) in picks {
                let lane = WriteLane { index: lane % lanes, count: lanes };
                let lane_has_room = (0..STOCK_SHARDS).any(|k| {
                    lane.owns_shard(k) && counters.shards[k as usize] < allowance(stock, frozen, k)
                });
                if let Some(shard) = counters.pick(stock, random, lane) {
                    prop_assert!(counters.shards[shard.index as usize] < shard.allowance);
                    if lane_has_room {
                        prop_assert!(lane.owns_shard(shard.index));
                    }
                    counters.shards[shard.index as usize] += 1;
                }
            }
            prop_assert_eq!(counters.total(), frozen + (stock - frozen).clamp(0, 300));
        }
    }

    #[test]
    fn rows_without_a_shard_are_the_frozen_counter() {
        let rows = [
            json!({"given": 7}),
            json!({"given": 2, "shard": 0}),
            json!({"given": 3, "shard": 15}),
        ];
        let counters = PrizeCounters::from_rows(rows.iter());
        assert_eq!(counters.frozen, 7);
        assert_eq!(counters.total(), 12);
        assert_eq!(counters.shards[15], 3);
    }

    #[test]
    fn a_single_unit_lives_in_the_first_shard() {
        let counters = PrizeCounters::from_rows([].iter());
        assert_eq!(
            counters.pick(1, 0.99, WriteLane::ONLY),
            Some(StockShard {
                index: 0,
                allowance: 1
            })
        );
        let taken = PrizeCounters::from_rows([json!({"given": 1, "shard": 0})].iter());
        assert_eq!(taken.pick(1, 0.5, WriteLane::ONLY), None);
    }
}
