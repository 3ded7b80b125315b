//! Customers: created, read, searched, edited, anonymized or deleted by any
//! of their identifiers (id, code, e-mail, phone, card).

pub mod api;
pub mod cache;
pub mod examples;
pub mod model;
pub mod recorded;
pub mod search_store;
pub mod service;
pub mod state;
pub mod store;
