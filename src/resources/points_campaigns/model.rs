//! Points campaigns as the API takes and answers them: the body of POST
//! /points_campaigns and the campaigns GET /points_campaigns lists.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::campaign_header::campaign_spec;
use crate::resources::limits::OfferLimitRules;
use crate::resources::optional_fields::optional_fields;
use crate::resources::points::model::{PerAmountOf, PointsKind, PointsRounding};

optional_fields! {
    /// How a points campaign earns (the `points:` section of a campaign file):
    /// at least one of `per_amount`, `per_product` and `fixed`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
    #[oai(deny_unknown_fields)]
    pub struct PointsRules {
        /// Points per currency unit of the cart total, rounded as `rounding` says
        /// (from 0.0001 to 1,000,000).
        #[oai(validator(minimum(value = "0.0001"), maximum(value = "1000000")))]
        pub per_amount: Option<f64>,
        /// What `per_amount` counts: `total` (the default) or `paid`, the total
        /// less what the cart's discounts and Vouchers took off (nothing to
        /// count without `per_amount`).
        pub per_amount_of: Option<PerAmountOf>,
        /// How `per_amount` and fractional quantities of `per_product` are
        /// rounded to whole points: `floor` (the default), `nearest` or `ceil`.
        pub rounding: Option<PointsRounding>,
        /// Points per unit of these products (product code → points, at least 1).
        #[oai(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        pub per_product: std::collections::BTreeMap<String, i64>,
        /// Flat points (at least 1).
        #[oai(validator(minimum(value = "1")))]
        pub fixed: Option<i64>,
        /// `points` (default) or `wallet` (money, in cents).
        pub balance: Option<PointsKind>,
        /// The points expire this many days after they are earned (1 to 3650) ...
        #[oai(validator(minimum(value = "1"), maximum(value = "3650")))]
        pub expires_after_days: Option<u32>,
        /// ... or at this instant (not both).
        pub expires_at: Option<Timestamp>,
    }
}

campaign_spec! {
    /// A points campaign as written: the fields of a campaign file of kind
    /// `points`. On create every field but `name` and `points` is optional; on
    /// update every field is, and the ones sent replace the stored ones.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
    #[oai(deny_unknown_fields)]
    pub struct PointsCampaignSpec {
        /// The events it listens to: `"cart"`, `{"custom_event": TYPE}` or
        /// `{"trigger": TYPE}`; absent: none (given only as an Instant Win prize).
        pub on: Option<serde_json::Value>,
        /// How it earns.
        pub points: Option<PointsRules>,
    }
    with available, when, limits
}

/// A points campaign as GET /points returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Object)]
pub struct PointsCampaign {
    /// Its id, name, description, whether it is active and its dates.
    #[oai(flatten)]
    #[serde(flatten)]
    pub header: CampaignHeader,
    /// `file` (a campaign file: read-only here) or `api`.
    pub source: String,
    /// The events it listens to; absent: given only as a prize.
    #[oai(skip_serializing_if_is_none)]
    pub on: Option<serde_json::Value>,
    /// Its condition.
    #[oai(skip_serializing_if_is_none)]
    pub when: Option<String>,
    /// How it earns.
    pub points: PointsRules,
    /// Its budgets.
    pub limits: Vec<OfferLimitRules>,
}
