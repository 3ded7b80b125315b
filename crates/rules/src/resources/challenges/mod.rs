//! The pure part of `challenges` (the service holds the rest).

pub mod evaluate;
pub mod goal;
pub mod kind;
pub mod measure;
pub mod progress;
pub mod rules;
