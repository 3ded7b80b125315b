//! Legacy Promotions as the API takes and answers them.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::common::time::Timestamp;
use crate::resources::campaign_header::campaign_spec;
use crate::resources::master_data::model::FeatureMap;

campaign_spec! {
    /// A legacy Promotion: the older, API-managed form of a discount. It takes
    /// `percent` or `amount` off each cart line of its `products` or carrying
    /// its `features` (or off the whole cart when it names neither), between
    /// `valid_from` and `valid_to`, in the stacking order of discounts and
    /// Vouchers by its `priority` (and alone when `exclusive`).
    #[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
    #[oai(deny_unknown_fields)]
    pub struct PromotionSpec {
        /// First instant it applies.
        pub valid_from: Option<Timestamp>,
        /// Last instant it applies.
        pub valid_to: Option<Timestamp>,
        /// Product codes (or aliases) whose lines it discounts.
        #[oai(validator(max_items = 500))]
        pub products: Option<Vec<String>>,
        /// Product features whose lines it discounts (a feature covers those
        /// under it): `{"department": ["dairy"]}`; each must exist.
        #[oai(validator(max_properties = 50))]
        pub features: Option<FeatureMap>,
        /// Percentage off, more than 0 and at most 100; or send `amount`.
        #[oai(validator(minimum(value = "0", exclusive), maximum(value = "100")))]
        pub percent: Option<f64>,
        /// Money off each line it applies to (or off the cart), in the
        /// Company's currency; or send `percent`.
        pub amount: Option<SentAmount>,
        /// Its place in the stacking order: higher first (default 0).
        #[oai(validator(minimum(value = "-1000000"), maximum(value = "1000000")))]
        pub priority: Option<i64>,
        /// When true, it shares a cart with no other discount or Voucher.
        pub exclusive: Option<bool>,
    }
}

/// A legacy Promotion as the API answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct Promotion {
    /// Its id: the `rule_id` of its cart effects and the `discount_id` of
    /// its discount transactions (from 1000000, shared with every campaign
    /// created through the API).
    pub id: i64,
    /// Its name, as sent.
    pub name: serde_json::Value,
    /// Its description, as sent.
    pub description: Option<serde_json::Value>,
    /// Whether it applies.
    pub active: bool,
    /// First instant it applies.
    pub valid_from: Option<Timestamp>,
    /// Last instant it applies.
    pub valid_to: Option<Timestamp>,
    /// Product codes whose lines it discounts.
    pub products: Vec<String>,
    /// Product features whose lines it discounts.
    pub features: FeatureMap,
    /// Percentage off.
    pub percent: Option<f64>,
    /// Money off.
    pub amount: Option<Amount>,
    /// Its place in the stacking order.
    pub priority: i64,
    /// Whether it applies alone.
    pub exclusive: bool,
}

/// The Company's legacy Promotions.
#[derive(Debug, Clone, Object)]
pub struct PromotionList {
    /// Every Promotion not deleted, by id.
    pub promotions: Vec<Promotion>,
}

/// What a delete did.
#[derive(Debug, Clone, Object)]
pub struct DeletedPromotion {
    /// The deleted Promotion's id.
    pub id: i64,
    /// `deleted`.
    pub result: String,
}
