//! The pure part of `vouchers` (the service holds the rest).

pub mod codes;
pub mod rules;
pub mod usable;

pub use loyalty_types::vouchers as model;
