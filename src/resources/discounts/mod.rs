//! Discounts: a campaign kind (`kind: discount`) taking money off a cart or
//! some of its lines. Its file section, compilation and evaluation live in
//! [`rules`]; its effect is [`crate::engine::effect::Effect::Discount`].
//! POST /discounts/trigger issues a Coupon's Voucher to a Customer ([`api`]).

pub mod api;
pub mod rules;
