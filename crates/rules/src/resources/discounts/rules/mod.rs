//! Discounts: the `discount:` section of a campaign file and what it
//! compiles to ([`Discount`]); what it offers a cart ([`offer`]), with the
//! units, bundles and sets it counts ([`units`]). Offers are settled with
//! the other discounts and Vouchers in
//! [`crate::resources::discounts::settle`], so a cart never costs less than
//! nothing.

pub mod offer;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
pub mod units;

use rust_decimal::Decimal;
use serde::Deserialize;

use crate::common::money::decimal_from_f64;
use crate::engine::problems::Problems;
use crate::engine::script::Script;

pub use offer::discount_offer;
pub use offer::tie_keys;

/// A number written in the file, or a rhai expression worked out exactly
/// (in decimals) for each cart, or each line of a line discount.
#[derive(Debug, Clone)]
pub enum Figure {
    /// As written.
    Number(Decimal),
    /// Worked out for each cart (line).
    Expression(Script),
}

impl Figure {
    /// The number, when it is one.
    pub fn number(&self) -> Option<Decimal> {
        match self {
            Figure::Number(number) => Some(*number),
            Figure::Expression(_) => None,
        }
    }
}

/// What a discount takes off what it is given on.
#[derive(Debug, Clone)]
pub enum Off {
    /// A percentage (more than 0, at most 100).
    Percent(Figure),
    /// A fixed amount (more than 0).
    Amount(Figure),
    /// What each unit (every Nth, cheapest) or each set (bundle, set) costs:
    /// the difference is taken off, never more than its worth.
    Price(Decimal),
}

/// What a discount is given on.
#[derive(Debug, Clone)]
pub enum Target {
    /// The whole cart, shared over its lines.
    Cart,
    /// Each line `lines` matches, on its own worth.
    Lines,
    /// Every `nth` unit of the matching lines, counted together: the
    /// cheapest `units / nth` of them.
    EveryNth {
        /// 2 or more.
        nth: u64,
        /// Most units discounted in one cart ("3 for 2, at most 2 free").
        max_units: Option<u64>,
    },
    /// The `units` cheapest units of the matching lines, once the cart holds
    /// `min_units` of them.
    Cheapest {
        /// How many units (1 or more).
        units: u64,
        /// How many the cart must hold (more than `units`).
        min_units: u64,
    },
    /// Sets of one unit matching each part (buy A and B), as many as the
    /// cart makes, at most `max_sets`, the dearest units first.
    Bundle {
        /// A line condition per part (2 or more).
        parts: Vec<Script>,
        /// Most sets per cart.
        max_sets: Option<u64>,
    },
    /// Sets of `size` units of the matching lines (3 for 10.00).
    Set {
        /// 2 or more.
        size: u64,
        /// Most sets per cart.
        max_sets: Option<u64>,
    },
}

impl Target {
    /// `applies_to` as written.
    pub fn name(&self) -> &'static str {
        match self {
            Target::Cart => "cart",
            Target::Lines => "lines",
            Target::EveryNth { .. } => "every_nth",
            Target::Cheapest { .. } => "cheapest",
            Target::Bundle { .. } => "bundle",
            Target::Set { .. } => "set",
        }
    }

    /// Whether it counts units (everything but `cart` and `lines`).
    pub fn counts_units(&self) -> bool {
        !matches!(self, Target::Cart | Target::Lines)
    }

    /// Every `applies_to` value.
    pub const NAMES: [&'static str; 6] =
        ["cart", "lines", "every_nth", "cheapest", "bundle", "set"];
}

/// A discount on the cart, its lines or its units.
#[derive(Debug, Clone)]
pub struct Discount {
    /// What it is given on.
    pub applies_to: Target,
    /// Which lines it may take something off (or whose units it counts);
    /// `None`: every line.
    pub lines: Option<Script>,
    /// What it takes off.
    pub off: Off,
    /// Most the discount may take off a cart.
    pub max_amount: Option<Decimal>,
}

impl Discount {
    /// Every expression of the section.
    pub fn expressions(&self) -> Vec<&Script> {
        let mut expressions: Vec<&Script> = self.lines.iter().collect();
        if let Target::Bundle { parts, .. } = &self.applies_to {
            expressions.extend(parts);
        }
        if let Off::Percent(Figure::Expression(script)) | Off::Amount(Figure::Expression(script)) =
            &self.off
        {
            expressions.push(script);
        }
        expressions
    }
}

/// Most units in a set (`size`), and parts in a bundle.
const MOST_IN_A_SET: u64 = 100;

/// A `percent:` or `amount:` as written: a number (read as the decimal it
/// is written as), or an expression.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum WrittenFigure {
    Whole(i64),
    Number(f64),
    Expression(String),
}

impl WrittenFigure {
    /// The number, when it is one.
    fn number(&self) -> Option<Decimal> {
        match self {
            WrittenFigure::Whole(whole) => Some(Decimal::from(*whole)),
            WrittenFigure::Number(number) => decimal_from_f64(*number),
            WrittenFigure::Expression(_) => None,
        }
    }
}

/// The `discount:` section as written. Amounts are read as the decimals
/// they are written as (`0.1` is exactly a tenth).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscountFile {
    applies_to: String,
    #[serde(default)]
    lines: Option<String>,
    #[serde(default)]
    percent: Option<WrittenFigure>,
    #[serde(default)]
    amount: Option<WrittenFigure>,
    #[serde(default)]
    price: Option<Decimal>,
    #[serde(default)]
    max_amount: Option<Decimal>,
    #[serde(default)]
    nth: Option<u64>,
    #[serde(default)]
    units: Option<u64>,
    #[serde(default)]
    max_units: Option<u64>,
    #[serde(default)]
    min_units: Option<u64>,
    #[serde(default)]
    bundle: Option<Vec<String>>,
    #[serde(default)]
    size: Option<u64>,
    #[serde(default)]
    max_sets: Option<u64>,
}

/// Compiles an expression of the campaign file: (problems, key, source, the
/// extra variables it sees).
pub type CompileExpression<'c> =
    dyn Fn(&mut Problems<'_>, &str, &str, &[&str]) -> Option<Script> + 'c;

impl DiscountFile {
    /// The discount it describes; every problem goes to `problems`.
    pub fn compile(
        self,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
    ) -> Option<Discount> {
        let target = self.target(problems, compile);
        let lines = self.lines_condition(problems, compile);
        let sees_line = self.applies_to == "lines";
        let off = self.off(problems, compile, sees_line);
        if self.max_amount.is_some_and(|m| m <= Decimal::ZERO) {
            problems.at_key("max_amount", "max_amount is more than 0");
        }
        if self.max_sets == Some(0) {
            problems.at_key("max_sets", "max_sets is 1 or more");
        }
        Some(Discount {
            applies_to: target?,
            lines,
            off: off?,
            max_amount: self.max_amount,
        })
    }

    /// `applies_to` and the keys only some targets have.
    fn target(
        &self,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
    ) -> Option<Target> {
        let kind = self.applies_to.as_str();
        // Each key and the targets it belongs to.
        let owned: [(&str, bool, &[&str]); 7] = [
            ("nth", self.nth.is_some(), &["every_nth"]),
            ("max_units", self.max_units.is_some(), &["every_nth"]),
            ("units", self.units.is_some(), &["cheapest"]),
            ("min_units", self.min_units.is_some(), &["cheapest"]),
            ("bundle", self.bundle.is_some(), &["bundle"]),
            ("size", self.size.is_some(), &["set"]),
            ("max_sets", self.max_sets.is_some(), &["bundle", "set"]),
        ];
        for (key, written, targets) in owned {
            if written && Target::NAMES.contains(&kind) && !targets.contains(&kind) {
                problems.at_key(
                    key,
                    format!(
                        "`{key}` is only for `applies_to: {}`",
                        targets.join("` or `")
                    ),
                );
            }
        }
        let at_least =
            |problems: &mut Problems<'_>, key: &str, value: Option<u64>, least: u64| match value {
                Some(value) if value >= least => Some(value),
                Some(_) => {
                    problems.at_key(key, format!("{key} is {least} or more"));
                    None
                }
                None => {
                    problems.at_key(
                        "applies_to",
                        format!("`applies_to: {kind}` needs `{key}` ({least} or more)"),
                    );
                    None
                }
            };
        match kind {
            "cart" => Some(Target::Cart),
            "lines" => Some(Target::Lines),
            "every_nth" => {
                if self.max_units == Some(0) {
                    problems.at_key("max_units", "max_units is 1 or more");
                }
                Some(Target::EveryNth {
                    nth: at_least(problems, "nth", self.nth, 2)?,
                    max_units: self.max_units,
                })
            }
            "cheapest" => {
                let units = self.units.unwrap_or(1);
                if units == 0 {
                    problems.at_key("units", "units is 1 or more");
                    return None;
                }
                let min_units = self.min_units.unwrap_or(units + 1);
                if min_units <= units {
                    problems.at_key(
                        "min_units",
                        format!("min_units is more than units ({units}): the Customer pays for at least one unit"),
                    );
                    return None;
                }
                Some(Target::Cheapest { units, min_units })
            }
            "bundle" => {
                let Some(sources) = &self.bundle else {
                    problems.at_key(
                        "applies_to",
                        "`applies_to: bundle` needs `bundle`: a line condition per part (2 or more)",
                    );
                    return None;
                };
                if sources.len() < 2 || sources.len() as u64 > MOST_IN_A_SET {
                    problems.at_key(
                        "bundle",
                        format!("a bundle has 2 parts or more, at most {MOST_IN_A_SET}"),
                    );
                    return None;
                }
                let parts: Vec<Option<Script>> = sources
                    .iter()
                    .map(|source| compile(problems, "bundle", source, &["line"]))
                    .collect();
                Some(Target::Bundle {
                    parts: parts.into_iter().collect::<Option<Vec<Script>>>()?,
                    max_sets: self.max_sets,
                })
            }
            "set" => {
                let size = at_least(problems, "size", self.size, 2)?;
                if size > MOST_IN_A_SET {
                    problems.at_key("size", format!("size is at most {MOST_IN_A_SET}"));
                    return None;
                }
                Some(Target::Set {
                    size,
                    max_sets: self.max_sets,
                })
            }
            other => {
                problems.at_key(
                    "applies_to",
                    format!(
                        "applies_to is one of {}, not `{other}`",
                        Target::NAMES.join(", ")
                    ),
                );
                None
            }
        }
    }

    /// The `lines` condition: required by `lines`, optional where units are
    /// counted, not for `cart` and `bundle` (whose parts say it).
    fn lines_condition(
        &self,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
    ) -> Option<Script> {
        match (self.applies_to.as_str(), &self.lines) {
            ("lines", None) => {
                problems.at_key(
                    "applies_to",
                    "`applies_to: lines` needs a `lines` condition (it sees `line`)",
                );
                None
            }
            ("cart", Some(_)) => {
                problems.at_key("lines", "`lines` is not for `applies_to: cart`");
                None
            }
            ("bundle", Some(_)) => {
                problems.at_key(
                    "lines",
                    "`lines` is not for `applies_to: bundle`: each part of `bundle` is a line condition",
                );
                None
            }
            (_, Some(source)) => compile(problems, "lines", source, &["line"]),
            (_, None) => None,
        }
    }

    /// Exactly one of `percent`, `amount` and `price` (which only units and
    /// sets have); an expression sees `line` in a line discount.
    fn off(
        &self,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
        sees_line: bool,
    ) -> Option<Off> {
        let extra: &[&str] = if sees_line { &["line"] } else { &[] };
        let mut figure = |key: &str,
                          written: &WrittenFigure,
                          valid: fn(Decimal) -> bool,
                          rule: &str| match (written, written.number()) {
            (WrittenFigure::Expression(source), _) => {
                compile(problems, key, source, extra).map(Figure::Expression)
            }
            (_, Some(number)) if valid(number) => Some(Figure::Number(number)),
            _ => {
                problems.at_key(key, rule);
                None
            }
        };
        let counts_units = !matches!(self.applies_to.as_str(), "cart" | "lines");
        match (&self.percent, &self.amount, self.price) {
            (Some(percent), None, None) => figure(
                "percent",
                percent,
                |p| p > Decimal::ZERO && p <= Decimal::ONE_HUNDRED,
                "percent is more than 0 and at most 100",
            )
            .map(Off::Percent),
            (None, Some(amount), None) => figure(
                "amount",
                amount,
                |a| a > Decimal::ZERO,
                "amount is more than 0",
            )
            .map(Off::Amount),
            (None, None, Some(_)) if !counts_units => {
                problems.at_key(
                    "price",
                    "`price` is for units and sets (`applies_to: every_nth`, `cheapest`, `bundle` or `set`); use `percent` or `amount`",
                );
                None
            }
            (None, None, Some(price)) if price >= Decimal::ZERO => Some(Off::Price(price)),
            (None, None, Some(_)) => {
                problems.at_key("price", "price is 0 (free) or more");
                None
            }
            _ => {
                let keys = if counts_units {
                    "`percent`, `amount` and `price`"
                } else {
                    "`percent` and `amount`"
                };
                problems.at_key("discount", format!("a discount has exactly one of {keys}"));
                None
            }
        }
    }
}
