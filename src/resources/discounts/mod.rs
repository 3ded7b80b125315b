//! Discounts: a campaign kind (`kind: discount`) taking money off a cart or
//! some of its lines. Its file section, compilation and evaluation live in
//! [`rules`]; its effect is [`crate::engine::effect::Effect::Discount`].
//! POST /discounts, GET /discounts, GET /discounts/{value} and PATCH
//! /discounts/{value} create, list and change discount campaigns through the
//! API ([`campaign_api`], [`campaigns`]). POST /discounts/trigger issues a Coupon's Voucher to a Customer, POST
//! /discounts/redeem gives a discount outside a cart, GET
//! /discounts/transactions lists the discounts a Customer got ([`api`],
//! [`transactions`], [`model`], [`store`]).

pub mod api;
pub mod campaign_api;
pub mod campaigns;
pub mod cart;
pub mod contribution;
pub mod examples;
pub mod model;
pub mod overlaps;
pub use loyalty_rules::resources::discounts::rules;
pub use loyalty_rules::resources::discounts::settle;
pub use loyalty_rules::resources::discounts::stacking;
pub mod stacking_rules;
pub mod store;
pub mod transactions;
