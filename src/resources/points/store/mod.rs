//! The points ledger: appended a write at a time, read as entries and balances.

pub mod ledger;
pub mod ledger_batch;
pub mod ledger_reads;
