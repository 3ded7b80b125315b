//! Everything of one resource of the interface, one folder each.

pub mod api_campaigns;
pub mod associations;
pub mod carts;
pub mod cashback;
pub mod challenges;
pub mod companies;
pub mod coupons;
pub mod customers;
pub mod discounts;
pub mod events;
pub mod games;
pub mod instant_wins;
pub mod limits;
pub mod locations;
pub mod master_data;
pub mod merges;
pub mod messages;
pub mod points;
pub mod points_campaigns;
pub mod products;
pub mod promotions;
pub mod rewards;
pub mod segments;
pub mod taxonomies;
pub mod utilities;
pub mod vouchers;
