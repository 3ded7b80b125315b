//! Cashback: the points-to-wallet exchange of each store (`cashback.yaml`),
//! GET /cashbacks and GET /cashback_thresholds.

pub mod api;
pub use loyalty_rules::resources::cashback::rules;
pub mod service;
