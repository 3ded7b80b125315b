//! Cashback: how many points convert into how much wallet money at each
//! store, and the thresholds a balance must reach first. One file per
//! Company, `cashback.yaml`:
//!
//! ```yaml
//! exchanges:
//!   - location: default     # every store without an exchange of its own
//!     points: 100           # this many points ...
//!     amount: 500           # ... convert into this much wallet money (cents)
//!   - location: STORE1
//!     points: 100
//!     amount: 600
//! thresholds:
//!   - location: default
//!     min_points: 500       # the balance needed before converting
//!     step: 100             # points convert in multiples of this
//! ```

use std::path::Path;

use serde::Deserialize;

use crate::engine::script::RuleError;

/// The name of the cashback file in a Company's directory.
pub const CASHBACK_FILE: &str = "cashback.yaml";

/// The location name that applies to every store without its own entry.
pub const DEFAULT_LOCATION: &str = "default";

/// A conversion rate.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// Location code, or `default`.
    pub location: String,
    /// Points converted ...
    pub points: i64,
    /// ... into this much wallet money (cents).
    pub amount: i64,
}

/// What a balance must reach before it converts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    /// Location code, or `default`.
    pub location: String,
    /// Smallest balance that may convert.
    pub min_points: i64,
    /// Points convert in multiples of this.
    pub step: i64,
}

/// A Company's cashback rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cashback {
    /// Conversion rates.
    #[serde(default)]
    pub exchanges: Vec<Exchange>,
    /// Thresholds.
    #[serde(default)]
    pub thresholds: Vec<Threshold>,
}

impl Cashback {
    /// Parses and checks `cashback.yaml`.
    pub fn parse(path: &Path, text: &str) -> Result<Cashback, Vec<RuleError>> {
        let cashback: Cashback = serde_yaml::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            vec![RuleError::new(path, line, e.to_string()).with_column(column)]
        })?;
        let mut errors = Vec::new();
        let line_of = |location: &str, nth: usize| {
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains("location:") && l.contains(location))
                .nth(nth)
                .map_or(0, |(i, _)| i + 1)
        };
        for (index, exchange) in cashback.exchanges.iter().enumerate() {
            let seen = cashback.exchanges[..index]
                .iter()
                .filter(|e| e.location == exchange.location)
                .count();
            if seen > 0 {
                errors.push(RuleError::new(
                    path,
                    line_of(&exchange.location, seen),
                    format!("location `{}` has two exchanges", exchange.location),
                ));
            }
            if exchange.points <= 0 || exchange.amount <= 0 {
                errors.push(RuleError::new(
                    path,
                    line_of(&exchange.location, seen),
                    "an exchange converts more than 0 points into more than 0",
                ));
            }
        }
        let exchanges = cashback.exchanges.len();
        for (index, threshold) in cashback.thresholds.iter().enumerate() {
            let seen = cashback.thresholds[..index]
                .iter()
                .filter(|t| t.location == threshold.location)
                .count();
            let before = cashback
                .exchanges
                .iter()
                .filter(|e| e.location == threshold.location)
                .count()
                .min(exchanges);
            if seen > 0 {
                errors.push(RuleError::new(
                    path,
                    line_of(&threshold.location, before + seen),
                    format!("location `{}` has two thresholds", threshold.location),
                ));
            }
            if threshold.min_points < 0 || threshold.step < 1 {
                errors.push(RuleError::new(
                    path,
                    line_of(&threshold.location, before + seen),
                    "a threshold has min_points of at least 0 and a step of at least 1",
                ));
            }
        }
        if errors.is_empty() {
            Ok(cashback)
        } else {
            Err(errors)
        }
    }

    /// The exchange at `location`, or the default one.
    pub fn exchange(&self, location: &str) -> Option<&Exchange> {
        self.exchanges
            .iter()
            .find(|e| e.location == location)
            .or_else(|| {
                self.exchanges
                    .iter()
                    .find(|e| e.location == DEFAULT_LOCATION)
            })
    }

    /// The threshold at `location`, or the default one.
    pub fn threshold(&self, location: &str) -> Option<&Threshold> {
        self.thresholds
            .iter()
            .find(|t| t.location == location)
            .or_else(|| {
                self.thresholds
                    .iter()
                    .find(|t| t.location == DEFAULT_LOCATION)
            })
    }

    /// Points of `balance` that may convert at `location` now, and the wallet
    /// money they give; `None` when the location has no exchange.
    pub fn convertible(&self, location: &str, balance: i64) -> Option<(i64, i64)> {
        let exchange = self.exchange(location)?;
        let (min_points, step) = self
            .threshold(location)
            .map_or((0, exchange.points), |t| (t.min_points, t.step.max(1)));
        if balance < min_points || balance <= 0 {
            return Some((0, 0));
        }
        // Whole steps, and whole exchange units, of the balance.
        let unit = lcm(step, exchange.points);
        let points = balance / unit * unit;
        Some((points, points / exchange.points * exchange.amount))
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

fn lcm(a: i64, b: i64) -> i64 {
    (a / gcd(a, b)).saturating_mul(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "exchanges:\n  - location: default\n    points: 100\n    amount: 500\n  - location: STORE1\n    points: 100\n    amount: 600\nthresholds:\n  - location: default\n    min_points: 500\n    step: 50\n";

    #[test]
    fn a_location_uses_its_own_exchange_or_the_default() {
        let cashback = Cashback::parse(Path::new("cashback.yaml"), FILE).unwrap();
        assert_eq!(cashback.exchange("STORE1").unwrap().amount, 600);
        assert_eq!(cashback.exchange("STORE9").unwrap().amount, 500);
        assert_eq!(
            cashback.convertible("STORE1", 499),
            Some((0, 0)),
            "below min_points"
        );
        assert_eq!(cashback.convertible("STORE1", 780), Some((700, 4200)));
        let none = Cashback::default();
        assert_eq!(none.convertible("STORE1", 1000), None);
    }

    #[test]
    fn problems_are_reported_with_their_line() {
        let text = "exchanges:\n  - location: A\n    points: 0\n    amount: 5\n  - location: A\n    points: 1\n    amount: 5\nthresholds:\n  - location: A\n    min_points: 1\n    step: 0\n";
        let errors: Vec<String> = Cashback::parse(Path::new("c.yaml"), text)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            errors.iter().any(|e| e.starts_with("c.yaml:2:")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with("c.yaml:5:") && e.contains("two exchanges")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with("c.yaml:9:") && e.contains("step")),
            "{errors:?}"
        );
    }
}
