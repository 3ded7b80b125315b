//! Points campaigns: GET /points_campaigns and the points campaigns created
//! through the API.

pub mod api;
pub mod model;
pub mod rules;
pub mod service;
