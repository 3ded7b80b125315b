//! The pure part of `instant_wins` (the service holds the rest).

pub mod draw_record;
pub mod kind;
pub mod rules;
