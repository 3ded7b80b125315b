//! What the process learns from a batch the group commit recorded or saw
//! refused ([`crate::storage::group_commit`]): the Customers kept in memory
//! are moved on by what their events changed, or read again next time, and
//! each campaign kind learns what it keeps in memory
//! ([`crate::pipeline::contribution::Contribution::learn_outcome`]).

use crate::error::ApiResult;
use crate::pipeline::kinds::CONTRIBUTIONS;
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
        for write in writes {
            for kind in CONTRIBUTIONS {
                kind.learn_outcome(&self.memory, write, recorded);
            }
        }
    }
}
