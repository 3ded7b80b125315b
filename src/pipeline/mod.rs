//! The one event pipeline: carts, simulations, Custom Events and triggers.

pub mod store;
