//! The back office's Companies (tenants) and API keys: created, listed and
//! limited by operators through the back-office listener, never through the
//! integrator API; the demo Company bootstrapped on an empty store.

pub mod api;
pub mod bootstrap;
pub mod campaign_overview;
pub mod campaigns_api;
pub mod key_use;
pub mod keys;
pub mod model;
pub mod service;
pub mod settings;
pub mod store;
