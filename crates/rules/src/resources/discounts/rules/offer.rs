//! What a discount offers a cart before it meets the other offers: the
//! lines it may take something off and what it takes off each, or why it
//! takes nothing.

use rust_decimal::Decimal;
use serde_json::Value;

use crate::common::money::round_money;
use crate::engine::effect::DiscountType;
use crate::engine::facts::Facts;
use crate::engine::not_applied::NotApplied;
use crate::engine::script::PreparedFacts;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::engine::why::Part;
use crate::engine::why::deciding_parts;
use crate::engine::why::describe;
use crate::resources::discounts::rules::Discount;
use crate::resources::discounts::rules::Figure;
use crate::resources::discounts::rules::Off;
use crate::resources::discounts::rules::Target;
use crate::resources::discounts::rules::units;
use crate::resources::discounts::rules::units::LineUnits;
use crate::resources::discounts::rules::units::UnitOff;
use crate::resources::discounts::settle::reckon::LineOff;
use crate::resources::discounts::settle::reckon::Reckoning;
use crate::resources::discounts::settle::reckon::Spread;
use crate::resources::discounts::settle::reckon::Worth;
use crate::resources::master_data::enrich::discountable_lines;

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
pub fn tie_keys<'c>(facts: &'c Facts, of: &[usize]) -> Vec<(&'c str, Decimal, Decimal)> {
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
        failed: false,
    }
}

/// The lines `condition` matches among those that may be discounted (every
/// one of them without a condition); why none when none does.
fn matching_lines(
    engine: &ScriptEngine,
    condition: Option<&Script>,
    prepared: &PreparedFacts,
    discountable: &[bool],
) -> Result<Vec<bool>, NotApplied> {
    let lines = prepared.facts().cart_amounts().worths.len();
    let may_discount = |index: usize| discountable.get(index) != Some(&false);
    let mut eligible = Vec::with_capacity(lines);
    for index in 0..lines {
        eligible.push(
            may_discount(index)
                && match condition {
                    None => true,
                    Some(condition) => engine
                        .eval_prepared(condition, prepared, Some(index))
                        .map_err(|e| {
                            NotApplied::failed("lines", format!("lines condition failed: {e}"))
                        })?,
                },
        );
    }
    match condition {
        _ if eligible.contains(&true) => Ok(eligible),
        Some(condition) => Err(no_line_matches(engine, condition, prepared, discountable)),
        None => Err(NotApplied::at_key(
            "lines",
            "no line of the cart may be discounted (discountable: false)",
        )),
    }
}

/// The number `figure` comes to, for the cart (or its line `line`), with
/// the key it is written under.
fn figure_value(
    engine: &ScriptEngine,
    figure: &Figure,
    key: &'static str,
    prepared: &PreparedFacts,
    line: Option<usize>,
) -> Result<Decimal, NotApplied> {
    match figure {
        Figure::Number(number) => Ok(*number),
        Figure::Expression(script) => engine
            .eval_exact(script, prepared, line)
            .map_err(|e| NotApplied::failed(key, format!("{key} failed: {e}"))),
    }
}

/// `percent` as a rate; more than 100 is a mistake of the expression,
/// nothing (or less) takes nothing off.
fn rate_of(percent: Decimal, figure: &Figure, line: Option<usize>) -> Result<Decimal, NotApplied> {
    if percent > Decimal::ONE_HUNDRED {
        let source = match figure {
            Figure::Expression(script) => script.source.trim().to_string(),
            Figure::Number(number) => number.to_string(),
        };
        let on = line.map_or(String::new(), |index| {
            format!(" on cart line {}", index + 1)
        });
        return Err(NotApplied::at_key(
            "percent",
            format!("`{source}` gave {percent}{on}: a percentage is at most 100"),
        ));
    }
    Ok(percent.max(Decimal::ZERO) / Decimal::ONE_HUNDRED)
}

/// What the discount campaign `discount` offers the cart in `facts`, before
/// it meets the other offers ([`crate::resources::discounts::settle`]): its
/// value and the lines it may take it off; the reason when it takes
/// nothing.
pub fn discount_offer(
    engine: &ScriptEngine,
    discount: &Discount,
    facts: &Facts,
    prepared: &PreparedFacts,
) -> Result<Reckoning, NotApplied> {
    let minor_units = facts.locale.minor_units;
    // Lines of Products marked `discountable: false` are never a base.
    let discountable = discountable_lines(&facts.cart);
    let eligible = matching_lines(engine, discount.lines.as_ref(), prepared, &discountable)?;
    let max_amount = discount.max_amount.map(|cap| round_money(cap, minor_units));
    let (worth, spread) = match &discount.applies_to {
        Target::Cart => {
            let worth = match &discount.off {
                Off::Percent(figure) => {
                    let percent = figure_value(engine, figure, "percent", prepared, None)?;
                    Worth::Rate(rate_of(percent, figure, None)?)
                }
                Off::Amount(figure) => {
                    let amount = figure_value(engine, figure, "amount", prepared, None)?;
                    Worth::Amount(round_money(amount.max(Decimal::ZERO), minor_units))
                }
                Off::Price(_) => Worth::Amount(Decimal::ZERO),
            };
            let spread = if eligible.iter().all(|e| *e) {
                Spread::Total
            } else {
                Spread::Eligible
            };
            (worth, spread)
        }
        Target::Lines => (
            line_worth(engine, &discount.off, prepared, &eligible, minor_units)?,
            Spread::PerLine,
        ),
        target => (
            unit_worth(engine, discount, target, facts, prepared, &eligible)?,
            Spread::PerLine,
        ),
    };
    Ok(Reckoning {
        worth,
        max_amount,
        eligible,
        spread,
    })
}

/// A line discount's worth: one rate or amount for every line, or each
/// line's own when it is an expression over the line.
fn line_worth(
    engine: &ScriptEngine,
    off: &Off,
    prepared: &PreparedFacts,
    eligible: &[bool],
    minor_units: u32,
) -> Result<Worth, NotApplied> {
    let (figure, key, kind) = match off {
        Off::Percent(Figure::Number(percent)) => {
            return Ok(Worth::Rate(percent / Decimal::ONE_HUNDRED));
        }
        Off::Amount(Figure::Number(amount)) => {
            return Ok(Worth::Amount(round_money(*amount, minor_units)));
        }
        Off::Price(_) => return Ok(Worth::Amount(Decimal::ZERO)),
        Off::Percent(figure) => (figure, "percent", DiscountType::Percent),
        Off::Amount(figure) => (figure, "amount", DiscountType::Amount),
    };
    let mut offs = Vec::with_capacity(eligible.len());
    for (index, eligible) in eligible.iter().enumerate() {
        if !eligible {
            offs.push(LineOff::Amount(Decimal::ZERO));
            continue;
        }
        let value = figure_value(engine, figure, key, prepared, Some(index))?;
        offs.push(match kind {
            DiscountType::Percent => LineOff::Rate(rate_of(value, figure, Some(index))?),
            DiscountType::Amount => {
                LineOff::Amount(round_money(value.max(Decimal::ZERO), minor_units))
            }
        });
    }
    Ok(Worth::PerLine { offs, kind })
}

/// What a discount that counts units takes off each line: every Nth unit,
/// the cheapest units, or the sets of a bundle or set; why nothing when the
/// cart has too few units.
fn unit_worth(
    engine: &ScriptEngine,
    discount: &Discount,
    target: &Target,
    facts: &Facts,
    prepared: &PreparedFacts,
    eligible: &[bool],
) -> Result<Worth, NotApplied> {
    let minor_units = facts.locale.minor_units;
    let amounts = facts.cart_amounts();
    let (off, kind) = match &discount.off {
        Off::Percent(figure) => {
            let percent = figure_value(engine, figure, "percent", prepared, None)?;
            (
                UnitOff::Rate(rate_of(percent, figure, None)?),
                DiscountType::Percent,
            )
        }
        Off::Amount(figure) => {
            let amount = figure_value(engine, figure, "amount", prepared, None)?;
            (
                UnitOff::Amount(round_money(amount.max(Decimal::ZERO), minor_units)),
                DiscountType::Amount,
            )
        }
        Off::Price(price) => (
            UnitOff::Price(round_money(*price, minor_units)),
            DiscountType::Amount,
        ),
    };
    let lines: Vec<LineUnits> = (0..eligible.len())
        .filter(|index| eligible[*index])
        .map(|index| LineUnits {
            index,
            price: amounts.prices.get(index).copied().unwrap_or_default(),
            units: amounts
                .quantities
                .get(index)
                .map(|quantity| quantity.floor().try_into().unwrap_or(0u64))
                .unwrap_or(0),
        })
        .collect();
    let held: u64 = lines.iter().map(|line| line.units).sum();
    let indexes: Vec<usize> = lines.iter().map(|line| line.index).collect();
    let ties = tie_keys(facts, &indexes);
    let offs = match target {
        Target::EveryNth { nth, max_units } => {
            if held < *nth {
                return Err(NotApplied::at_key(
                    "nth",
                    format!(
                        "the lines it counts hold {held} units; one in every {nth} is discounted"
                    ),
                ));
            }
            let taken = units::every_nth(&lines, &ties, *nth, *max_units);
            units::unit_offs(&lines, &taken, off, minor_units)
        }
        Target::Cheapest { units, min_units } => {
            if held < *min_units {
                return Err(NotApplied::at_key(
                    "min_units",
                    format!(
                        "the lines it counts hold {held} units; the cheapest are discounted from {min_units}"
                    ),
                ));
            }
            let taken = units::cheapest(&lines, &ties, *units, *min_units);
            units::unit_offs(&lines, &taken, off, minor_units)
        }
        Target::Bundle { parts, max_sets } => {
            let mut may_take = Vec::with_capacity(parts.len());
            for (number, part) in parts.iter().enumerate() {
                let mut takes = Vec::with_capacity(lines.len());
                for line in &lines {
                    takes.push(
                        engine
                            .eval_prepared(part, prepared, Some(line.index))
                            .map_err(|e| {
                                NotApplied::failed(
                                    "bundle",
                                    format!("bundle part {} failed: {e}", number + 1),
                                )
                            })?,
                    );
                }
                if !takes.contains(&true) {
                    return Err(NotApplied::at_key(
                        "bundle",
                        format!(
                            "no line of the cart is part {} of the bundle: `{}`",
                            number + 1,
                            part.source.trim()
                        ),
                    ));
                }
                may_take.push(takes);
            }
            let made = units::sets(&lines, &ties, &may_take, *max_sets);
            if made.is_empty() {
                return Err(NotApplied::at_key(
                    "bundle",
                    "the cart holds no whole bundle: a unit counts for one part only",
                ));
            }
            units::set_offs(&lines, &ties, &made, off, minor_units)
        }
        Target::Set { size, max_sets } => {
            if held < *size {
                return Err(NotApplied::at_key(
                    "size",
                    format!("the lines it counts hold {held} units; a set is {size}"),
                ));
            }
            let parts = vec![vec![true; lines.len()]; usize::try_from(*size).unwrap_or(usize::MAX)];
            let made = units::sets(&lines, &ties, &parts, *max_sets);
            units::set_offs(&lines, &ties, &made, off, minor_units)
        }
        Target::Cart | Target::Lines => Vec::new(),
    };
    let mut per_line = vec![LineOff::Amount(Decimal::ZERO); eligible.len()];
    for (line, off) in lines.iter().zip(offs) {
        per_line[line.index] = LineOff::Amount(off);
    }
    Ok(Worth::PerLine {
        offs: per_line,
        kind,
    })
}
