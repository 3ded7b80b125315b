//! A Customer's purchases as the facts read them: their totals
//! ([`PurchaseTotals`]) and by calendar day, what the store keeps of them
//! for `history` ([`crate::engine::history`]) and reads back in a range of
//! month records (`purchase_month`, see `schema.surql`).

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;

use crate::common::money::sum_exactly;

/// A Customer's purchase totals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PurchaseTotals {
    /// Sum of all purchases.
    pub lifetime_spend: f64,
    /// Number of purchases.
    pub cart_count: i64,
    /// When the latest purchase happened.
    pub last_purchase: Option<DateTime<Utc>>,
}

impl PurchaseTotals {
    /// The totals of `purchases`.
    pub fn of(purchases: &[(DateTime<Utc>, f64)]) -> Self {
        PurchaseTotals {
            lifetime_spend: sum_exactly(purchases.iter().map(|(_, amount)| *amount)),
            cart_count: purchases.len() as i64,
            last_purchase: purchases.iter().map(|(at, _)| *at).max(),
        }
    }
}

/// What a Customer bought on one day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PurchaseDay {
    /// The calendar day.
    pub day: NaiveDate,
    /// What its carts came to, exactly.
    pub spent: Decimal,
    /// How many carts.
    pub carts: i64,
}

/// `2026-11-02 12.5 3`: the day, what was spent, how many carts.
impl std::fmt::Display for PurchaseDay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.day, self.spent, self.carts)
    }
}

/// A Customer's purchases by day, oldest first, one entry per day.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PurchaseDays(Vec<PurchaseDay>);

/// `2026-11-01 3 1, 2026-11-02 0.3 2`: each day as [`PurchaseDay`] shows
/// it, oldest first.
impl std::fmt::Display for PurchaseDays {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (n, day) in self.0.iter().enumerate() {
            if n > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{day}")?;
        }
        Ok(())
    }
}

impl PurchaseDays {
    /// The days of `days`, in any order, a day given twice counted once
    /// with both amounts.
    pub fn of(days: impl IntoIterator<Item = PurchaseDay>) -> PurchaseDays {
        let mut history = PurchaseDays::default();
        for day in days {
            history.add(day.day, day.spent, day.carts);
        }
        history
    }

    /// One cart per `(date, total)` of `purchases`, each on its UTC day.
    #[cfg(test)]
    pub fn of_carts(purchases: &[(DateTime<Utc>, f64)]) -> PurchaseDays {
        PurchaseDays::of(purchases.iter().map(|(at, total)| PurchaseDay {
            day: at.date_naive(),
            spent: crate::common::money::decimal_from_f64(*total).unwrap_or_default(),
            carts: 1,
        }))
    }

    /// Adds `carts` carts worth `spent` on `day`.
    pub fn add(&mut self, day: NaiveDate, spent: Decimal, carts: i64) {
        match self.0.binary_search_by_key(&day, |known| known.day) {
            Ok(at) => {
                self.0[at].spent += spent;
                self.0[at].carts += carts;
            }
            Err(at) => self.0.insert(at, PurchaseDay { day, spent, carts }),
        }
    }

    /// The days, oldest first.
    pub fn days(&self) -> &[PurchaseDay] {
        &self.0
    }

    /// The days from `first` to `last`, both included.
    pub fn between(&self, first: NaiveDate, last: NaiveDate) -> &[PurchaseDay] {
        let from = self.0.partition_point(|known| known.day < first);
        let to = self.0.partition_point(|known| known.day <= last);
        &self.0[from..to.max(from)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn spent(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    #[test]
    fn a_day_given_twice_is_one_day_with_both() {
        let mut days = PurchaseDays::of([
            PurchaseDay {
                day: day("2026-11-02"),
                spent: spent("0.1"),
                carts: 1,
            },
            PurchaseDay {
                day: day("2026-11-01"),
                spent: spent("3"),
                carts: 1,
            },
        ]);
        days.add(day("2026-11-02"), spent("0.2"), 1);
        let listed: Vec<(NaiveDate, Decimal, i64)> = days
            .days()
            .iter()
            .map(|d| (d.day, d.spent, d.carts))
            .collect();
        assert_eq!(
            listed,
            [
                (day("2026-11-01"), spent("3"), 1),
                (day("2026-11-02"), spent("0.3"), 2)
            ]
        );
    }
}
