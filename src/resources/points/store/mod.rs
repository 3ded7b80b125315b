//! The points ledger: appended a write at a time, read as entries and
//! balances, its writes moving the Customers kept in memory on ([`kept`]).

pub mod kept;
pub mod ledger;
pub mod ledger_batch;
pub mod ledger_reads;
