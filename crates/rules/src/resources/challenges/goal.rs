//! The `goal:` of a Challenge file, checked and compiled: what is measured
//! (`count`, `sum` or `streak`) and how events are grouped
//! (`per_period`, `consecutive`, `max_count_per_period`, `window`).

use rust_decimal::Decimal;
use serde::Deserialize;

use crate::common::amount::Amount;
use crate::engine::problems::Problems;
use crate::engine::script::Script;
use crate::resources::discounts::rules::CompileExpression;
use crate::resources::instant_wins::rules::Period;

/// `goal:` of a Challenge: one of `count`, `sum` or `streak`, and how
/// events are grouped.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct GoalFile {
    #[serde(default)]
    count: Option<i64>,
    #[serde(default)]
    sum: Option<String>,
    #[serde(default)]
    target: Option<f64>,
    #[serde(default)]
    streak: Option<StreakFile>,
    #[serde(default)]
    grace_days: Option<i64>,
    #[serde(default)]
    per_period: Option<String>,
    #[serde(default)]
    consecutive: Option<i64>,
    #[serde(default)]
    max_count_per_period: Option<i64>,
    #[serde(default)]
    window: Option<WindowFile>,
}

/// `streak:` of a goal: `{ days: N }` or `{ weeks: N }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreakFile {
    #[serde(default)]
    days: Option<i64>,
    #[serde(default)]
    weeks: Option<i64>,
}

/// `window:` of a goal: the last N days.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowFile {
    days: i64,
}

/// What a goal measures.
#[derive(Debug, Clone)]
pub enum Measure {
    /// Events that count.
    Count(i64),
    /// An amount of each event (`sum`), added up to `target`.
    Sum {
        /// The expression giving the amount.
        amount: Script,
        /// What the amounts add up to.
        target: Decimal,
    },
    /// Consecutive days or weeks with an event that counts.
    Streak {
        /// `Day` or `Week`.
        unit: Period,
        /// How many in a row.
        length: i64,
        /// Days without an event a day streak survives between two.
        grace_days: i64,
    },
}

/// A Challenge's goal.
#[derive(Debug, Clone)]
pub struct Goal {
    /// What is measured.
    pub measure: Measure,
    /// The sub-period `consecutive` and `max_count_per_period` count in.
    pub per_period: Option<Period>,
    /// Sub-periods in a row that each reach the measure.
    pub consecutive: Option<i64>,
    /// Events that count in one sub-period, at most.
    pub max_count_per_period: Option<i64>,
    /// Only events of the last N days count.
    pub window_days: Option<i64>,
}

/// A count that must be at least one, or a problem at `key`.
pub fn positive(problems: &mut Problems<'_>, key: &str, value: i64, what: &str) -> Option<i64> {
    if (1..=1_000_000).contains(&value) {
        Some(value)
    } else {
        problems.at_key(key, format!("`{what}` is from 1 to 1000000, not {value}"));
        None
    }
}

impl GoalFile {
    pub fn compile(
        self,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
    ) -> Option<Goal> {
        let chosen = [
            self.count.is_some(),
            self.sum.is_some(),
            self.streak.is_some(),
        ]
        .into_iter()
        .filter(|set| *set)
        .count();
        if chosen != 1 {
            problems.at_key(
                "goal",
                "a goal has exactly one of `count`, `sum` or `streak`",
            );
            return None;
        }
        let per_period = match self.per_period.as_deref() {
            None => None,
            Some(name) => match Period::parse(name).filter(|p| *p != Period::Campaign) {
                Some(period) => Some(period),
                None => {
                    problems.at_key(
                        "per_period",
                        format!("`per_period: {name}` is day, week, month or year"),
                    );
                    return None;
                }
            },
        };
        if self.target.is_some() && self.sum.is_none() {
            problems.at_key("target", "`target` belongs to a `sum` goal");
        }
        if self.grace_days.is_some() && self.streak.as_ref().is_none_or(|s| s.days.is_none()) {
            problems.at_key("grace_days", "`grace_days` belongs to a streak of days");
        }
        let measure = if let Some(count) = self.count {
            Measure::Count(positive(problems, "count", count, "goal.count")?)
        } else if let Some(source) = self.sum {
            let amount = compile(problems, "sum", &source, &[])?;
            let target = self
                .target
                .and_then(|t| Amount::from_json(&serde_json::json!(t)).ok())
                .filter(|t| t.0 > Decimal::ZERO);
            let Some(target) = target else {
                problems.at_key(
                    "sum",
                    "a `sum` goal needs a `target`: the amount to reach, above 0",
                );
                return None;
            };
            Measure::Sum {
                amount,
                target: target.0,
            }
        } else {
            let streak = self.streak?;
            let (unit, length) = match (streak.days, streak.weeks) {
                (Some(days), None) => (Period::Day, days),
                (None, Some(weeks)) => (Period::Week, weeks),
                _ => {
                    problems.at_key("streak", "a streak is `{ days: N }` or `{ weeks: N }`");
                    return None;
                }
            };
            if per_period.is_some() || self.window.is_some() {
                problems.at_key(
                    "streak",
                    "a streak counts days or weeks in a row by itself: no `per_period` or `window`",
                );
                return None;
            }
            let grace_days = self.grace_days.unwrap_or(0);
            if !(0..=30).contains(&grace_days) {
                problems.at_key("grace_days", "`grace_days` is from 0 to 30");
                return None;
            }
            Measure::Streak {
                unit,
                length: positive(problems, "streak", length, "streak")?,
                grace_days,
            }
        };
        let needs_period = |problems: &mut Problems<'_>, key: &str| {
            if per_period.is_none() {
                problems.at_key(
                    key,
                    format!("`{key}` counts within a `per_period` (day, week, month or year)"),
                );
            }
        };
        let consecutive = match self.consecutive {
            Some(n) => {
                needs_period(problems, "consecutive");
                Some(positive(problems, "consecutive", n, "consecutive")?)
            }
            None => None,
        };
        let max_count_per_period = match self.max_count_per_period {
            Some(n) => {
                needs_period(problems, "max_count_per_period");
                Some(positive(
                    problems,
                    "max_count_per_period",
                    n,
                    "max_count_per_period",
                )?)
            }
            None => None,
        };
        if per_period.is_some() && consecutive.is_none() && max_count_per_period.is_none() {
            problems.at_key(
                "per_period",
                "`per_period` groups events for `consecutive` or `max_count_per_period`",
            );
        }
        let window_days = match self.window {
            Some(window) => {
                if consecutive.is_some() {
                    problems.at_key("window", "a `window` and `consecutive` do not combine");
                }
                Some(positive(problems, "window", window.days, "window.days")?)
            }
            None => None,
        };
        Some(Goal {
            measure,
            per_period,
            consecutive,
            max_count_per_period,
            window_days,
        })
    }
}
