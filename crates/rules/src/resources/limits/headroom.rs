//! What a limited campaign may still give ([`Headroom`], from its counters)
//! and what one event that applies it takes from each of its limits
//! ([`LimitTake`]).

use std::collections::HashMap;

use rust_decimal::Decimal;

use crate::error::ErrorCode;
use crate::resources::limits::OfferLimit;
use crate::resources::limits::Redeeming;

/// What a counter has counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    /// Redemptions.
    pub redemptions: u64,
    /// Money or points.
    pub amount: Decimal,
}

/// What an offer may still give under its tightest limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headroom {
    /// Redemptions left, and the limit that leaves them; `None`: no limit.
    pub redemptions: Option<(u64, String)>,
    /// Money (or points) left, and the limit that leaves it; `None`: no
    /// limit.
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
/// redeeming transaction (the service's `limits::store::TAKE_LIMITS`).
#[derive(Debug, Clone, PartialEq)]
pub struct LimitTake {
    /// The counter ([`OfferLimit::counter_key`]).
    pub key: Vec<String>,
    /// The money (or points) the redemption gave.
    pub amount: Decimal,
    /// The limit's redemptions, if it counts them.
    pub max_redemptions: Option<u64>,
    /// The limit's money (or points), if it counts them.
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
