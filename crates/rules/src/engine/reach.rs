//! When and for whom a campaign of any kind runs, beside its dates and
//! `locations`: the days of the week (`recurrence_type`, `recurrence_days`),
//! the hours of the day (`hours`), the Customer's tier (`tiers`) and the
//! event's country (`countries`). Read on the Company's clocks, or the
//! Location's when the event names one.
//!
//! ```yaml
//! recurrence_type: weekly          # daily | weekly
//! recurrence_days: [saturday, sunday]
//! hours: "08:00-12:00"             # from (included) to (excluded); "22:00-02:00" spans midnight
//! tiers: [gold, platinum]          # segments.yaml's tier ids
//! countries: [ES, PT]              # the event's Location's country, else the Customer's
//! ```

use chrono::Datelike;
use chrono::NaiveDateTime;
use chrono::NaiveTime;
use chrono::Timelike;
use chrono::Weekday;

use crate::engine::facts::Facts;
use crate::engine::fast::WEEKDAYS;
use crate::engine::not_applied::NotApplied;
use crate::engine::problems::Problems;
use crate::engine::why::Part;
use crate::engine::why::describe;
use crate::resources::master_data::matching::event_country;

/// The days a campaign runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recurrence {
    /// Every day.
    Daily,
    /// Only on these days of the week.
    Weekly(Vec<Weekday>),
}

impl Recurrence {
    /// Whether the campaign runs at `at` (wall-clock time).
    pub fn allows(&self, at: NaiveDateTime) -> bool {
        match self {
            Recurrence::Daily => true,
            Recurrence::Weekly(days) => days.contains(&at.weekday()),
        }
    }

    /// The interface's `recurrence_type`.
    pub fn kind(&self) -> &'static str {
        match self {
            Recurrence::Daily => "daily",
            Recurrence::Weekly(_) => "weekly",
        }
    }

    /// The interface's `recurrence_days`, lower-case English day names.
    pub fn days(&self) -> Vec<String> {
        match self {
            Recurrence::Daily => Vec::new(),
            Recurrence::Weekly(days) => days.iter().map(|d| day_name(*d).to_string()).collect(),
        }
    }
}

/// The name `weekday` gives `day`.
fn day_name(day: Weekday) -> &'static str {
    WEEKDAYS[day.num_days_from_monday() as usize]
}

/// The day named `name` (`monday`, `Mon`, ...).
pub fn parse_day(name: &str) -> Option<Weekday> {
    name.trim().to_lowercase().parse::<Weekday>().ok()
}

/// The hours of the day a campaign runs: from `from` (included) to `to`
/// (excluded), past midnight when `to` is before `from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hours {
    /// First minute it runs.
    pub from: NaiveTime,
    /// First minute it no longer runs.
    pub to: NaiveTime,
}

impl Hours {
    /// `"08:00-12:00"`.
    fn parse(text: &str) -> Option<Hours> {
        let (from, to) = text.split_once('-')?;
        let time = |part: &str| NaiveTime::parse_from_str(part.trim(), "%H:%M").ok();
        let hours = Hours {
            from: time(from)?,
            to: time(to)?,
        };
        (hours.from != hours.to).then_some(hours)
    }

    /// Whether `at` is within them.
    pub fn allows(&self, at: NaiveDateTime) -> bool {
        let time = at.time().with_second(0).unwrap_or(at.time());
        if self.from < self.to {
            self.from <= time && time < self.to
        } else {
            time >= self.from || time < self.to
        }
    }
}

impl std::fmt::Display for Hours {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}-{}",
            self.from.format("%H:%M"),
            self.to.format("%H:%M")
        )
    }
}

/// When and for whom a campaign runs; nothing written: always, everyone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reach {
    /// Its days.
    pub recurrence: Option<Recurrence>,
    /// Its hours.
    pub hours: Option<Hours>,
    /// The tier ids it is for.
    pub tiers: Vec<String>,
    /// The countries it runs in, upper case.
    pub countries: Vec<String>,
}

/// The reach fields of a campaign file, as written.
#[derive(Debug, Default)]
pub struct ReachFields {
    pub recurrence_type: Option<String>,
    pub recurrence_days: Vec<String>,
    pub hours: Option<String>,
    pub tiers: Vec<String>,
    pub countries: Vec<String>,
}

impl ReachFields {
    /// The reach they describe; every problem goes to `problems`.
    pub fn compile(self, problems: &mut Problems<'_>) -> Reach {
        let recurrence = match (
            self.recurrence_type.as_deref(),
            self.recurrence_days.is_empty(),
        ) {
            (None, true) => None,
            (None, false) | (Some("weekly"), false) => {
                // `recurrence_days` alone means weekly.
                let mut days = Vec::new();
                for name in &self.recurrence_days {
                    match parse_day(name) {
                        Some(day) if !days.contains(&day) => days.push(day),
                        Some(_) => {}
                        None => problems.at_key(
                            "recurrence_days",
                            format!("`{name}` is not a day of the week"),
                        ),
                    }
                }
                Some(Recurrence::Weekly(days))
            }
            (Some("daily"), true) => Some(Recurrence::Daily),
            (Some("daily"), false) => {
                problems.at_key(
                    "recurrence_days",
                    "a daily recurrence has no recurrence_days",
                );
                None
            }
            (Some("weekly"), true) => {
                problems.at_key(
                    "recurrence_type",
                    "a weekly recurrence needs recurrence_days, e.g. [monday, friday]",
                );
                None
            }
            (Some(other), _) => {
                problems.at_key(
                    "recurrence_type",
                    format!("recurrence_type is `daily` or `weekly`, not `{other}`"),
                );
                None
            }
        };
        let hours = self.hours.as_deref().and_then(|text| {
            let hours = Hours::parse(text);
            if hours.is_none() {
                problems.at_key(
                    "hours",
                    format!("hours are written \"HH:MM-HH:MM\" (\"08:00-12:00\"), two different times, not `{text}`"),
                );
            }
            hours
        });
        for country in &self.countries {
            if country.len() != 2 || !country.chars().all(|c| c.is_ascii_alphabetic()) {
                problems.at_key(
                    "countries",
                    format!("`{country}` is not a two-letter country code (ES, PT)"),
                );
            }
        }
        Reach {
            recurrence,
            hours,
            tiers: self.tiers,
            countries: self.countries.iter().map(|c| c.to_uppercase()).collect(),
        }
    }
}

impl Reach {
    /// Whether the event of `facts` is within its days and hours, for its
    /// tiers and in its countries; the reason, at the key that decided, when
    /// not.
    pub fn admits(&self, facts: &Facts) -> Result<(), NotApplied> {
        // Most campaigns say none of it: they pay no clock conversion.
        if self.recurrence.is_some() || self.hours.is_some() {
            self.on_time(facts.locale.wall_clock(facts.now))?;
        }
        self.in_countries(facts)?;
        self.in_tiers(facts)
    }

    /// Every reason it does not reach the event of `facts`, in the order
    /// its keys are checked (explanations name them all, not the first).
    pub fn refusals(&self, facts: &Facts) -> Vec<NotApplied> {
        let at = facts.locale.wall_clock(facts.now);
        [
            self.on_days(at),
            self.on_hours(at),
            self.in_countries(facts),
            self.in_tiers(facts),
        ]
        .into_iter()
        .filter_map(Result::err)
        .collect()
    }

    /// Whether the event's Location's country (else the Customer's) is one
    /// of its countries, when it names some.
    fn in_countries(&self, facts: &Facts) -> Result<(), NotApplied> {
        if self.countries.is_empty() {
            return Ok(());
        }
        match event_country(&facts.location, &facts.customer) {
            Some(country)
                if self
                    .countries
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(country)) =>
            {
                Ok(())
            }
            Some(country) => Err(NotApplied::at_key(
                "countries",
                format!(
                    "runs in {} only, not in {country} (the event's Location's country, else the Customer's)",
                    self.countries.join(", ")
                ),
            )),
            None => Err(NotApplied::at_key(
                "countries",
                format!(
                    "runs in {} only, and neither the event's Location nor the Customer has a country",
                    self.countries.join(", ")
                ),
            )),
        }
    }

    /// Whether the Customer's tier is one of its tiers, when it names some.
    /// Explained, the refusal names the Customer's tier and, for each of
    /// its tiers the Customer did not reach, the parts of that tier's
    /// condition that were false with the figures they read.
    fn in_tiers(&self, facts: &Facts) -> Result<(), NotApplied> {
        if self.tiers.is_empty() {
            return Ok(());
        }
        let tier = facts.tier.as_str().unwrap_or_default();
        if self.tiers.iter().any(|t| t == tier) {
            return Ok(());
        }
        let held = if tier.is_empty() {
            "the Customer has no tier".to_string()
        } else {
            format!("the Customer is {tier}")
        };
        let mut reason = format!("for tiers {} only, and {held}", self.tiers.join(", "));
        if !facts.explain {
            return Err(NotApplied::at_key("tiers", reason));
        }
        // `at` is left for the campaign to fill in: the place of `tiers:`.
        let mut parts = vec![Part {
            text: reason.clone(),
            was: false,
            at: String::new(),
            values: vec![("tier".to_string(), facts.tier.clone())],
            cart_line: None,
        }];
        for (missed, why) in &facts.tiers_missed {
            if self.tiers.contains(missed) && !why.is_empty() {
                reason.push_str(&format!("; {missed}: {}", describe(why)));
                parts.extend(why.iter().cloned());
            }
        }
        Err(NotApplied {
            reason,
            key: Some("tiers"),
            parts,
            failed: false,
        })
    }

    /// Whether `at` (wall-clock time) is within its days and hours.
    fn on_time(&self, at: NaiveDateTime) -> Result<(), NotApplied> {
        self.on_days(at)?;
        self.on_hours(at)
    }

    /// Whether `at` (wall-clock time) is on one of its recurrence days.
    fn on_days(&self, at: NaiveDateTime) -> Result<(), NotApplied> {
        match &self.recurrence {
            Some(recurrence) if !recurrence.allows(at) => Err(NotApplied::at_key(
                "recurrence_days",
                format!(
                    "runs only on {}, and it is {}",
                    match recurrence.days().as_slice() {
                        [] => "its recurrence days".to_string(),
                        days => days.join(", "),
                    },
                    day_name(at.weekday())
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Whether `at` (wall-clock time) is within its hours.
    fn on_hours(&self, at: NaiveDateTime) -> Result<(), NotApplied> {
        match &self.hours {
            Some(hours) if !hours.allows(at) => Err(NotApplied::at_key(
                "hours",
                format!("runs from {hours} only, and it is {}", at.format("%H:%M")),
            )),
            _ => Ok(()),
        }
    }

    /// Whether a campaign reaching this far can run on the day of `at`
    /// (events on other days need not read its state).
    pub fn runs_on(&self, at: NaiveDateTime) -> bool {
        self.recurrence.as_ref().is_none_or(|r| r.allows(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        text.parse().unwrap()
    }

    #[test]
    fn hours_include_their_start_exclude_their_end_and_may_span_midnight() {
        let morning = Hours::parse("08:00-12:00").unwrap();
        assert!(morning.allows(at("2026-05-04T08:00:00")));
        assert!(morning.allows(at("2026-05-04T11:59:59")));
        assert!(!morning.allows(at("2026-05-04T12:00:00")));
        let night = Hours::parse("22:00-02:00").unwrap();
        assert!(night.allows(at("2026-05-04T23:30:00")));
        assert!(night.allows(at("2026-05-05T01:59:00")));
        assert!(!night.allows(at("2026-05-05T02:00:00")));
        assert!(!night.allows(at("2026-05-05T12:00:00")));
        for wrong in ["8-12", "08:00", "08:00-08:00", "25:00-26:00"] {
            assert_eq!(Hours::parse(wrong), None, "{wrong}");
        }
    }
}
