//! Utilities: GET /check.

pub mod api;
