//! Vouchers: the codes through which Coupons and targeted campaigns reach
//! Customers.

pub mod codes;
pub mod model;
pub mod store;
