//! Points campaigns: GET /points_campaigns and the points campaigns created
//! through the API.

pub mod api;
pub mod model;
pub use loyalty_rules::resources::points_campaigns::rules;
pub mod service;
