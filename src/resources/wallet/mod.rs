//! What a Customer holds besides points: Rewards and game participations
//! (GET /rewards/transactions, GET /games).

pub mod api;
pub mod service;
