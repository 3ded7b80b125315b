//! The pure part of `cashback` (the service holds the rest).

pub mod rules;
