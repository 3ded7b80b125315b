//! Discounts: the `discount:` section of a campaign file, what it compiles
//! to, and what it offers a cart (settled with the other discounts and
//! Vouchers in [`crate::resources::discounts::settle`], so a cart never
//! costs less than nothing).

use crate::resources::master_data::enrich::discountable_lines;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::Value;

use crate::common::money::round_money;
use crate::engine::facts::Facts;
use crate::engine::not_applied::NotApplied;
use crate::engine::problems::Problems;
use crate::engine::script::PreparedFacts;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::engine::why::Part;
use crate::engine::why::deciding_parts;
use crate::engine::why::describe;
use crate::resources::discounts::settle::reckon::Reckoning;
use crate::resources::discounts::settle::reckon::Spread;

/// A discount on the cart or on some of its lines.
#[derive(Debug, Clone)]
pub struct Discount {
    /// Which lines it applies to; `None`: the whole cart.
    pub lines: Option<Script>,
    /// Percentage off (0 < percent ≤ 100), or
    pub percent: Option<Decimal>,
    /// a fixed amount off.
    pub amount: Option<Decimal>,
    /// Most the discount may take off.
    pub max_amount: Option<Decimal>,
}

/// The `discount:` section as written. Amounts are read as the decimals
/// they are written as (`0.1` is exactly a tenth).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiscountFile {
    applies_to: String,
    #[serde(default)]
    lines: Option<String>,
    #[serde(default)]
    percent: Option<Decimal>,
    #[serde(default)]
    amount: Option<Decimal>,
    #[serde(default)]
    max_amount: Option<Decimal>,
}

/// Compiles an expression of the campaign file: (problems, key, source, the
/// extra variables it sees).
pub(crate) type CompileExpression<'c> =
    dyn Fn(&mut Problems<'_>, &str, &str, &[&str]) -> Option<Script> + 'c;

impl DiscountFile {
    /// The discount it describes; every problem goes to `problems`.
    pub(crate) fn compile(
        self,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
    ) -> Option<Discount> {
        let discount = self;
        let lines = match (discount.applies_to.as_str(), discount.lines) {
            ("cart", None) => None,
            ("lines", Some(source)) => compile(problems, "lines", &source, &["line"]),
            ("lines", None) => {
                problems.at_key(
                    "applies_to",
                    "`applies_to: lines` needs a `lines` condition (it sees `line`)",
                );
                None
            }
            ("cart", Some(_)) => {
                problems.at_key("lines", "`lines` is only for `applies_to: lines`");
                None
            }
            (other, _) => {
                problems.at_key(
                    "applies_to",
                    format!("applies_to is `cart` or `lines`, not `{other}`"),
                );
                None
            }
        };
        match (discount.percent, discount.amount) {
            (Some(p), None) if p > Decimal::ZERO && p <= Decimal::ONE_HUNDRED => {}
            (None, Some(a)) if a > Decimal::ZERO => {}
            (Some(_), None) => problems.at_key("percent", "percent is more than 0 and at most 100"),
            (None, Some(_)) => problems.at_key("amount", "amount is more than 0"),
            _ => problems.at_key(
                "discount",
                "a discount has exactly one of `percent` and `amount`",
            ),
        }
        if discount.max_amount.is_some_and(|m| m <= Decimal::ZERO) {
            problems.at_key("max_amount", "max_amount is more than 0");
        }
        Some(Discount {
            lines,
            percent: discount.percent,
            amount: discount.amount,
            max_amount: discount.max_amount,
        })
    }
}

/// The lines of `cart` (none when it has none).
fn cart_lines(cart: &Value) -> &[Value] {
    cart.get("lines")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// What tells lines apart when a discount's last units are shared out: what
/// each line is (product, price and quantity), not where it is, so the order
/// the lines came in changes nothing.
pub(crate) fn tie_keys<'c>(facts: &'c Facts, of: &[usize]) -> Vec<(&'c str, Decimal, Decimal)> {
    let lines = cart_lines(&facts.cart);
    let amounts = facts.cart_amounts();
    of.iter()
        .map(|&index| {
            let code = lines
                .get(index)
                .and_then(|line| line.get("product_code"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let price = amounts.prices.get(index).copied().unwrap_or_default();
            let quantity = amounts.quantities.get(index).copied().unwrap_or_default();
            (code, price, quantity)
        })
        .collect()
}

/// Lines an explanation takes apart when none matches a selector (the
/// first ones; a long cart's others are alike or listed by the event).
const LINES_EXPLAINED: usize = 3;

/// Why no line of the cart matches the line selector `condition`; when
/// the event is explained, why each of the first lines does not.
fn no_line_matches(
    engine: &ScriptEngine,
    condition: &Script,
    prepared: &PreparedFacts,
    discountable: &[bool],
) -> NotApplied {
    let mut reason = format!("no line matches `{}`", condition.source.trim());
    if !prepared.facts().explain {
        return NotApplied::at_key("lines", reason);
    }
    let lines = prepared.facts().cart_amounts().worths.len();
    let parts: Vec<Part> = (0..lines)
        .filter(|index| discountable.get(*index) != Some(&false))
        .take(LINES_EXPLAINED)
        .flat_map(|index| deciding_parts(engine, condition, prepared, Some(index), false))
        .collect();
    if !parts.is_empty() {
        reason.push_str(": ");
        reason.push_str(&describe(&parts));
    }
    NotApplied {
        reason,
        key: Some("lines"),
        parts,
    }
}

/// What the discount campaign `discount` offers the cart in `facts`, before
/// it meets the other offers ([`crate::resources::discounts::settle`]): its
/// value and the lines it may take it off (all of them for a cart
/// discount, those its `lines` condition matches for a line discount); the
/// reason when no line matches.
pub(crate) fn discount_offer(
    engine: &ScriptEngine,
    discount: &Discount,
    facts: &Facts,
    prepared: &PreparedFacts,
) -> Result<Reckoning, NotApplied> {
    let minor_units = facts.locale.minor_units;
    let lines = facts.cart_amounts().worths.len();
    // Lines of Products marked `discountable: false` are never a base.
    let discountable = discountable_lines(&facts.cart);
    let may_discount = |index: usize| discountable.get(index) != Some(&false);
    let (eligible, spread) = match &discount.lines {
        None if (0..lines).all(may_discount) => (vec![true; lines], Spread::Total),
        None => {
            let eligible: Vec<bool> = (0..lines).map(may_discount).collect();
            if !eligible.contains(&true) {
                return Err(NotApplied::at_key(
                    "lines",
                    "no line of the cart may be discounted (discountable: false)",
                ));
            }
            (eligible, Spread::Eligible)
        }
        Some(condition) => {
            let mut eligible = Vec::with_capacity(lines);
            for index in 0..lines {
                eligible.push(
                    may_discount(index)
                        && engine
                            .eval_prepared(condition, prepared, Some(index))
                            .map_err(|e| {
                                NotApplied::at_key("lines", format!("lines condition failed: {e}"))
                            })?,
                );
            }
            if !eligible.contains(&true) {
                return Err(no_line_matches(engine, condition, prepared, &discountable));
            }
            (eligible, Spread::PerLine)
        }
    };
    Ok(Reckoning {
        // A percentage as a rate, divided once rather than for every line.
        rate: discount
            .percent
            .map(|percent| percent / Decimal::ONE_HUNDRED),
        amount: discount
            .amount
            .filter(|_| discount.percent.is_none())
            .map(|amount| round_money(amount, minor_units)),
        max_amount: discount.max_amount.map(|cap| round_money(cap, minor_units)),
        eligible,
        spread,
    })
}
