//! The pure part of `segments` (the service holds the rest).

pub mod rules;
