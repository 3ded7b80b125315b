//! What expressions see about one Customer and the event: the [`Facts`],
//! and the purchase history they read through `history`
//! ([`crate::engine::history`]).

use std::sync::{Arc, OnceLock};

use rust_decimal::Decimal;

use crate::common::locale::Locale;
use crate::common::money::decimal_from_f64;
use crate::common::money::round_money;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::resources::carts::purchase_days::PurchaseDays;
use crate::resources::carts::purchase_days::PurchaseTotals;
use crate::resources::coupons::apply::DesiredVoucher;
use crate::resources::limits::Headroom;

/// What an expression can see about one Customer.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The Customer as its API JSON (`customer.email`, `customer.attributes.vip`, ...).
    pub customer: Value,
    /// Purchases by day; loaded only for rules that use `history`.
    pub history: Arc<PurchaseDays>,
    /// Totals over every purchase, kept up to date by each recorded cart.
    pub totals: PurchaseTotals,
    /// Current points balance.
    pub points_balance: i64,
    /// Associated Customers: `{ "id": ..., "type": ... }`.
    pub associates: Vec<Value>,
    /// Attributes calculated so far (authors' attributes see the earlier ones).
    pub calculated: serde_json::Map<String, Value>,
    /// The cart being evaluated, when the event is a cart.
    pub cart: Value,
    /// The Custom Event being evaluated (`type` and `data`), when it is one.
    pub event: Value,
    /// The trigger being evaluated (`type` and `data`), when it is one.
    pub trigger: Value,
    /// The event's Location as the catalogue knows it (`{}` when it names
    /// none): what conditions read as `location`.
    pub location: Value,
    /// The Customer's current tier id (`()` when none is reached).
    pub tier: Value,
    /// For an explained event only: each tier the Customer did not reach,
    /// lowest first, with the parts of its condition that were false and
    /// the figures they read (what a `tiers:` refusal names).
    pub tiers_missed: Vec<(String, Vec<crate::engine::why::Part>)>,
    /// Ids of the audiences the Customer belongs to.
    pub audiences: Vec<String>,
    /// The evaluation instant; passed in so evaluation is deterministic.
    pub now: DateTime<Utc>,
    /// The Company's minor unit and time zone.
    pub locale: Locale,
    /// The cart's exact amounts; see [`Facts::cart_amounts`].
    pub cart_amounts: OnceLock<CartAmounts>,
    /// The Vouchers the cart names, in its order, each checked against the
    /// store; empty for every other event.
    pub vouchers: Vec<DesiredVoucher>,
    /// What each limited discount campaign and Coupon may still give, by
    /// rule id, as read before the evaluation; empty when none is limited.
    pub limits: std::collections::HashMap<i64, Headroom>,
    /// How many Vouchers the Customer holds of each Coupon a `voucher`
    /// campaign listening to the event issues with a cap per Customer, as
    /// read before the evaluation; empty when none is capped.
    pub voucher_issues: std::collections::HashMap<i64, u32>,
    /// The Customer's state of each campaign whose kind reads its own
    /// before the evaluation (its contribution's `read_before` in the
    /// service), by rule id; empty for the kinds whose state is read with
    /// the draws (Instant Wins, games, Challenges) and when none is read.
    pub kind_states: std::collections::HashMap<i64, Value>,
    /// Whether the event is explained (`?explain=true`, scenarios): only
    /// then does a false condition say which of its parts made it false.
    pub explain: bool,
    /// The ids of the `once` messages the Customer was printed, as read
    /// before the evaluation; empty when no campaign of the event has one.
    pub printed_messages: std::collections::HashSet<String>,
}

/// The exact amounts of the cart being evaluated, worked out once per event
/// and shared by every campaign that computes money or points from them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CartAmounts {
    /// The cart's total.
    pub total: Decimal,
    /// Each line's unit price.
    pub prices: Vec<Decimal>,
    /// Each line's quantity.
    pub quantities: Vec<Decimal>,
    /// What each line is worth: its price times its quantity, rounded once
    /// to the minor unit (never below zero).
    pub worths: Vec<Decimal>,
}

impl CartAmounts {
    /// The amounts of `cart` as facts hold it (amounts as JSON numbers, which
    /// read back as the decimals they print as).
    pub fn of_json(cart: &Value, minor_units: u32) -> CartAmounts {
        let number = |value: &Value, key: &str| {
            value
                .get(key)
                .and_then(Value::as_f64)
                .and_then(decimal_from_f64)
                .unwrap_or(Decimal::ZERO)
        };
        let lines = cart
            .get("lines")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let prices: Vec<Decimal> = lines.iter().map(|l| number(l, "price")).collect();
        let quantities: Vec<Decimal> = lines.iter().map(|l| number(l, "quantity")).collect();
        let worths = line_worths(&prices, &quantities, minor_units);
        CartAmounts {
            total: number(cart, "total"),
            prices,
            quantities,
            worths,
        }
    }
}

/// What each line is worth, by its price and quantity.
pub fn line_worths(prices: &[Decimal], quantities: &[Decimal], minor_units: u32) -> Vec<Decimal> {
    prices
        .iter()
        .zip(quantities)
        .map(|(price, quantity)| line_worth(*price, *quantity, minor_units))
        .collect()
}

/// What a line of `quantity` units at `price` is worth: rounded once to the
/// minor unit, never below zero.
pub fn line_worth(price: Decimal, quantity: Decimal, minor_units: u32) -> Decimal {
    price
        .checked_mul(quantity)
        .map_or(Decimal::ZERO, |worth| round_money(worth, minor_units))
        .max(Decimal::ZERO)
}

impl Facts {
    /// The exact amounts of the cart: set by the cart itself when it is
    /// described, read from the facts' JSON otherwise; once per event.
    pub fn cart_amounts(&self) -> &CartAmounts {
        self.cart_amounts
            .get_or_init(|| CartAmounts::of_json(&self.cart, self.locale.minor_units))
    }
}
