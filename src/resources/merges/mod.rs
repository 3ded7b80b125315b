//! Merges: one Customer folded into another (POST /customers/transfer,
//! /customers/transfer-new) and undone (POST /customers/{associate_id}/unmerge),
//! moving cards, associations, carts, points and holdings in one transaction.

pub mod api;
pub mod holdings;
pub mod model;
pub mod reported;
pub mod service;
pub mod store;
