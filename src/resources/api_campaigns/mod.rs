//! Campaigns created through the API. Their ids, stored kinds and source
//! are the rules' (`loyalty_rules::resources::api_campaigns`, re-exported
//! here); how they are stored and turned into campaign files follows.

pub use loyalty_rules::resources::api_campaigns::*;

pub mod resource;
pub mod resource_api;
pub mod service;
pub mod store;
