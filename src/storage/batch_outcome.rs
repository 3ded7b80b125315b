//! What the process learns from a batch the group commit recorded or saw
//! refused ([`crate::storage::group_commit`]): the Customers kept in memory
//! are moved on by what their events changed, or read again next time, and
//! the stock view learns of the prize units taken.

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::instant_wins::store::stock_view::PrizeKey;
use crate::storage::Store;
use crate::storage::event_transaction::EventWrite;
use crate::storage::event_transaction::WRITTEN_FOR;
use crate::storage::event_transaction::recorded_change;

impl Store {
    /// Learns the outcome `recorded` of `writes`, sent at the Customers'
    /// cache's mark `sent`. Called before any of them is answered,
    /// whatever the outcome: a lost answer may have committed.
    pub(crate) fn learn_outcome(&self, writes: &[EventWrite], sent: u64, recorded: &ApiResult<()>) {
        for write in writes {
            let company = write["company"].as_str().unwrap_or_default();
            let customer = write[WRITTEN_FOR].as_str().unwrap_or_default();
            match (recorded, recorded_change(write, customer)) {
                (Ok(()), Some(change)) => self
                    .memory
                    .customers
                    .advance(company, customer, sent, &change),
                _ => self.memory.customers.forget(company, customer),
            }
        }
        // The stock view learns of units only once they are committed, and
        // forgets the prizes of draws refused as contended (one may have run
        // out behind its back).
        for (key, shard) in writes.iter().flat_map(units_taken) {
            match recorded {
                Ok(()) => self.memory.stock_view.taken(&key, shard),
                Err(error) if error.code == ErrorCode::DrawContended => {
                    self.memory.stock_view.forget(&key)
                }
                Err(_) => {}
            }
        }
    }
}

/// The units of limited prizes `write` takes: each prize and its shard.
fn units_taken(write: &EventWrite) -> Vec<(PrizeKey, i64)> {
    let company = write["company"].as_str().unwrap_or_default();
    let Some(draws) = write["draw_write"]["limited"].as_array() else {
        return Vec::new();
    };
    draws
        .iter()
        .filter_map(|draw| {
            let key = (
                company.to_string(),
                draw["rule_id"].as_i64()?,
                draw["prize"]["prize_id"].as_str()?.to_string(),
            );
            Some((key, draw["shard"]["index"].as_i64()?))
        })
        .collect()
}
