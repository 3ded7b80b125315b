//! Cashback: the points-to-wallet exchange of each store (`cashback.yaml`),
//! GET /cashbacks and GET /cashback_thresholds.

pub mod api;
pub mod rules;
pub mod service;
