//! Messages: what campaigns show the Customer on the receipt or in the app
//! (`messages:` in campaign files, `rules.rs`), returned with the effects
//! of every cart, Custom Event and trigger, and POST /messages/print, which
//! gives their printable text in the Customer's language and records that
//! they were printed, so a message meant once is not printed twice.

pub mod api;
pub mod examples;
pub mod model;
pub use loyalty_rules::resources::messages::rules;
pub mod service;
pub mod store;
