//! Carts: the canonical name for a purchase transaction.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::common::time::Timestamp;

/// A line of a recorded cart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct CartLine {
    /// The product's code.
    pub product_code: String,
    /// Units (may be fractional, e.g. weight; negative on a cancellation).
    pub quantity: f64,
    /// Unit price.
    pub price: Amount,
    /// Product taxonomies (categories) the line's product belongs to, e.g. `coffee`.
    #[oai(default)]
    #[serde(default)]
    pub taxonomies: Vec<String>,
    /// Product features, e.g. `{"brand": "Acme", "organic": "yes"}`.
    #[oai(default)]
    #[serde(default)]
    pub features: std::collections::BTreeMap<String, String>,
    /// Money the discounts took off this line: its line discounts and its
    /// share of cart discounts, so a return or a rollback reverses exactly
    /// what the line got.
    #[serde(default)]
    pub discount: Amount,
}

/// A cart line as the till or the shop sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct NewCartLine {
    /// The product's code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub product_code: String,
    /// Units (may be fractional, e.g. weight): 0.001 to 1,000,000.
    #[oai(validator(minimum(value = 0.001), maximum(value = 1000000.0)))]
    pub quantity: f64,
    /// Unit price, in the Company's currency, at least 0 and with at most its
    /// minor unit's decimals (`1.99`).
    pub price: SentAmount,
    /// Product taxonomies (categories) the line's product belongs to, e.g. `coffee`.
    #[oai(default)]
    #[serde(default)]
    #[oai(validator(max_items = 50))]
    pub taxonomies: Vec<String>,
    /// Product features, e.g. `{"brand": "Acme", "organic": "yes"}`.
    #[oai(default)]
    #[serde(default)]
    #[oai(validator(max_properties = 50))]
    pub features: std::collections::BTreeMap<String, String>,
}

/// A cart as sent by the till or the shop.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct NewCart {
    /// The Customer's id; or name them with `customer_code`.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer's code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The cart's own identifier (e.g. the ticket number), unique within the Company.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub code: String,
    /// When the purchase happened (default: now).
    pub date: Option<Timestamp>,
    /// Where it happened.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub location_code: Option<String>,
    /// The lines (1 to 500).
    #[oai(validator(min_items = 1, max_items = 500))]
    pub lines: Vec<NewCartLine>,
    /// The amount paid, at least 0: at most what the lines add up to (one
    /// minor unit per line is tolerated for rounding) and less when the till
    /// took something off the whole ticket; conditions and points use it. A
    /// total above the lines is refused. When omitted, the sum of the lines,
    /// each line's price times its quantity rounded to the minor unit.
    pub total: Option<SentAmount>,
    /// Voucher codes the Customer presents (compared ignoring case, spaces,
    /// dashes and confusable characters). `selected` adds the Customer's
    /// selected Vouchers (POST /vouchers/{code}/select); `all` adds them too
    /// and lets every targeted Instant Win of the Customer take part. Each
    /// Voucher that applies answers `voucher` effects and is redeemed with
    /// the cart; each that cannot answers a `voucher_rejected` effect and the
    /// sale goes on without it.
    #[oai(default)]
    #[serde(default)]
    #[oai(validator(max_items = 50))]
    pub coupons_desired: Vec<String>,
    /// Holds (`reservation_id` of POST /vouchers/{code}/freeze) the cart
    /// uses: a Voucher frozen for this checkout is used through its hold.
    #[oai(default)]
    #[serde(default)]
    #[oai(validator(max_items = 50))]
    pub reservation_ids: Vec<String>,
}

/// A stored cart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct Cart {
    /// The cart's identifier (its code).
    pub id: String,
    /// The Customer.
    pub customer_id: String,
    /// When the purchase happened.
    pub date: Timestamp,
    /// Where it happened.
    pub location_code: Option<String>,
    /// The lines.
    pub lines: Vec<CartLine>,
    /// The total before discounts.
    pub total: Amount,
    /// Money taken off by discount effects: the sum of the lines' `discount`.
    pub discount_total: Amount,
    /// Points earned by points effects (negative on a cancellation).
    pub points_earned: i64,
    /// On a cancellation: the cart it cancels.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default)]
    pub cancels: Option<String>,
    /// On a cancelled cart: the cancellation that reversed it.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default)]
    pub cancelled_by: Option<String>,
    /// When the service recorded it.
    pub created_at: Timestamp,
}

/// Body of POST /carts/cancellation.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct CartCancellation {
    /// The id (code) of the cart to cancel.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub cart_id: String,
    /// The code of the cancellation cart; `<cart_id>-cancellation` when omitted.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub code: Option<String>,
}
