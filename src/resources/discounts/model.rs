//! Discount transactions: every discount a Customer got, from a cart (a
//! discount campaign's or a Voucher's) or given outside one
//! (POST /discounts/redeem), as GET /discounts/transactions lists them.

use poem_openapi::{Enum, Object};
use serde::{Deserialize, Serialize};

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::common::time::Timestamp;

/// Where a discount was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum DiscountSource {
    /// A discount campaign applied to a realtime cart.
    Cart,
    /// A Voucher applied to a realtime cart.
    Voucher,
    /// Given outside a cart by POST /discounts/redeem.
    Redeem,
}

/// One discount a Customer got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct DiscountTransaction {
    /// Transaction identifier (time-ordered).
    pub id: String,
    /// The Customer.
    pub customer_id: String,
    /// The discount campaign, or the Voucher's Coupon.
    pub discount_id: i64,
    /// Its name, as the answer that gave it named it.
    pub discount_name: String,
    /// Where it was given.
    pub source: DiscountSource,
    /// Money taken off, exact to the minor unit.
    pub value: Amount,
    /// The cart it was given on.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cart_code: Option<String>,
    /// The Voucher that gave it.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher_code: Option<String>,
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
    /// When it was given.
    pub created_at: Timestamp,
    /// When its cart was cancelled (the discount was given back with it).
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
    /// What the discount is taken of: required for a percentage; a fixed
    /// amount takes at most this much.
    pub base_amount: Option<SentAmount>,
    /// The store.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub location_code: Option<String>,
    /// Why it is given (kept in the history).
    #[oai(validator(max_length = 500))]
    pub description: Option<String>,
}
