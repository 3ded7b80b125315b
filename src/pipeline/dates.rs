//! Which time decides what: the rule that keeps time from being bought.
//!
//! A cart's or an event's `date` is what the till or the app recorded: it is
//! kept, shown in history and reports, and counted in history windows
//! (`history.spent_last_days`). It decides nothing else. Availability
//! windows, weekdays and hours, Instant Win periods and recurrences, and
//! points expiry all use the time the service received the event, so a
//! back-dated or future-dated event cannot take part in a period twice, in a
//! campaign that has ended or not begun, or earn points that live longer.
//!
//! A `date` is also refused (400 `invalid_request`, nothing recorded) when it
//! is further ahead of the service's clock than a till's clock may drift, or
//! older than an offline till may take to send it; both are settings of
//! `loyalty serve`. Campaign kinds added later follow the same rule: they
//! read the evaluation instant (`facts.now`), never the client's date.

use chrono::Duration;

use crate::common::time::Timestamp;
use crate::error::{ApiError, ApiResult};

/// How far from the service's clock a sent `date` may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventDates {
    /// Latest a `date` may be after the time it is received.
    pub max_ahead: Duration,
    /// Earliest a `date` may be before the time it is received.
    pub max_age: Duration,
}

impl Default for EventDates {
    /// Ten minutes ahead (a till's clock drifting); 365 days old (an offline
    /// till catching up, or a batch import of last year).
    fn default() -> Self {
        EventDates {
            max_ahead: Duration::minutes(10),
            max_age: Duration::days(365),
        }
    }
}

impl EventDates {
    /// `date` when it is within the limits around `received`, otherwise
    /// 400 `invalid_request` saying which limit it passes.
    pub fn check(&self, date: Timestamp, received: Timestamp) -> ApiResult<Timestamp> {
        let (at, now) = (date.as_datetime(), received.as_datetime());
        if at > now + self.max_ahead {
            return Err(ApiError::invalid(format!(
                "`date` {date} is more than {} after the service's time ({received}); \
                 send when it happened, by a clock set right",
                describe(self.max_ahead)
            )));
        }
        if at < now - self.max_age {
            return Err(ApiError::invalid(format!(
                "`date` {date} is more than {} before the service's time ({received}); \
                 older events are not accepted",
                describe(self.max_age)
            )));
        }
        Ok(date)
    }
}

/// `span` in the largest whole unit that says it.
fn describe(span: Duration) -> String {
    let (amount, unit) = if span.num_seconds() % 86_400 == 0 {
        (span.num_days(), "day")
    } else if span.num_seconds() % 60 == 0 {
        (span.num_minutes(), "minute")
    } else {
        (span.num_seconds(), "second")
    };
    format!("{amount} {unit}{}", if amount == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn dates_near_the_clock_pass_and_others_say_which_limit() {
        let limits = EventDates::default();
        let now = at("2026-11-24T12:00:00Z");
        assert!(limits.check(at("2026-11-24T12:10:00Z"), now).is_ok());
        assert!(limits.check(at("2025-11-24T12:00:00Z"), now).is_ok());
        let ahead = limits.check(at("2026-11-24T12:10:01Z"), now).unwrap_err();
        assert!(
            ahead.message.contains("more than 10 minutes after"),
            "{}",
            ahead.message
        );
        let old = limits.check(at("2025-11-24T11:59:59Z"), now).unwrap_err();
        assert!(
            old.message.contains("more than 365 days before"),
            "{}",
            old.message
        );
    }
}
