//! Coupons: the templates Vouchers are issued from. A Coupon is a campaign
//! of kind `coupon`, written in a campaign file or created through
//! POST /coupons (changed with PATCH /coupons/{id}, deleted with
//! DELETE /coupons/{id}); both are the same thing to the engine.

pub mod api;
pub use loyalty_rules::resources::coupons::apply;
pub mod examples;
pub mod model;
pub use loyalty_rules::resources::coupons::rules;
pub mod service;
