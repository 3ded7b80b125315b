//! The pure part of `master_data` (the service holds the rest).

pub mod enrich;
pub mod matching;
pub mod model;
pub mod snapshot;
