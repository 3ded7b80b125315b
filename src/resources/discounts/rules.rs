//! Discounts: the `discount:` section of a campaign file, what it compiles
//! to, and the money it takes off a cart (capped together with the other
//! discounts so a cart never costs less than nothing).

use serde::Deserialize;
use serde_json::Value;

use crate::engine::effect::DiscountEffect;
use crate::engine::effect::DiscountType;
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
    pub percent: Option<f64>,
    /// a fixed amount off.
    pub amount: Option<f64>,
    /// Most the discount may take off.
    pub max_amount: Option<f64>,
}

/// The `discount:` section as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiscountFile {
    applies_to: String,
    #[serde(default)]
    lines: Option<String>,
    #[serde(default)]
    percent: Option<f64>,
    #[serde(default)]
    amount: Option<f64>,
    #[serde(default)]
    max_amount: Option<f64>,
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
            (Some(p), None) if p > 0.0 && p <= 100.0 => {}
            (None, Some(a)) if a > 0.0 => {}
            (Some(_), None) => problems.at_key("percent", "percent is more than 0 and at most 100"),
            (None, Some(_)) => problems.at_key("amount", "amount is more than 0"),
            _ => problems.at_key(
                "discount",
                "a discount has exactly one of `percent` and `amount`",
            ),
        }
        if discount.max_amount.is_some_and(|m| m <= 0.0) {
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

/// Caps discounts together, in campaign order: all discounts on a line take
/// at most what the line is worth, and all discounts at most the cart total,
/// so stacked campaigns never make a cart pay less than nothing. A discount
/// left with nothing to take is dropped.
pub(crate) fn cap_discounts(effects: &mut Vec<Effect>, cart: &Value) {
    let lines = cart.get("lines").and_then(Value::as_array);
    let mut line_left: Vec<f64> = lines
        .map(|lines| {
            lines
                .iter()
                .map(|l| number(l, "price") * number(l, "quantity"))
                .collect()
        })
        .unwrap_or_default();
    let mut cart_left = number(cart, "total");
    for effect in effects.iter_mut().filter_map(|e| match e {
        Effect::Discount(discount) => Some(discount),
        _ => None,
    }) {
        let mut value = effect.value.min(cart_left);
        if effect.line > 0
            && let Some(left) = line_left.get_mut((effect.line - 1) as usize)
        {
            value = value.min(*left);
            *left -= value;
        }
        cart_left -= value;
        effect.value = cents(value.max(0.0));
    }
    effects.retain(|e| !matches!(e, Effect::Discount(discount) if discount.value <= 0.0));
}

/// Rounds money to cents.
fn cents(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// A number field of a cart or line (0 when absent).
fn number(value: &Value, key: &str) -> f64 {
    value.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// The discount effects of campaign `rule_id` on the cart in `facts`; the
/// reason when it takes nothing off.
pub(crate) fn discount_effects(
    engine: &ScriptEngine,
    rule_id: i64,
    discount: &Discount,
    facts: &Facts,
    prepared: &PreparedFacts,
    rule_name: String,
) -> Result<Vec<Effect>, String> {
    let effect_type = if discount.percent.is_some() {
        DiscountType::Percent
    } else {
        DiscountType::Amount
    };
    let off = |base: f64| match (discount.percent, discount.amount) {
        (Some(percent), _) => base * percent / 100.0,
        (None, Some(amount)) => amount.min(base),
        _ => 0.0,
    };
    let mut targets: Vec<(i64, f64)> = Vec::new();
    match &discount.lines {
        None => targets.push((0, off(number(&facts.cart, "total")))),
        Some(condition) => {
            let lines = facts
                .cart
                .get("lines")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            for (index, line) in lines.iter().enumerate() {
                let matches = engine
                    .eval_prepared(condition, prepared, Some(index))
                    .map_err(|e| format!("lines condition failed: {e}"))?;
                if matches {
                    let base = number(line, "price") * number(line, "quantity");
                    targets.push((index as i64 + 1, off(base)));
                }
            }
            if targets.is_empty() {
                return Err(format!("no line matches `{}`", condition.source.trim()));
            }
        }
    }
    let mut left = discount.max_amount.unwrap_or(f64::INFINITY);
    let mut effects = Vec::new();
    for (line, value) in targets {
        let value = cents(value.min(left).max(0.0));
        left -= value;
        if value > 0.0 {
            effects.push(Effect::Discount(DiscountEffect {
                rule_id,
                rule_name: rule_name.clone(),
                line,
                value,
                effect_type,
            }));
        }
    }
    if effects.is_empty() {
        return Err("the discount comes to 0".into());
    }
    Ok(effects)
}
