//! The pure part of `resources` (the service holds the rest).

pub mod api_campaigns;
pub mod carts;
pub mod cashback;
pub mod challenges;
pub mod coupons;
pub mod discounts;
pub mod instant_wins;
pub mod limits;
pub mod master_data;
pub mod messages;
pub mod points;
pub mod points_campaigns;
pub mod rewards;
pub mod segments;
pub mod vouchers;
