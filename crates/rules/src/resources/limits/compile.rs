//! A campaign file's `limits:` list checked and compiled.

use rust_decimal::Decimal;

use crate::engine::listens::Listens;
use crate::engine::problems::Problems;
use crate::resources::limits::LimitUnit;
use crate::resources::limits::OfferLimit;
use crate::resources::limits::OfferLimitRules;

/// Most limits one campaign has.
pub const MAX_LIMITS: usize = 20;

/// Most redemptions a limit counts to.
pub const MAX_REDEMPTIONS: u64 = 1_000_000_000;

/// Most points a limit counts to.
pub const MAX_LIMIT_POINTS: u64 = 1_000_000_000;

/// The `limits:` list of a campaign of kind `kind` listening to `listens`;
/// every problem goes to `problems`. Discount and Coupon campaigns limit
/// their redemptions and money, points campaigns the events they credit and
/// their points.
pub fn compile_limits(
    written: Vec<OfferLimitRules>,
    kind: &str,
    listens: Option<&Listens>,
    problems: &mut Problems<'_>,
) -> Vec<OfferLimit> {
    if written.is_empty() {
        return Vec::new();
    }
    let unit = match kind {
        "discount" | "coupon" => LimitUnit::Money,
        "points" => LimitUnit::Points,
        _ => {
            problems.at_key(
                "limits",
                "`limits` are for discount, coupon and points campaigns: the budgets of what \
                 they give. An Instant Win or game is limited by `once_limit` and its prizes' stock",
            );
            return Vec::new();
        }
    };
    if unit == LimitUnit::Points && matches!(listens, None | Some(Listens::Prize)) {
        problems.at_key(
            "limits",
            "a points campaign given only as a prize has no budget of its own: its prize's \
             stock limits it. Limits count the events a campaign listens to (`on`)",
        );
        return Vec::new();
    }
    if written.len() > MAX_LIMITS {
        problems.at_key("limits", format!("at most {MAX_LIMITS} limits"));
    }
    let ceiling = Decimal::from(crate::common::amount::MAX_AMOUNT);
    let mut limits: Vec<OfferLimit> = Vec::new();
    for rules in written {
        let amount = match unit {
            LimitUnit::Money => {
                if rules.points.is_some() {
                    problems.at_key(
                        "limits",
                        "a discount's or Coupon's limit counts `redemptions` and `amount` \
                         (money); `points` are the budget of a points campaign",
                    );
                }
                match rules.amount.map(|sent| sent.amount("amount")) {
                    None => None,
                    Some(Ok(amount)) => Some(amount.0),
                    Some(Err(error)) => {
                        problems.at_key("limits", format!("a limit's {}", error.message));
                        None
                    }
                }
            }
            LimitUnit::Points => {
                if rules.amount.is_some() {
                    problems.at_key(
                        "limits",
                        "a points campaign's limit counts `redemptions` (events credited) and \
                         `points`; `amount` is the money budget of a discount or Coupon",
                    );
                }
                rules.points.map(Decimal::from)
            }
        };
        let limit = OfferLimit {
            redemptions: rules.redemptions,
            amount,
            unit,
            per: rules.per,
            each: rules.each,
        };
        if limit.redemptions.is_none() && limit.amount.is_none() {
            problems.at_key(
                "limits",
                match unit {
                    LimitUnit::Money => "a limit counts `redemptions`, `amount` or both",
                    LimitUnit::Points => "a limit counts `redemptions`, `points` or both",
                },
            );
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
        match unit {
            LimitUnit::Money
                if limit
                    .amount
                    .is_some_and(|amount| amount <= Decimal::ZERO || amount > ceiling) =>
            {
                problems.at_key(
                    "limits",
                    format!("a limit's amount is more than 0 and at most {ceiling}"),
                );
            }
            LimitUnit::Points
                if rules
                    .points
                    .is_some_and(|points| points == 0 || points > MAX_LIMIT_POINTS) =>
            {
                problems.at_key(
                    "limits",
                    format!("a limit's points are 1 to {MAX_LIMIT_POINTS}"),
                );
            }
            _ => {}
        }
        if limits
            .iter()
            .any(|other| other.per == limit.per && other.each == limit.each)
        {
            let both = match unit {
                LimitUnit::Money => "`redemptions` and `amount`",
                LimitUnit::Points => "`redemptions` and `points`",
            };
            problems.at_key(
                "limits",
                format!(
                    "two limits count the same ({}): write one, with both {both} if need be",
                    limit.scope().trim()
                ),
            );
        }
        limits.push(limit);
    }
    limits
}
