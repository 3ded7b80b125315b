//! Discount transactions (the discounts of one realtime cart, or one given
//! outside a cart by POST /discounts/redeem) as GET /discounts/transactions
//! lists them, and discount campaigns as the API takes and answers them.

use poem_openapi::{Enum, Object};
use serde::{Deserialize, Serialize};

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::common::time::Timestamp;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::campaign_header::campaign_spec;
use crate::resources::discounts::stacking_rules::StackingRules;
use crate::resources::limits::OfferLimitRules;
use crate::resources::optional_fields::optional_fields;

/// Where a discount transaction happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum DiscountSource {
    /// A realtime cart: every discount campaign and Voucher that took money
    /// off it.
    Cart,
    /// Given outside a cart by POST /discounts/redeem.
    Redeem,
}

/// What gave a discount.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum DiscountGiver {
    /// A discount campaign (what a stored discount that names no giver was).
    #[default]
    Campaign,
    /// A Voucher of a Coupon.
    Voucher,
}

/// One discount of a transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct GivenDiscount {
    /// The discount campaign, or the Voucher's Coupon.
    pub discount_id: i64,
    /// Its name, as the answer that gave it named it.
    pub discount_name: String,
    /// A campaign or a Voucher.
    #[serde(default)]
    pub given_by: DiscountGiver,
    /// Money it took off, exact to the minor unit.
    pub value: Amount,
    /// The Voucher that gave it.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher_code: Option<String>,
}

/// The discounts a Customer got at once: those of one realtime cart, or
/// one given outside a cart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct DiscountTransaction {
    /// Transaction identifier (time-ordered).
    pub id: String,
    /// The Customer.
    pub customer_id: String,
    /// Where it happened.
    pub source: DiscountSource,
    /// Money taken off in all, exact to the minor unit.
    pub value: Amount,
    /// Each discount, with what it took.
    pub discounts: Vec<GivenDiscount>,
    /// The cart (`source: cart`).
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cart_code: Option<String>,
    /// The store.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_code: Option<String>,
    /// Why it was given (POST /discounts/redeem).
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What a percentage was taken of (POST /discounts/redeem).
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_amount: Option<Amount>,
    /// When it happened.
    pub created_at: Timestamp,
    /// When its cart was cancelled (the discounts were given back with it).
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_at: Option<Timestamp>,
}

/// A page of discount transactions.
#[derive(Debug, Object)]
pub struct DiscountTransactionList {
    /// The transactions, newest first.
    pub transactions: Vec<DiscountTransaction>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}

/// A discount to give outside a cart.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct DiscountRedeem {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The discount campaign to give.
    pub discount_id: i64,
    /// The amount the discount is given on (a purchase, a service): a
    /// percentage is taken of it; a fixed amount takes at most it.
    pub base_amount: SentAmount,
    /// The store.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub location_code: Option<String>,
    /// Why it is given (kept in the history).
    #[oai(validator(max_length = 500))]
    pub description: Option<String>,
}

/// Which part of a cart a discount campaign takes money off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum DiscountAppliesTo {
    /// The whole cart, shared out over its lines.
    Cart,
    /// Each line `lines` matches, on its own worth.
    Lines,
    /// Every `nth` unit of the lines `lines` matches (every line without
    /// it), counted together: the cheapest of them.
    EveryNth,
    /// The `units` cheapest units of the matching lines, once the cart
    /// holds `min_units` of them.
    Cheapest,
    /// Sets of one unit per part of `bundle` (buy A and B), the dearest
    /// units first.
    Bundle,
    /// Sets of `size` units of the matching lines (3 for 10.00), the
    /// dearest units first.
    Set,
}

optional_fields! {
    /// What a discount campaign takes off: exactly one of `percent` and
    /// `amount`, optionally capped; on the cart or on the lines `lines` matches.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
    #[oai(deny_unknown_fields)]
    pub struct DiscountRules {
        /// `cart` (the default) or `lines`.
        pub applies_to: Option<DiscountAppliesTo>,
        /// With `applies_to: lines`: the rhai condition a line must meet (it
        /// sees `line`, and everything a `when` sees).
        #[oai(validator(pattern = r"\S", max_length = 10000))]
        pub lines: Option<String>,
        /// This percentage (0.01 to 100); or
        #[oai(validator(minimum(value = "0.01"), maximum(value = "100")))]
        pub percent: Option<f64>,
        /// this amount: more than 0, in the currency's decimals.
        pub amount: Option<SentAmount>,
        /// With `every_nth`, `cheapest`, `bundle` and `set`: what each unit (or
        /// each set) costs, the difference taken off (0 makes it free; a unit
        /// or set already cheaper keeps its price).
        pub price: Option<SentAmount>,
        /// Most it takes off one cart: more than 0, in the currency's decimals.
        pub max_amount: Option<SentAmount>,
        /// With `every_nth`: every this many units (2 or more).
        #[oai(validator(minimum(value = "2")))]
        pub nth: Option<u64>,
        /// With `every_nth`: most units discounted in one cart ("3 for 2, at
        /// most 2 free"); none: every `nth` unit.
        #[oai(validator(minimum(value = "1")))]
        pub max_units: Option<u64>,
        /// With `cheapest`: how many of the cheapest units (default 1).
        #[oai(validator(minimum(value = "1")))]
        pub units: Option<u64>,
        /// With `cheapest`: how many units the cart must hold (default
        /// `units` + 1).
        #[oai(validator(minimum(value = "2")))]
        pub min_units: Option<u64>,
        /// With `bundle`: a rhai line condition per part (2 or more).
        #[oai(validator(min_items = 2, max_items = 20))]
        pub bundle: Option<Vec<String>>,
        /// With `set`: the units in a set (2 to 100).
        #[oai(validator(minimum(value = "2"), maximum(value = "100")))]
        pub size: Option<u64>,
        /// With `bundle` and `set`: most sets per cart.
        #[oai(validator(minimum(value = "1")))]
        pub max_sets: Option<u64>,
        /// Read only: when a campaign file writes `percent` or `amount` as a rhai
        /// expression (worked out exactly for each cart, or line), its text.
        #[oai(read_only)]
        pub expression: Option<String>,
    }
}

campaign_spec! {
    /// A discount campaign as written: the fields of a campaign file of kind
    /// `discount` (it listens to carts). On create `name` and `discount` are
    /// needed; on update every field is optional, and the ones sent replace the
    /// stored ones.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
    #[oai(deny_unknown_fields)]
    pub struct DiscountCampaignSpec {
        /// What it takes off.
        pub discount: Option<DiscountRules>,
    }
    with available, when, stacking, limits
}

/// A discount campaign as GET /discounts answers it.
#[derive(Debug, Clone, PartialEq, Object)]
pub struct DiscountCampaign {
    /// Its id, name, description, whether it is active and its dates.
    #[oai(flatten)]
    pub header: CampaignHeader,
    /// `file` (a campaign file: read-only here) or `api`.
    pub source: String,
    /// Its condition.
    #[oai(skip_serializing_if_is_none)]
    pub when: Option<String>,
    /// What it takes off.
    pub discount: DiscountRules,
    /// How it shares a cart with other discounts and Vouchers.
    pub stacking: StackingRules,
    /// Its budgets and caps.
    pub limits: Vec<OfferLimitRules>,
}

/// Discount campaigns.
#[derive(Debug, Object)]
pub struct DiscountCampaignList {
    /// By ascending id.
    pub discounts: Vec<DiscountCampaign>,
}
