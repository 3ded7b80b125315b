//! Budgets and caps of a campaign. What a `limits:` list says and how an
//! event counts against it are the rules' (`loyalty_rules::resources::limits`,
//! re-exported here); the counters the store keeps and their use-cases
//! follow.

pub use loyalty_rules::resources::limits::*;

pub mod contribution;
pub mod service;
pub mod store;
