//! Vouchers: the personal codes through which targeted campaigns reach one Customer.

pub mod model;
pub mod store;
