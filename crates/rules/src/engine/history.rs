//! A Customer's purchase history as expressions read it (`history`): what it
//! spent and how many carts it made on each day ([`PurchaseDays`], kept by
//! the store in day buckets so that reading a year of it costs the same
//! whatever the Customer bought).
//!
//! A day is a calendar day where the purchase was made: the Location's time
//! zone when the cart names a Location that has one, the Company's
//! otherwise. `history.spent_last_days(n)` sums today (in the time zone of
//! the event being evaluated) and the `n - 1` days before it, the way a
//! retailer reads "the last 30 days"; a cancelled cart and its cancellation
//! count on no day.

use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rhai::{EvalAltResult, ImmutableString};

use crate::common::locale::Locale;
use crate::common::money::decimal_to_f64;
use crate::resources::carts::purchase_days::PurchaseDay;
use crate::resources::carts::purchase_days::PurchaseDays;

/// The purchase history, offered to expressions as `history`.
#[derive(Debug, Clone)]
pub struct History {
    pub days: Arc<PurchaseDays>,
    pub now: DateTime<Utc>,
    /// The event's clocks: which day is today, and a date without a time is
    /// its local midnight.
    pub locale: Locale,
}

impl History {
    /// The days of the last `days` days: today and the `days - 1` before it.
    fn within(&self, days: i64) -> &[PurchaseDay] {
        if days <= 0 {
            return &[];
        }
        let today = self.locale.local(self.now).date_naive();
        // Capped: a window of more days than any history holds reads it
        // all, and `Duration::days` would overflow on `i64::MAX`.
        let first = today - Duration::days(days.min(100_000) - 1);
        self.days.between(first, today)
    }

    /// What the Customer spent in the last `days` days, summed exactly (so
    /// 0.1 and 0.2 make 0.3) and handed over as a number.
    pub fn spent_last_days(&mut self, days: i64) -> f64 {
        decimal_to_f64(self.within(days).iter().map(|day| day.spent).sum())
    }

    /// How many carts the Customer made in the last `days` days.
    pub fn carts_last_days(&mut self, days: i64) -> i64 {
        self.within(days).iter().map(|day| day.carts).sum()
    }

    pub fn days_since(&mut self, date: ImmutableString) -> Result<i64, Box<EvalAltResult>> {
        let parsed = DateTime::parse_from_rfc3339(&date)
            .map(|d| d.with_timezone(&Utc))
            .or_else(|_| {
                NaiveDate::parse_from_str(&date, "%Y-%m-%d").map(|d| {
                    self.locale
                        .instant(d.and_hms_opt(0, 0, 0).unwrap_or_default())
                })
            })
            .map_err(|_| format!("days_since: `{date}` is not a Date or DateTime"))?;
        Ok((self.now - parsed).num_days())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use rust_decimal::Decimal;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn spent(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn history(now: &str, zone: &str, days: &[(&str, &str, i64)]) -> History {
        let locale = Locale {
            time_zone: zone.parse().unwrap(),
            ..Locale::default()
        };
        History {
            days: Arc::new(PurchaseDays::of(days.iter().map(|(d, s, carts)| {
                PurchaseDay {
                    day: day(d),
                    spent: spent(s),
                    carts: *carts,
                }
            }))),
            now: now.parse().unwrap(),
            locale,
        }
    }

    #[test]
    fn a_window_is_today_and_the_days_before_it_in_the_events_time_zone() {
        let days = [
            ("2026-10-28", "100", 1),
            ("2026-10-29", "0.1", 1),
            ("2026-11-26", "0.2", 2),
            ("2026-11-27", "5", 1),
            ("2026-11-28", "7", 1),
        ];
        // 23:30 UTC on the 27th is already the 28th in Madrid.
        let mut utc = history("2026-11-27T23:30:00Z", "UTC", &days);
        let mut madrid = history("2026-11-27T23:30:00Z", "Europe/Madrid", &days);
        assert_eq!(utc.spent_last_days(1), 5.0);
        assert_eq!(madrid.spent_last_days(1), 7.0);
        assert_eq!(utc.spent_last_days(2), 5.2);
        assert_eq!(utc.carts_last_days(2), 3);
        // 30 days from the 27th reach back to the 29th of October, exactly.
        assert_eq!(utc.spent_last_days(30), 5.3);
        assert_eq!(utc.spent_last_days(31), 105.3);
        assert_eq!(madrid.carts_last_days(31), 5);
        for nothing in [0, -3] {
            assert_eq!(utc.spent_last_days(nothing), 0.0);
            assert_eq!(utc.carts_last_days(nothing), 0);
        }
        assert_eq!(utc.carts_last_days(i64::MAX), 5);
    }
}
