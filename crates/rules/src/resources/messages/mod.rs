//! The pure part of `messages` (the service holds the rest).

pub mod kind;
pub mod rules;
