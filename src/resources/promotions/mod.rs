//! Legacy Promotions: POST /promotions, PATCH and DELETE /promotions/{id},
//! and GET to read them back. Each is compiled into a discount campaign
//! (`spec.rs`) and stored with the campaigns created through the API, so it
//! takes its place in the stacking order of discounts and Vouchers and
//! appears in cart effects like them.

pub mod api;
pub mod examples;
pub mod model;
pub mod service;
pub mod spec;
