//! Challenges: goals Customers reach with the carts, Custom Events and
//! triggers that count (`kind: challenge`, [`rules`]), for a reward given
//! once per completion. Progress moves in the event's own transaction
//! ([`evaluate`], [`store`]) and goes back with a cart's cancellation;
//! GET /challenges, /challenges/{id}, /customers/{value}/challenges and
//! POST /challenges/{id}/enroll show and join them ([`api`], [`service`]).
//!
//! - [`rules`]: the file section, checked and compiled, and its [`goal`].
//! - [`progress`]: the pure rules that move a Customer's record.
//! - [`measure`]: periods on the Company's calendar, and how far events go.
//! - [`evaluate`]: the `challenge` effect, the state read and the write.
//! - [`store`]: the records and the statements that write them.
//! - [`merges`]: two Customers' records folded into one, and apart again.
//! - [`service`]: listing, standing, enrolment and returns.
//! - [`model`]: what the operations answer.
//! - [`api`]: the HTTP operations, and [`examples`] of them for the spec.

pub mod api;
pub mod contribution;
pub use loyalty_rules::resources::challenges::evaluate;
pub mod examples;
pub use loyalty_rules::resources::challenges::goal;
pub use loyalty_rules::resources::challenges::measure;
pub mod merges;
pub mod model;
pub use loyalty_rules::resources::challenges::progress;
pub use loyalty_rules::resources::challenges::rules;
pub mod service;
pub mod store;

#[cfg(test)]
mod tests;
