//! The pure part of `coupons` (the service holds the rest).

pub mod apply;
pub mod kind;
pub mod rules;
