//! A Customer's progress in a Challenge, and the pure rules that move it:
//! an event that counts ([`advance`]), an event given back by a return
//! ([`give_back`]) and what the Customer sees on a day ([`standing`]).
//!
//! Progress is never a running total: the record keeps the events that count
//! in the current period (their day and amount), and progress is measured
//! from them. A cancelled cart is taken out and progress measured again, so
//! progress always equals what the events that still count make.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;
use crate::resources::challenges::measure::effective;
use crate::resources::challenges::measure::measure;
use crate::resources::challenges::measure::ordinal;
use crate::resources::challenges::measure::period_key;
use crate::resources::challenges::measure::prune;
use crate::resources::challenges::rules::Challenge;
use crate::resources::challenges::rules::ChallengeReward;
use crate::resources::challenges::rules::Enrollment;
use crate::resources::challenges::rules::OnReturn;
use crate::resources::challenges::rules::Repeat;

/// One event that counts towards a Challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counted {
    /// The event: `cart:CODE`, `custom_event:ID` or `trigger:ID`.
    pub source: String,
    /// Its day on the Company's clocks.
    pub day: NaiveDate,
    /// Its amount (1 for a count or a streak).
    pub amount: Decimal,
}

/// What a completion gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Grant {
    /// Points credited.
    Points {
        /// How many.
        points: i64,
    },
    /// A Reward held by the Customer.
    Reward {
        /// The Reward.
        reward_id: i64,
        /// The reward transaction recording it.
        transaction_id: String,
    },
    /// A Voucher issued.
    Voucher {
        /// Its Coupon.
        coupon_id: i64,
        /// Its code.
        code: String,
    },
    /// A game participation.
    Game {
        /// The game.
        game_id: i64,
    },
}

/// One completion of a Challenge by a Customer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    /// The period it completed.
    pub period: String,
    /// When.
    pub completed_at: Timestamp,
    /// The events that made it.
    pub counted: Vec<Counted>,
    /// What it gave; `None` when it gave nothing (a re-completion in a
    /// period whose grant was given already).
    pub granted: Option<Grant>,
    /// When a return revoked it.
    #[serde(default)]
    pub revoked_at: Option<Timestamp>,
}

/// A Customer's record of one Challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ChallengeRecord {
    /// The Challenge.
    pub rule_id: i64,
    /// The Customer.
    pub customer_id: String,
    /// Moves by one with every write: a write names the version it read.
    pub version: i64,
    /// When the Customer enrolled (or their first event counted).
    pub enrolled_at: Option<Timestamp>,
    /// That day on the Company's clocks, where enrolment-based periods start.
    pub enrolled_on: Option<NaiveDate>,
    /// The period `counted` belongs to.
    pub period: String,
    /// The events that count in it.
    pub counted: Vec<Counted>,
    /// Every completion, oldest first.
    pub completions: Vec<Completion>,
}

/// The event offered to a Challenge.
#[derive(Debug, Clone)]
pub struct Offered {
    /// Its source key.
    pub source: String,
    /// Its day on the Company's clocks.
    pub day: NaiveDate,
    /// Its amount (a `sum` goal's), 1 otherwise.
    pub amount: Decimal,
    /// When it was received.
    pub at: Timestamp,
}

/// An event that counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Advanced {
    /// The record to write.
    pub record: ChallengeRecord,
    /// The progress made, at most the target.
    pub progress: Decimal,
    /// The target.
    pub target: Decimal,
    /// Whether this event completed it.
    pub completed: bool,
    /// What the completion gives (its grant is filled in by the caller).
    pub grants: Option<ChallengeReward>,
}

/// Whether the Challenge is done for the period `key`: nothing more counts.
fn finished(challenge: &Challenge, record: &ChallengeRecord, key: &str) -> Option<Timestamp> {
    let standing = |c: &&Completion| c.revoked_at.is_none();
    match challenge.repeat {
        Repeat::Never => record.completions.iter().find(standing),
        Repeat::EachPeriod => record
            .completions
            .iter()
            .filter(standing)
            .find(|c| c.period == key),
        Repeat::OnceCompleted => None,
    }
    .map(|c| c.completed_at)
}

/// Whether a completion in period `key` gives the reward: at most once per
/// Customer (`never`) or per period, however often a return revoked one and
/// the Customer completed again.
fn grants(challenge: &Challenge, record: &ChallengeRecord, key: &str) -> bool {
    let in_scope = |c: &&Completion| challenge.repeat == Repeat::Never || c.period == key;
    let granted = record
        .completions
        .iter()
        .filter(in_scope)
        .filter(|c| c.granted.is_some())
        .count();
    let standing = record
        .completions
        .iter()
        .filter(in_scope)
        .filter(|c| c.revoked_at.is_none())
        .count();
    match challenge.repeat {
        Repeat::Never | Repeat::EachPeriod => granted == 0,
        Repeat::OnceCompleted => granted <= standing,
    }
}

/// A Customer's record as it stands on `day`: a new period leaves the
/// events of the one before behind.
fn in_period(challenge: &Challenge, record: &ChallengeRecord, day: NaiveDate) -> ChallengeRecord {
    let mut record = record.clone();
    let key = period_key(challenge, record.enrolled_on, day);
    if record.period != key {
        record.counted.clear();
        record.period = key;
    }
    record
}

/// The event `offered` counted towards `challenge` for the Customer whose
/// record is `record` (none yet: never enrolled, nothing counted); why it
/// does not count otherwise.
pub fn advance(
    challenge: &Challenge,
    record: Option<&ChallengeRecord>,
    rule_id: i64,
    customer_id: &str,
    offered: &Offered,
) -> Result<Advanced, String> {
    let enrolled = record.is_some_and(|r| r.enrolled_at.is_some());
    if challenge.enrollment == Enrollment::Required && !enrolled {
        return Err(format!(
            "the Customer is not enrolled (enrollment: required; POST /challenges/{rule_id}/enroll)"
        ));
    }
    let mut record = match record {
        Some(record) => record.clone(),
        None => ChallengeRecord {
            rule_id,
            customer_id: customer_id.to_string(),
            ..ChallengeRecord::default()
        },
    };
    if record.enrolled_at.is_none() {
        record.enrolled_at = Some(offered.at);
        record.enrolled_on = Some(offered.day);
    }
    let mut record = in_period(challenge, &record, offered.day);
    let key = record.period.clone();
    if let Some(at) = finished(challenge, &record, &key) {
        return Err(match challenge.repeat {
            Repeat::Never => format!("completed at {at}; it does not repeat"),
            _ => format!("completed at {at} for this period; it counts again in the next"),
        });
    }
    let already = record.counted.iter().any(|c| c.source == offered.source)
        || record
            .completions
            .iter()
            .any(|c| c.counted.iter().any(|e| e.source == offered.source));
    if already {
        return Err(format!("{} was counted already", offered.source));
    }
    if offered.amount <= Decimal::ZERO {
        return Err(format!(
            "the amount to add is {}: nothing counts",
            offered.amount
        ));
    }
    let goal = &challenge.goal;
    if let (Some(per), Some(max)) = (goal.per_period, goal.max_count_per_period) {
        let this = ordinal(per, offered.day);
        let in_this = effective(challenge, &record.counted, offered.day)
            .iter()
            .filter(|c| ordinal(per, c.day) == this)
            .count() as i64;
        if in_this >= max {
            return Err(format!(
                "only {max} event(s) per {} count, and this {}'s are counted",
                per.name(),
                per.name()
            ));
        }
    }
    record.counted.push(Counted {
        source: offered.source.clone(),
        day: offered.day,
        amount: offered.amount,
    });
    prune(challenge, &mut record.counted, offered.day);
    let target = challenge.target().0;
    let progress = measure(challenge, &record.counted, offered.day);
    record.version += 1;
    let completed = progress >= target;
    let mut grant = None;
    if completed {
        if grants(challenge, &record, &key) {
            grant = Some(challenge.reward);
        }
        let counted = if challenge.repeat == Repeat::OnceCompleted {
            std::mem::take(&mut record.counted)
        } else {
            record.counted.clone()
        };
        record.completions.push(Completion {
            period: key,
            completed_at: offered.at,
            counted,
            granted: None,
            revoked_at: None,
        });
    }
    Ok(Advanced {
        record,
        progress: progress.min(target),
        target,
        completed,
        grants: grant,
    })
}

/// The record once the event `source` is returned on `today` at `at`, and
/// the grant to reverse when a completion it made is revoked; `None` when
/// the event never counted.
pub fn give_back(
    challenge: &Challenge,
    record: &ChallengeRecord,
    source: &str,
    today: NaiveDate,
    at: Timestamp,
) -> Option<(ChallengeRecord, Option<Grant>)> {
    let mut record = record.clone();
    let counted_before = record.counted.len();
    record.counted.retain(|c| c.source != source);
    let mut changed = record.counted.len() != counted_before;
    let mut reversed = None;
    let made = record
        .completions
        .iter()
        .rposition(|c| c.revoked_at.is_none() && c.counted.iter().any(|e| e.source == source));
    if let (Some(index), OnReturn::Revoke) = (made, challenge.on_return) {
        let completion = &mut record.completions[index];
        completion.revoked_at = Some(at);
        reversed = completion.granted.clone();
        changed = true;
        // Its other events count again, when they are of the current period.
        if challenge.repeat == Repeat::OnceCompleted && completion.period == record.period {
            let others: Vec<Counted> = completion
                .counted
                .iter()
                .filter(|e| e.source != source)
                .cloned()
                .collect();
            record.counted.extend(others);
        }
    }
    if !changed {
        return None;
    }
    prune(challenge, &mut record.counted, today);
    record.version += 1;
    Some((record, reversed))
}

/// What a Customer sees of a Challenge on `today`.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// The current period's key.
    pub period: String,
    /// Progress, at most the target.
    pub progress: Decimal,
    /// The target.
    pub target: Decimal,
    /// Whether it is completed (for this period, when it repeats each one).
    pub completed: bool,
    /// Completions that stand (not revoked).
    pub completions: i64,
}

/// `record` as it stands on `today` (none: nothing counted yet).
pub fn standing(
    challenge: &Challenge,
    record: Option<&ChallengeRecord>,
    today: NaiveDate,
) -> Standing {
    let target = challenge.target().0;
    let Some(record) = record else {
        return Standing {
            period: period_key(challenge, None, today),
            progress: Decimal::ZERO,
            target,
            completed: false,
            completions: 0,
        };
    };
    let current = in_period(challenge, record, today);
    let done = finished(challenge, &current, &current.period).is_some();
    let progress = if done {
        target
    } else {
        measure(challenge, &current.counted, today).min(target)
    };
    let completed = match challenge.repeat {
        Repeat::OnceCompleted => current
            .completions
            .iter()
            .any(|c| c.revoked_at.is_none() && c.period == current.period),
        _ => done,
    };
    Standing {
        period: current.period,
        progress,
        target,
        completed,
        completions: record
            .completions
            .iter()
            .filter(|c| c.revoked_at.is_none())
            .count() as i64,
    }
}
