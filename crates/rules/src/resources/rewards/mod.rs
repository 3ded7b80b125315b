//! The pure part of `rewards` (the service holds the rest).

pub mod gift;
pub mod kind;
pub mod rules;

pub use loyalty_types::rewards as model;
