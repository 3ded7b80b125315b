//! The pure part of `vouchers` (the service holds the rest).

pub mod codes;
pub mod kind;
pub mod rules;
pub mod usable;

pub use loyalty_types::vouchers as model;
