//! Vouchers: the codes through which Coupons and targeted campaigns reach
//! Customers. GET /vouchers and GET /vouchers/{code}; issued by
//! POST /discounts/trigger and by a targeted Instant Win's assignment.

pub mod api;
pub mod codes;
pub mod model;
pub mod service;
pub mod store;
pub mod usable;
