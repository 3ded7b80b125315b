//! Vouchers: the codes through which Coupons and targeted campaigns reach
//! Customers. GET /vouchers, GET /vouchers/{code}, POST /vouchers/redeem and
//! POST /vouchers/rollback, selection (a Customer's wallet), holds during a
//! checkout (freeze), printing; issued by
//! POST /discounts/trigger, by `voucher` campaigns ([`rules`], [`earned`]), by a
//! targeted Instant Win's assignment and in bulk by an operator ([`bulk`],
//! [`bulk_api`]).

pub mod api;
pub mod bulk;
pub mod bulk_api;
pub mod cart_uses;
pub mod contribution;
pub use loyalty_rules::resources::vouchers::codes;
pub mod desired;
pub mod earned;
pub mod examples;
pub mod freeze;
pub mod freeze_api;
pub mod guesses;
pub mod issue_store;
pub mod merges;
pub use loyalty_types::vouchers as model;
pub mod print;
pub mod print_api;
pub mod redemption_store;
pub mod redemptions;
pub use loyalty_rules::resources::vouchers::rules;
pub mod selection;
pub mod selection_api;
pub mod service;
pub mod static_codes;
pub mod store;
pub use loyalty_rules::resources::vouchers::usable;
