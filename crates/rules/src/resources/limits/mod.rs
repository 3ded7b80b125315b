//! Budgets and caps of a campaign: how many times and how much a discount
//! campaign, a Coupon or a points campaign may give, overall or per period,
//! across the Company, per Location or per Customer. Written in one
//! `limits:` list:
//!
//! ```yaml
//! limits:                                                # a discount or Coupon
//!   - { redemptions: 1000 }                              # overall
//!   - { amount: 5000, per: month }                       # money per calendar month
//!   - { redemptions: 50, per: day, each: location }      # per store and day
//!   - { redemptions: 1, per: week, each: customer }      # per Customer and week
//! limits:                                                # a points campaign
//!   - { points: 100000, per: month }                     # points given per month
//!   - { points: 500, per: week, each: customer }         # per Customer and week
//! ```
//!
//! Each limit is one counter (the service's `limits::store`), read before an event is evaluated
//! (what is left caps the offer or the points, [`Headroom`]) and changed in
//! the transaction that records the event ([`LimitTake`]), which refuses
//! when another event took the last of it meanwhile; a cancellation or
//! rollback gives back what it took. [`compile`] checks a file's list;
//! [`headroom`] works out what is left and what an event takes.

pub mod compile;
pub mod headroom;

use chrono::Datelike;
use chrono::NaiveDateTime;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use crate::common::amount::Amount;

pub use compile::compile_limits;
pub use compile::{MAX_LIMIT_POINTS, MAX_LIMITS, MAX_REDEMPTIONS};
pub use headroom::{Counted, Headroom, LimitTake, OfferTakes, limit_takes};
pub use loyalty_types::limits::{LimitEach, LimitPeriod, OfferLimitRules, limit_amount_fields};

/// What a limit's budget counts: the money a discount or Coupon takes off,
/// or the points a points campaign gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LimitUnit {
    /// Money, in the Company's currency.
    #[default]
    Money,
    /// Points (or wallet cents).
    Points,
}

/// A compiled limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferLimit {
    /// Most redemptions (events credited, for points).
    pub redemptions: Option<u64>,
    /// Most money or points, as `unit` says.
    pub amount: Option<Decimal>,
    /// What `amount` counts.
    pub unit: LimitUnit,
    /// Over what period; `None`: ever.
    pub per: Option<LimitPeriod>,
    /// For each Location or Customer; `None`: the Company.
    pub each: Option<LimitEach>,
}

impl OfferLimit {
    /// How it reads, for the reasons: "50 redemptions per day at this
    /// Location", "500 points per week for this Customer".
    pub fn describe(&self) -> String {
        let count = |count: u64| match (self.unit, count) {
            (LimitUnit::Money, 1) => "1 redemption".to_string(),
            (LimitUnit::Money, _) => format!("{count} redemptions"),
            (LimitUnit::Points, 1) => "1 event".to_string(),
            (LimitUnit::Points, _) => format!("{count} events"),
        };
        let budget = |amount: Decimal| match self.unit {
            LimitUnit::Money => format!("a budget of {amount}"),
            LimitUnit::Points => format!("{amount} points"),
        };
        let what = match (self.redemptions, self.amount) {
            (Some(most), Some(amount)) => match self.unit {
                LimitUnit::Money => format!("{} and {amount}", count(most)),
                LimitUnit::Points => format!("{} and {}", count(most), budget(amount)),
            },
            (Some(most), None) => count(most),
            (None, Some(amount)) => budget(amount),
            (None, None) => "nothing".to_string(),
        };
        format!("{what}{}", self.scope())
    }

    /// What it counts over: " per day at this Location"; empty: ever, for
    /// the whole Company.
    fn scope(&self) -> String {
        let per = match self.per {
            Some(LimitPeriod::Day) => " per day",
            Some(LimitPeriod::Week) => " per week",
            Some(LimitPeriod::Month) => " per month",
            Some(LimitPeriod::Year) => " per year",
            None => " ever",
        };
        let each = match self.each {
            Some(LimitEach::Location) => " at this Location",
            Some(LimitEach::Customer) => " for this Customer",
            None => "",
        };
        format!("{per}{each}")
    }

    /// The limit as the API shows it.
    pub fn rules(&self) -> OfferLimitRules {
        let (amount, points) = match self.unit {
            LimitUnit::Money => (self.amount.map(|amount| Amount(amount).into()), None),
            LimitUnit::Points => (None, self.amount.and_then(|points| points.to_u64())),
        };
        OfferLimitRules {
            redemptions: self.redemptions,
            amount,
            points,
            per: self.per,
            each: self.each,
        }
    }

    /// The key of its counter for the redemption `at`: [rule, period kind,
    /// whom or where, which period]. A limit's counter is named by what it
    /// counts, not by its place in the list, so reordering or raising
    /// limits keeps what was counted.
    pub fn counter_key(&self, rule_id: i64, at: &Redeeming<'_>) -> Vec<String> {
        let wall = at.wall_clock;
        let (per, period) = match self.per {
            None => ("ever", "ever".to_string()),
            Some(LimitPeriod::Day) => ("day", wall.format("%Y-%m-%d").to_string()),
            Some(LimitPeriod::Week) => {
                let week = wall.iso_week();
                ("week", format!("{}-W{:02}", week.year(), week.week()))
            }
            Some(LimitPeriod::Month) => ("month", wall.format("%Y-%m").to_string()),
            Some(LimitPeriod::Year) => ("year", wall.format("%Y").to_string()),
        };
        let each = match self.each {
            None => "company".to_string(),
            Some(LimitEach::Location) => {
                format!("location:{}", at.location_code.unwrap_or_default())
            }
            Some(LimitEach::Customer) => format!("customer:{}", at.customer_id),
        };
        vec![rule_id.to_string(), per.to_string(), each, period]
    }
}

/// A redemption the counters are keyed for: who, where, and when on the
/// Company's clocks.
#[derive(Debug, Clone, Copy)]
pub struct Redeeming<'a> {
    /// The Customer.
    pub customer_id: &'a str,
    /// The Location, if any.
    pub location_code: Option<&'a str>,
    /// When, on the Company's clocks.
    pub wall_clock: NaiveDateTime,
}

impl<'a> Redeeming<'a> {
    /// The redemption an evaluation of `facts` would make: its Customer,
    /// its cart's Location (a Custom Event's or trigger's, from the
    /// catalogue's view of it), at its time.
    pub fn of_facts(facts: &'a crate::engine::facts::Facts) -> Redeeming<'a> {
        Redeeming {
            customer_id: facts
                .customer
                .get("id")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default(),
            location_code: facts
                .cart
                .get("location_code")
                .or_else(|| facts.location.get("code"))
                .and_then(serde_json::Value::as_str),
            wall_clock: facts.locale.wall_clock(facts.now),
        }
    }
}

#[cfg(test)]
mod tests;
