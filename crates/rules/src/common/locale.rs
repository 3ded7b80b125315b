//! [`Locale`]: how a Company counts money (its currency's minor unit) and
//! time (its IANA time zone). Amounts are rounded to the minor unit; the
//! weekday, hour and date conditions see, and the days Instant Win periods
//! count, are the Company's local ones.

use chrono::{DateTime, Days, LocalResult, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

use crate::common::money::DEFAULT_MINOR_UNITS;
use crate::common::time::Timestamp;

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

    /// The date and time the Company's clocks show at `at`.
    pub fn wall_clock(&self, at: DateTime<Utc>) -> NaiveDateTime {
        self.local(at).naive_local()
    }

    /// The instant the Company's clocks show `wall_clock`. A time the clocks
    /// skip (the hour lost in spring) is the instant they jump to; a time
    /// they show twice (the hour repeated in autumn) is the first of the two.
    pub fn instant(&self, wall_clock: NaiveDateTime) -> DateTime<Utc> {
        let zone = self.time_zone;
        let mut probe = wall_clock;
        // Gaps are at most a few hours; step forward a minute at a time.
        for _ in 0..(24 * 60) {
            match zone.from_local_datetime(&probe) {
                LocalResult::Single(at) | LocalResult::Ambiguous(at, _) => {
                    return at.with_timezone(&Utc);
                }
                LocalResult::None => probe += chrono::Duration::minutes(1),
            }
        }
        wall_clock.and_utc()
    }

    /// `days` calendar days after `at` on the Company's clock: the same
    /// wall-clock time, however long the days in between (23 or 25 hours
    /// around a daylight-saving change).
    pub fn days_after(&self, at: DateTime<Utc>, days: u32) -> DateTime<Utc> {
        let wall_clock = self.wall_clock(at);
        let later = wall_clock
            .checked_add_days(Days::new(u64::from(days)))
            .unwrap_or(wall_clock);
        self.instant(later)
    }
}

/// An instant a campaign names: with an offset (`2026-05-01T00:00:00Z`) that
/// instant; without one (`2026-05-01T00:00:00`) that time on the Company's
/// clocks, so a campaign starting at midnight starts at local midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CampaignTime {
    /// An instant.
    At(Timestamp),
    /// A wall-clock time in the Company's time zone.
    Local(NaiveDateTime),
}

impl CampaignTime {
    /// `text` as an instant, or as a wall-clock time when it has no offset.
    pub fn parse(text: &str) -> Option<CampaignTime> {
        if let Ok(at) = text.parse::<Timestamp>() {
            return Some(CampaignTime::At(at));
        }
        [
            "%Y-%m-%dT%H:%M:%S%.f",
            "%Y-%m-%dT%H:%M:%S",
            "%Y-%m-%dT%H:%M",
        ]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .map(CampaignTime::Local)
    }

    /// The instant it names for a Company in `locale`.
    pub fn instant(self, locale: &Locale) -> Timestamp {
        match self {
            CampaignTime::At(at) => at,
            CampaignTime::Local(wall_clock) => Timestamp::from(locale.instant(wall_clock)),
        }
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

    fn madrid() -> Locale {
        Locale {
            time_zone: "Europe/Madrid".parse().unwrap(),
            ..Locale::default()
        }
    }

    fn utc(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn a_day_is_a_day_across_daylight_saving_changes() {
        // Madrid moves to summer time on 2026-03-29 (a 23-hour day) and back
        // on 2026-10-25 (a 25-hour day).
        let before_spring = utc("2026-03-28T23:30:00Z"); // 00:30 local on the 29th
        assert_eq!(
            madrid().days_after(before_spring, 1),
            utc("2026-03-29T22:30:00Z")
        );
        let before_autumn = utc("2026-10-24T22:30:00Z"); // 00:30 local on the 25th
        assert_eq!(
            madrid().days_after(before_autumn, 1),
            utc("2026-10-25T23:30:00Z")
        );
    }

    #[test]
    fn wall_clock_times_the_clocks_skip_or_repeat_have_one_instant() {
        let skipped =
            NaiveDateTime::parse_from_str("2026-03-29T02:30:00", "%Y-%m-%dT%H:%M:%S").unwrap();
        assert_eq!(madrid().instant(skipped), utc("2026-03-29T01:00:00Z"));
        let repeated =
            NaiveDateTime::parse_from_str("2026-10-25T02:30:00", "%Y-%m-%dT%H:%M:%S").unwrap();
        assert_eq!(madrid().instant(repeated), utc("2026-10-25T00:30:00Z"));
    }

    #[test]
    fn campaign_times_without_an_offset_are_local() {
        let local = CampaignTime::parse("2026-05-01T00:00:00").unwrap();
        assert_eq!(local.instant(&madrid()).to_string(), "2026-04-30T22:00:00Z");
        assert_eq!(
            local.instant(&Locale::default()).to_string(),
            "2026-05-01T00:00:00Z"
        );
        let fixed = CampaignTime::parse("2026-05-01T00:00:00Z").unwrap();
        assert_eq!(fixed.instant(&madrid()).to_string(), "2026-05-01T00:00:00Z");
        assert_eq!(CampaignTime::parse("May 1st"), None);
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
