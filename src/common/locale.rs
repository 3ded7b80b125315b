//! [`Locale`]: how a Company counts money (its currency's minor unit) and
//! time (its IANA time zone). Amounts are rounded to the minor unit; the
//! weekday, hour and date conditions see, and the days Instant Win periods
//! count, are the Company's local ones.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::common::money::DEFAULT_MINOR_UNITS;

/// A Company's currency and time zone, as evaluation needs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Locale {
    /// Decimals of the currency's minor unit (2 for EUR, 0 for JPY).
    pub minor_units: u32,
    /// Where the Company's days begin and end.
    pub time_zone: Tz,
}

impl Default for Locale {
    /// Cents and UTC: what a Company has until it says otherwise.
    fn default() -> Self {
        Locale {
            minor_units: DEFAULT_MINOR_UNITS,
            time_zone: Tz::UTC,
        }
    }
}

impl Locale {
    /// `at` on the Company's wall clock.
    pub fn local(&self, at: DateTime<Utc>) -> DateTime<Tz> {
        at.with_timezone(&self.time_zone)
    }
}

/// Decimals of the minor unit of the ISO 4217 `currency`: 2 unless it is one
/// of the currencies with none or with three.
pub fn currency_minor_units(currency: &str) -> u32 {
    const NONE: &[&str] = &[
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND",
        "VUV", "XAF", "XOF", "XPF",
    ];
    const THREE: &[&str] = &["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"];
    if NONE.contains(&currency) {
        0
    } else if THREE.contains(&currency) {
        3
    } else {
        2
    }
}

/// Whether `currency` is written as an ISO 4217 code: three capital letters.
pub fn is_currency_code(currency: &str) -> bool {
    currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn currencies_have_their_minor_units() {
        assert_eq!(currency_minor_units("EUR"), 2);
        assert_eq!(currency_minor_units("JPY"), 0);
        assert_eq!(currency_minor_units("KWD"), 3);
        assert!(is_currency_code("EUR"));
        assert!(!is_currency_code("eur"));
        assert!(!is_currency_code("EURO"));
    }

    #[test]
    fn the_local_clock_follows_daylight_saving() {
        let madrid = Locale {
            time_zone: "Europe/Madrid".parse().unwrap(),
            ..Locale::default()
        };
        let winter = "2026-01-15T23:30:00Z".parse::<DateTime<Utc>>().unwrap();
        let summer = "2026-07-15T23:30:00Z".parse::<DateTime<Utc>>().unwrap();
        assert_eq!(
            madrid.local(winter).to_rfc3339(),
            "2026-01-16T00:30:00+01:00"
        );
        assert_eq!(
            madrid.local(summer).to_rfc3339(),
            "2026-07-16T01:30:00+02:00"
        );
    }
}
