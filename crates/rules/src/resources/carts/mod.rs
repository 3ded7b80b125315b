//! The pure part of `carts` (the service holds the rest).

pub mod purchase_days;
