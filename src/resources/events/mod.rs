//! Custom Events and triggers: POST /custom_events and POST /trigger
//! (through the event pipeline), GET /custom_events and GET /custom_events/{id}.

pub mod api;
pub mod model;
pub mod service;
pub mod store;
