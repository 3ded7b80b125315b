//! Instant Win: the campaign kind that draws a weighted prize when an event
//! it listens to arrives; its file fields and draws ([`rules`]), the state the
//! draws read and write ([`store`]), prize delivery through the outbox
//! ([`deliveries`]), and GET /instant_wins.

pub mod api;
pub mod contribution;
pub mod deliveries;
pub use loyalty_rules::resources::instant_wins::draw_record;
pub mod drawing;
pub mod draws;
pub mod merges;
pub mod model;
pub mod overview;
pub use loyalty_rules::resources::instant_wins::rules;
pub mod service;
pub mod store;
