//! How far a Customer's events go towards a goal, on the Company's
//! calendar: the period an event falls in (calendar or from enrolment), the
//! events that count on a day (a rolling window, the first ones of each
//! sub-period), and the count, sum, streak or periods in a row they make.

use chrono::{Datelike, Days, Months, NaiveDate};
use rust_decimal::Decimal;

use crate::resources::challenges::goal::Measure;
use crate::resources::challenges::progress::Counted;
use crate::resources::challenges::rules::Challenge;
use crate::resources::challenges::rules::PeriodStart;
use crate::resources::instant_wins::rules::Period;

/// A position on a line of periods: consecutive periods are one apart.
pub fn ordinal(period: Period, day: NaiveDate) -> i64 {
    match period {
        Period::Day => i64::from(day.num_days_from_ce()),
        Period::Week => {
            let monday = day - Days::new(u64::from(day.weekday().num_days_from_monday()));
            i64::from(monday.num_days_from_ce()) / 7
        }
        Period::Month => i64::from(day.year()) * 12 + i64::from(day.month0()),
        Period::Year => i64::from(day.year()),
        Period::Campaign => 0,
    }
}

/// The key of the Challenge's period containing `day`, for a Customer who
/// enrolled on `enrolled_on`.
pub fn period_key(challenge: &Challenge, enrolled_on: Option<NaiveDate>, day: NaiveDate) -> String {
    match enrolment_period_start(challenge, enrolled_on, day) {
        Some(begins) => format!("from {begins}"),
        None => challenge.period.key(day.and_time(chrono::NaiveTime::MIN)),
    }
}

/// The first day after the Challenge's period containing `day`; `None` for
/// a period as long as the Challenge.
pub fn period_end(
    challenge: &Challenge,
    enrolled_on: Option<NaiveDate>,
    day: NaiveDate,
) -> Option<NaiveDate> {
    let begins = match enrolment_period_start(challenge, enrolled_on, day) {
        Some(begins) => begins,
        None => match challenge.period {
            Period::Day => day,
            Period::Week => day - Days::new(u64::from(day.weekday().num_days_from_monday())),
            Period::Month => day.with_day(1)?,
            Period::Year => day.with_ordinal(1)?,
            Period::Campaign => return None,
        },
    };
    match challenge.period {
        Period::Day => begins.checked_add_days(Days::new(1)),
        Period::Week => begins.checked_add_days(Days::new(7)),
        Period::Month => begins.checked_add_months(Months::new(1)),
        Period::Year => begins.checked_add_months(Months::new(12)),
        Period::Campaign => None,
    }
}

/// The first day of the enrolment-based period holding `day`; `None` when
/// periods follow the calendar.
fn enrolment_period_start(
    challenge: &Challenge,
    enrolled_on: Option<NaiveDate>,
    day: NaiveDate,
) -> Option<NaiveDate> {
    let start = match (challenge.period_starts, enrolled_on) {
        (PeriodStart::Enrollment, Some(start)) if start <= day => start,
        _ => return None,
    };
    let begins = match challenge.period {
        Period::Day => day,
        Period::Week => start + Days::new(((day - start).num_days() / 7 * 7) as u64),
        Period::Month | Period::Year => {
            let step = if challenge.period == Period::Month {
                1
            } else {
                12
            };
            let mut months = (ordinal(Period::Month, day) - ordinal(Period::Month, start)) as u32;
            months -= months % step;
            let mut begins = start.checked_add_months(Months::new(months)).unwrap_or(day);
            while begins > day && months >= step {
                months -= step;
                begins = start.checked_add_months(Months::new(months)).unwrap_or(day);
            }
            begins
        }
        Period::Campaign => start,
    };
    Some(begins)
}

/// The events of `counted` that count on `today`: a rolling window drops
/// older ones; `max_count_per_period` keeps the first ones of each period.
pub fn effective<'a>(
    challenge: &Challenge,
    counted: &'a [Counted],
    today: NaiveDate,
) -> Vec<&'a Counted> {
    let goal = &challenge.goal;
    let mut kept: Vec<&Counted> = counted
        .iter()
        .filter(|c| {
            goal.window_days
                .is_none_or(|days| (today - c.day).num_days() < days)
        })
        .collect();
    if let (Some(per), Some(max)) = (goal.per_period, goal.max_count_per_period) {
        let mut seen: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
        kept.retain(|c| {
            let n = seen.entry(ordinal(per, c.day)).or_default();
            *n += 1;
            *n <= max
        });
    }
    kept
}

/// The value an event list reaches: a count or a sum.
fn reached(measure: &Measure, events: &[&Counted]) -> Decimal {
    match measure {
        Measure::Sum { .. } => events.iter().map(|c| c.amount).sum(),
        Measure::Count(_) | Measure::Streak { .. } => Decimal::from(events.len() as i64),
    }
}

/// The length of the run of `ordinals` (ascending, distinct) that ends at
/// its last, gaps of at most `grace` allowed; 0 when it ended before
/// `today_ordinal` with more than `grace` missed since.
fn run_length(ordinals: &[i64], grace: i64, today_ordinal: i64) -> i64 {
    let Some(&last) = ordinals.last() else {
        return 0;
    };
    if today_ordinal - last - 1 > grace {
        return 0;
    }
    let mut length = 1;
    for pair in ordinals.windows(2).rev() {
        if pair[1] - pair[0] - 1 > grace {
            break;
        }
        length += 1;
    }
    length
}

/// The progress of `counted` on `today`, not capped.
pub fn measure(challenge: &Challenge, counted: &[Counted], today: NaiveDate) -> Decimal {
    let goal = &challenge.goal;
    let events = effective(challenge, counted, today);
    if let Measure::Streak {
        unit, grace_days, ..
    } = &goal.measure
    {
        let mut ordinals: Vec<i64> = events.iter().map(|c| ordinal(*unit, c.day)).collect();
        ordinals.sort_unstable();
        ordinals.dedup();
        let grace = if *unit == Period::Day { *grace_days } else { 0 };
        return Decimal::from(run_length(&ordinals, grace, ordinal(*unit, today)));
    }
    let (Some(per), Some(_)) = (goal.per_period, goal.consecutive) else {
        return reached(&goal.measure, &events);
    };
    // Each period meets the measure or not; progress is the periods met in a row.
    let per_period_target = match &goal.measure {
        Measure::Count(count) => Decimal::from(*count),
        Measure::Sum { target, .. } => *target,
        Measure::Streak { .. } => Decimal::ZERO,
    };
    let mut periods: Vec<i64> = events.iter().map(|c| ordinal(per, c.day)).collect();
    periods.sort_unstable();
    periods.dedup();
    let met: Vec<i64> = periods
        .into_iter()
        .filter(|p| {
            let of_period: Vec<&Counted> = events
                .iter()
                .copied()
                .filter(|c| ordinal(per, c.day) == *p)
                .collect();
            reached(&goal.measure, &of_period) >= per_period_target
        })
        .collect();
    Decimal::from(run_length(&met, 0, ordinal(per, today)))
}

/// Drops the events that can no longer matter: before the current streak
/// or run of periods, or out of the window.
pub fn prune(challenge: &Challenge, counted: &mut Vec<Counted>, today: NaiveDate) {
    let goal = &challenge.goal;
    if let Some(days) = goal.window_days {
        counted.retain(|c| (today - c.day).num_days() < days);
    }
    let (unit, grace) = match (&goal.measure, goal.per_period, goal.consecutive) {
        (
            Measure::Streak {
                unit, grace_days, ..
            },
            _,
            _,
        ) => (*unit, *grace_days),
        (_, Some(per), Some(_)) => (per, 0),
        _ => return,
    };
    // Events of the run, and for a run of periods the current one too.
    let mut ordinals: Vec<i64> = counted.iter().map(|c| ordinal(unit, c.day)).collect();
    ordinals.sort_unstable();
    ordinals.dedup();
    let mut start = ordinals.last().copied().unwrap_or(0);
    for pair in ordinals.windows(2).rev() {
        if pair[1] - pair[0] - 1 > grace {
            break;
        }
        start = pair[0];
    }
    counted.retain(|c| ordinal(unit, c.day) >= start);
}
