//! What an export covers: a kind of record and a period.

use chrono::NaiveDate;
use poem_openapi::Enum;

use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;

/// The records an export writes, one JSON object per line, each in the
/// shape the API answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ExportWhat {
    /// Customers created in the period, as `GET /customers/{value}`.
    Customers,
    /// Carts dated in the period, cancellations included, as `GET /carts/{id}`.
    Carts,
    /// Points ledger entries written in the period, as
    /// `GET /points/transactions` lists them.
    Ledger,
    /// Custom Events dated in the period, as `GET /custom_events/{id}`.
    Events,
}

impl ExportWhat {
    /// Its name, as requests write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportWhat::Customers => "customers",
            ExportWhat::Carts => "carts",
            ExportWhat::Ledger => "ledger",
            ExportWhat::Events => "events",
        }
    }
}

impl std::str::FromStr for ExportWhat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "customers" => Ok(ExportWhat::Customers),
            "carts" => Ok(ExportWhat::Carts),
            "ledger" => Ok(ExportWhat::Ledger),
            "events" => Ok(ExportWhat::Events),
            other => Err(format!(
                "`{other}` is not exported: customers, carts, ledger or events"
            )),
        }
    }
}

/// The period an export covers: from `from` (included) to `to` (excluded);
/// either end open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Period {
    /// The first instant in it.
    pub from: Option<Timestamp>,
    /// The first instant after it.
    pub until: Option<Timestamp>,
}

impl Period {
    /// The period `from`..`to` as a request names it: each a day
    /// (`2026-11-01`: from its first instant on the Company's clocks, or to
    /// its last) or an instant (RFC 3339); `invalid_request` for anything
    /// else, or a `to` before `from`.
    pub fn read(from: Option<&str>, to: Option<&str>, locale: &Locale) -> ApiResult<Period> {
        let period = Period {
            from: from.map(|text| bound(text, locale, false)).transpose()?,
            until: to.map(|text| bound(text, locale, true)).transpose()?,
        };
        if let (Some(from), Some(until)) = (period.from, period.until)
            && until <= from
        {
            return Err(ApiError::invalid("`to` must come after `from`"));
        }
        Ok(period)
    }

    /// Whether `at` is in it.
    pub fn holds(&self, at: Timestamp) -> bool {
        self.from.is_none_or(|from| at >= from) && self.until.is_none_or(|until| at < until)
    }
}

/// One end of a period: a day's first instant on the Company's clocks (of
/// the next day when it ends the period), or an instant as written.
fn bound(text: &str, locale: &Locale, end: bool) -> ApiResult<Timestamp> {
    if let Ok(day) = text.parse::<NaiveDate>() {
        let day = if end {
            day.succ_opt().unwrap_or(day)
        } else {
            day
        };
        return Ok(Timestamp::from(
            locale.instant(day.and_time(chrono::NaiveTime::MIN)),
        ));
    }
    text.parse::<Timestamp>().map_err(|_| {
        ApiError::invalid(format!(
            "`{text}` is neither a day (2026-11-01) nor an instant (2026-11-01T09:30:00Z)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn madrid() -> Locale {
        Locale {
            minor_units: 2,
            time_zone: chrono_tz::Europe::Madrid,
        }
    }

    #[test]
    fn days_are_read_on_the_companys_clocks_and_a_to_day_is_included_whole() {
        let period = Period::read(Some("2026-11-01"), Some("2026-11-30"), &madrid()).unwrap();
        assert_eq!(period.from.unwrap().to_string(), "2026-10-31T23:00:00Z");
        assert_eq!(period.until.unwrap().to_string(), "2026-11-30T23:00:00Z");
        assert!(period.holds("2026-11-30T22:59:59Z".parse().unwrap()));
        assert!(!period.holds("2026-11-30T23:00:00Z".parse().unwrap()));
        assert!(!period.holds("2026-10-31T22:59:59Z".parse().unwrap()));
    }

    #[test]
    fn instants_are_taken_as_written_and_bad_periods_are_refused() {
        let period = Period::read(Some("2026-11-01T10:00:00Z"), None, &madrid()).unwrap();
        assert_eq!(period.from.unwrap().to_string(), "2026-11-01T10:00:00Z");
        assert_eq!(period.until, None);
        assert!(Period::read(Some("yesterday"), None, &madrid()).is_err());
        assert!(Period::read(Some("2026-11-02"), Some("2026-11-01"), &madrid()).is_err());
    }
}
