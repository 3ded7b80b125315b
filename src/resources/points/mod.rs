//! Points and wallet: the append-only ledger, balances, redemptions,
//! transfers, manual credits and debits, and expiry.

pub mod api;
pub mod earned;
pub mod examples;
pub mod expiry;
pub use loyalty_rules::resources::points::ledger_entry;
pub mod locks;
pub use loyalty_types::points as model;
pub mod operations;
pub mod service;
pub mod store;
