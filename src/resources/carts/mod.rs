//! Carts: POST /carts/realtime and /carts/simulate (through the event
//! pipeline), POST /carts/cancellation, GET /carts and GET /carts/{id}.

pub mod api;
pub mod cancellation;
pub mod examples;
pub mod model;
pub mod occurrence;
pub use loyalty_rules::resources::carts::purchase_days;
pub mod service;
pub mod store;
