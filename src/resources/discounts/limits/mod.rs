//! Budgets and caps of a discount campaign or Coupon: how many redemptions
//! and how much money it may give, overall or per period, across the
//! Company, per Location or per Customer. Written in one `limits:` list:
//!
//! ```yaml
//! limits:
//!   - { redemptions: 1000 }                              # overall
//!   - { amount: 5000, per: month }                       # money per calendar month
//!   - { redemptions: 50, per: day, each: location }      # per store and day
//!   - { redemptions: 1, per: week, each: customer }      # per Customer and week
//! ```
//!
//! Each limit is one counter ([`store`]), read before a cart is evaluated
//! (what is left caps the offer, [`Headroom`]) and changed in the
//! transaction that redeems ([`LimitTake`]), which refuses when another
//! redemption took the last of it meanwhile; a cancellation or rollback
//! gives back what it took.

pub mod service;
pub mod store;

use std::collections::HashMap;

use chrono::Datelike;
use chrono::NaiveDateTime;
use poem_openapi::Enum;
use poem_openapi::Object;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde::Serialize;

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::engine::problems::Problems;
use crate::error::ErrorCode;

/// Most limits one campaign has.
pub const MAX_LIMITS: usize = 20;

/// Most redemptions a limit counts to.
pub const MAX_REDEMPTIONS: u64 = 1_000_000_000;

/// The period a limit counts over, on the Company's clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum LimitPeriod {
    /// A calendar day.
    Day,
    /// An ISO week, Monday to Sunday.
    Week,
    /// A calendar month.
    Month,
    /// A calendar year.
    Year,
}

/// Whom or where a limit counts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum LimitEach {
    /// Each Location (carts with no `location_code` count together).
    Location,
    /// Each Customer.
    Customer,
}

/// One limit as the API takes and answers it, and as a campaign file
/// writes it: at least one of `redemptions` and `amount`; over `per` (absent:
/// ever) and for `each` Location or Customer (absent: the whole Company).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct OfferLimitRules {
    /// Most redemptions (carts it took money off; Voucher uses), 1 to
    /// 1000000000.
    #[oai(
        skip_serializing_if_is_none,
        validator(minimum(value = "1"), maximum(value = "1000000000"))
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redemptions: Option<u64>,
    /// Most money it takes off in all: more than 0, in the currency's
    /// decimals.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<SentAmount>,
    /// The period it counts over; absent: ever.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<LimitPeriod>,
    /// `location` or `customer`: a counter for each; absent: one for the
    /// Company.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub each: Option<LimitEach>,
}

/// The amounts of `limits` with the field each is sent in
/// (`limits[0].amount`), to be checked against the Company's currency.
pub fn limit_amount_fields(limits: Option<&[OfferLimitRules]>) -> Vec<(String, &SentAmount)> {
    limits
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter_map(|(index, limit)| {
            limit
                .amount
                .as_ref()
                .map(|amount| (format!("limits[{index}].amount"), amount))
        })
        .collect()
}

/// A compiled limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferLimit {
    /// Most redemptions.
    pub redemptions: Option<u64>,
    /// Most money.
    pub amount: Option<Decimal>,
    /// Over what period; `None`: ever.
    pub per: Option<LimitPeriod>,
    /// For each Location or Customer; `None`: the Company.
    pub each: Option<LimitEach>,
}

impl OfferLimit {
    /// How it reads, for the reasons: "50 redemptions per day at this
    /// Location".
    pub fn describe(&self) -> String {
        let what = match (self.redemptions, self.amount) {
            (Some(count), Some(amount)) => format!("{count} redemptions and {amount}"),
            (Some(count), None) => format!("{count} redemptions"),
            (None, Some(amount)) => format!("a budget of {amount}"),
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
        OfferLimitRules {
            redemptions: self.redemptions,
            amount: self.amount.map(|amount| Amount(amount).into()),
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

/// What a counter has counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    /// Redemptions.
    pub redemptions: u64,
    /// Money.
    pub amount: Decimal,
}

/// What an offer may still give under its tightest limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headroom {
    /// Redemptions left, and the limit that leaves them; `None`: no limit.
    pub redemptions: Option<(u64, String)>,
    /// Money left, and the limit that leaves it; `None`: no limit.
    pub amount: Option<(Decimal, String)>,
}

impl Headroom {
    /// The headroom `limits` of campaign `rule_id` leave given what their
    /// counters counted (`counted`, by counter key; a missing counter has
    /// counted nothing).
    pub fn of(
        rule_id: i64,
        limits: &[OfferLimit],
        at: &Redeeming<'_>,
        counted: &HashMap<Vec<String>, Counted>,
    ) -> Headroom {
        let mut headroom = Headroom::default();
        for limit in limits {
            let used = counted
                .get(&limit.counter_key(rule_id, at))
                .copied()
                .unwrap_or_default();
            if let Some(most) = limit.redemptions {
                let left = most.saturating_sub(used.redemptions);
                if headroom.redemptions.as_ref().is_none_or(|(l, _)| left < *l) {
                    headroom.redemptions = Some((left, limit.describe()));
                }
            }
            if let Some(most) = limit.amount {
                let left = (most - used.amount).max(Decimal::ZERO);
                if headroom.amount.as_ref().is_none_or(|(l, _)| left < *l) {
                    headroom.amount = Some((left, limit.describe()));
                }
            }
        }
        headroom
    }

    /// Why the offer gives nothing more, when it cannot.
    pub fn exhausted(&self) -> Option<String> {
        match (&self.redemptions, &self.amount) {
            (Some((0, limit)), _) => Some(format!("its limit of {limit} is reached")),
            (_, Some((left, limit))) if left.is_zero() => {
                Some(format!("its limit of {limit} is spent"))
            }
            _ => None,
        }
    }
}

/// One limit's counter changed by one redemption, checked in the
/// redeeming transaction ([`store::TAKE_LIMITS`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LimitTake {
    /// The counter ([`OfferLimit::counter_key`]).
    pub key: Vec<String>,
    /// The money the redemption gave.
    pub amount: Decimal,
    /// The limit's redemptions, if it counts them.
    pub max_redemptions: Option<u64>,
    /// The limit's money, if it counts it.
    pub max_amount: Option<Decimal>,
    /// The refusal when the counter would go past the limit.
    pub refusal: (ErrorCode, String),
}

/// What one redemption of `rule_id` (named `label` in refusals) giving
/// `amount` takes from each of `limits`; `code` is the refusal when one is
/// reached meanwhile.
pub fn limit_takes(
    rule_id: i64,
    label: &str,
    limits: &[OfferLimit],
    at: &Redeeming<'_>,
    amount: Decimal,
    code: ErrorCode,
) -> Vec<LimitTake> {
    limits
        .iter()
        .map(|limit| LimitTake {
            key: limit.counter_key(rule_id, at),
            amount,
            max_redemptions: limit.redemptions,
            max_amount: limit.amount,
            refusal: (
                code,
                format!("{label}: the limit of {} is reached", limit.describe()),
            ),
        })
        .collect()
}

/// What one offer that applied takes from its limits: the Voucher's use
/// (`voucher_id`) or the campaign's cart carries them to the store.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferTakes {
    /// The discount campaign or Coupon.
    pub rule_id: i64,
    /// The Voucher, when a Voucher applied it.
    pub voucher_id: Option<String>,
    /// One per limit.
    pub takes: Vec<LimitTake>,
}

impl<'a> Redeeming<'a> {
    /// The redemption an evaluation of `facts` would make: its Customer,
    /// its cart's Location, at its time.
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
                .and_then(serde_json::Value::as_str),
            wall_clock: facts.locale.wall_clock(facts.now),
        }
    }
}

/// The `limits:` list of a campaign of kind `kind`; every problem goes to
/// `problems`. Only discount and Coupon campaigns have limits.
pub(crate) fn compile_limits(
    written: Vec<OfferLimitRules>,
    kind: &str,
    problems: &mut Problems<'_>,
) -> Vec<OfferLimit> {
    if written.is_empty() {
        return Vec::new();
    }
    if kind != "discount" && kind != "coupon" {
        problems.at_key(
            "limits",
            "`limits` are for discount and coupon campaigns: only they take money off a cart",
        );
        return Vec::new();
    }
    if written.len() > MAX_LIMITS {
        problems.at_key("limits", format!("at most {MAX_LIMITS} limits"));
    }
    let ceiling = Decimal::from(crate::common::amount::MAX_AMOUNT);
    let mut limits: Vec<OfferLimit> = Vec::new();
    for rules in written {
        let amount = match rules.amount.map(|sent| sent.amount("amount")) {
            None => None,
            Some(Ok(amount)) => Some(amount.0),
            Some(Err(error)) => {
                problems.at_key("limits", format!("a limit's {}", error.message));
                None
            }
        };
        let limit = OfferLimit {
            redemptions: rules.redemptions,
            amount,
            per: rules.per,
            each: rules.each,
        };
        if limit.redemptions.is_none() && limit.amount.is_none() {
            problems.at_key("limits", "a limit counts `redemptions`, `amount` or both");
        }
        if limit
            .redemptions
            .is_some_and(|count| count == 0 || count > MAX_REDEMPTIONS)
        {
            problems.at_key(
                "limits",
                format!("a limit's redemptions are 1 to {MAX_REDEMPTIONS}"),
            );
        }
        if limit
            .amount
            .is_some_and(|amount| amount <= Decimal::ZERO || amount > ceiling)
        {
            problems.at_key(
                "limits",
                format!("a limit's amount is more than 0 and at most {ceiling}"),
            );
        }
        if limits
            .iter()
            .any(|other| other.per == limit.per && other.each == limit.each)
        {
            problems.at_key(
                "limits",
                format!(
                    "two limits count the same ({}): write one, with both `redemptions` and `amount` if need be",
                    limit.scope().trim()
                ),
            );
        }
        limits.push(limit);
    }
    limits
}

#[cfg(test)]
mod tests;
