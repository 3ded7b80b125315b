//! The pure part of `points_campaigns` (the service holds the rest).

pub mod kind;
pub mod rules;
