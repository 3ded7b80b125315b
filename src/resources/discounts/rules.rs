//! Discounts: the `discount:` section of a campaign file, what it compiles
//! to, and the money it takes off a cart (capped together with the other
//! discounts so a cart never costs less than nothing).

use std::sync::Arc;

use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::Value;

use crate::common::money::allocate_with_ties;
use crate::common::money::round_money;
use crate::engine::effect::DiscountEffect;
use crate::engine::effect::DiscountType;
use crate::engine::effect::Distribution;
use crate::engine::effect::Effect;
use crate::engine::facts::Facts;
use crate::engine::problems::Problems;
use crate::engine::script::PreparedFacts;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;

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

/// Caps discounts together, in campaign order, and shares cart discounts
/// out over the lines: all discounts on a line take at most what the line is
/// worth, and all discounts at most the cart total, so stacked campaigns
/// never make a cart or a line cost less than nothing. A cart discount
/// becomes one effect per line with a share (see [`allocate_with_ties`]),
/// the shares adding up exactly to it; a discount left with nothing to take
/// is dropped.
pub(crate) fn cap_discounts(effects: &mut Vec<Effect>, facts: &Facts) {
    if !effects.iter().any(|e| matches!(e, Effect::Discount(_))) {
        return;
    }
    let minor_units = facts.locale.minor_units;
    let amounts = facts.cart_amounts();
    let mut line_left = amounts.worths.clone();
    // What discounts may still take: at most the total, and at most what the
    // lines are worth (every discount takes the same from both).
    let worth: Decimal = amounts.worths.iter().copied().sum();
    let mut cart_left = amounts.total.min(worth).max(Decimal::ZERO);
    let mut keys = None;
    // A cart discount becomes up to one effect per line.
    let cart_discounts = effects
        .iter()
        .filter(|e| matches!(e, Effect::Discount(d) if d.line == 0))
        .count();
    let mut capped = Vec::with_capacity(effects.len() + cart_discounts * line_left.len());
    for effect in effects.drain(..) {
        let Effect::Discount(mut discount) = effect else {
            capped.push(effect);
            continue;
        };
        if discount.line > 0 {
            let Some(left) = line_left.get_mut((discount.line - 1) as usize) else {
                continue;
            };
            let value = discount.value.min(cart_left).min(*left);
            *left -= value;
            cart_left -= value;
            discount.value = value;
            if value > Decimal::ZERO {
                capped.push(Effect::Discount(discount));
            }
            continue;
        }
        let value = discount.value.min(cart_left);
        let keys = keys.get_or_insert_with(|| {
            let all: Vec<usize> = (0..amounts.worths.len()).collect();
            tie_keys(facts, &all)
        });
        let Some(shares) = allocate_with_ties(value, &line_left, keys, minor_units) else {
            continue;
        };
        cart_left -= value;
        for (index, share) in shares.into_iter().enumerate() {
            if share > Decimal::ZERO {
                line_left[index] -= share;
                capped.push(Effect::Discount(DiscountEffect {
                    line: index as i64 + 1,
                    value: share,
                    rule_name: discount.rule_name.clone(),
                    ..discount
                }));
            }
        }
    }
    *effects = capped;
}

/// The discount effects of campaign `rule_id` on the cart in `facts`: one
/// per matched line for a line discount, one (shared out over the lines by
/// [`cap_discounts`]) for a cart discount; the reason when it takes nothing
/// off. Every value is rounded once, to the minor unit.
pub(crate) fn discount_effects(
    engine: &ScriptEngine,
    rule_id: i64,
    discount: &Discount,
    facts: &Facts,
    prepared: &PreparedFacts,
    rule_name: String,
) -> Result<Vec<Effect>, String> {
    let minor_units = facts.locale.minor_units;
    let effect_type = if discount.percent.is_some() {
        DiscountType::Percent
    } else {
        DiscountType::Amount
    };
    // A percentage as a rate, divided once rather than for every line.
    let rate = discount
        .percent
        .map(|percent| percent / Decimal::ONE_HUNDRED);
    let off = |base: Decimal| match (rate, discount.amount) {
        (Some(rate), _) => round_money(base * rate, minor_units),
        (None, Some(amount)) => round_money(amount, minor_units).min(base),
        _ => Decimal::ZERO,
    };
    let max_amount = discount.max_amount.map(|cap| round_money(cap, minor_units));
    let amounts = facts.cart_amounts();
    let (targets, distribution): (Vec<(i64, Decimal)>, Distribution) = match &discount.lines {
        None => {
            let value = off(amounts.total);
            let capped = max_amount.map_or(value, |cap| value.min(cap));
            (vec![(0, capped)], Distribution::Cart)
        }
        Some(condition) => {
            let mut matched = Vec::new();
            for (index, worth) in amounts.worths.iter().copied().enumerate() {
                let matches = engine
                    .eval_prepared(condition, prepared, Some(index))
                    .map_err(|e| format!("lines condition failed: {e}"))?;
                if matches {
                    matched.push((index, off(worth)));
                }
            }
            if matched.is_empty() {
                return Err(format!("no line matches `{}`", condition.source.trim()));
            }
            let offs: Vec<Decimal> = matched.iter().map(|(_, value)| *value).collect();
            let wanted: Decimal = offs.iter().copied().sum();
            // Over its cap, the discount is shared out over the lines it
            // matched in proportion to what each would have got.
            let offs = match max_amount {
                Some(cap) if wanted > cap => {
                    let indices: Vec<usize> = matched.iter().map(|(index, _)| *index).collect();
                    let keys = tie_keys(facts, &indices);
                    allocate_with_ties(cap, &offs, &keys, minor_units)
                        .ok_or_else(|| format!("max_amount {cap} cannot be shared out"))?
                }
                _ => offs,
            };
            let targets = matched
                .iter()
                .zip(offs)
                .map(|((index, _), value)| (*index as i64 + 1, value))
                .collect();
            (targets, Distribution::Line)
        }
    };
    let rule_name: Arc<str> = Arc::from(rule_name);
    let effects: Vec<Effect> = targets
        .into_iter()
        .filter(|(_, value)| *value > Decimal::ZERO)
        .map(|(line, value)| {
            Effect::Discount(DiscountEffect {
                rule_id,
                rule_name: rule_name.clone(),
                line,
                value,
                effect_type,
                distribution,
            })
        })
        .collect();
    if effects.is_empty() {
        return Err("the discount comes to 0".into());
    }
    Ok(effects)
}
