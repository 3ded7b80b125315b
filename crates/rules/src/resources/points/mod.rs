//! The pure part of `points` (the service holds the rest).

pub mod ledger_entry;

pub use loyalty_types::points as model;
