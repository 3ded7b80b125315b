//! Rewards: the catalogue a Customer spends points on (GET /rewards, GET
//! /rewards/{id}, with whether a named Customer can redeem each now and why
//! not), redemptions (POST /rewards/{id}/redeem), a Customer's reward
//! transactions (GET /rewards/transactions: redemptions and Instant Win
//! prizes) and their rollback (POST /rewards/transactions/{id}/rollback).
//! A Reward is a campaign file of kind `reward` ([`rules`]).

pub mod api;
pub mod contribution;
pub mod examples;
pub use loyalty_rules::resources::rewards::gift;
pub use loyalty_types::rewards as model;
pub mod redemption;
pub mod rollback;
pub use loyalty_rules::resources::rewards::rules;
pub mod service;
pub mod store;
pub mod view;
