//! The pure part of `discounts` (the service holds the rest).

pub mod kind;
pub mod rules;
pub mod settle;
pub mod stacking;
