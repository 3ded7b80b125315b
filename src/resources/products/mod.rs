//! Products of the Company's catalogue: POST /products, GET, PATCH and
//! DELETE /products/{id}. What campaigns see of them on a cart line is the
//! engine's catalogue (`resources/master_data`).

pub mod api;
pub mod examples;
pub mod model;
pub mod service;
