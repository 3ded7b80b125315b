//! The Challenge fields of a campaign file (`kind: challenge`), checked and
//! compiled into a [`Challenge`]: which events count (`on`, `when`), the
//! goal they reach, over which period, whether it repeats, what completing
//! it gives, and what a returned cart does to it.
//!
//! ```yaml
//! id: 501
//! kind: challenge
//! name: { en: Three coffees a week }
//! on: cart                        # or { custom_event: TYPE } or { trigger: TYPE }
//! when: cart.total >= 3.0         # which events count
//! enrollment: automatic           # or required (POST /challenges/501/enroll)
//! goal: { count: 3 }              # or { sum: cart.total, target: 100 }
//!                                 # or { streak: { days: 5 }, grace_days: 1 }
//! period: week                    # day | week | month | year | campaign (default)
//! period_starts: calendar         # or enrollment
//! repeat: each_period             # never (default) | each_period | once_completed
//! reward: { points: 100 }         # or { reward: 402 }, { coupon: 31 }, { game: 301 }
//! on_return: revoke               # keep (default) | revoke
//! ```

use rust_decimal::Decimal;
use serde::Deserialize;

use crate::common::amount::Amount;
use crate::engine::kinds::Reference;
use crate::engine::problems::Problems;
use crate::resources::challenges::goal::Goal;
use crate::resources::challenges::goal::GoalFile;
use crate::resources::challenges::goal::Measure;
use crate::resources::discounts::rules::CompileExpression;
use crate::resources::instant_wins::rules::Period;
use crate::resources::points::model::MAX_POINTS;

/// The Challenge fields written at the top level of a campaign file.
#[derive(Debug, Default)]
pub struct ChallengeFields {
    pub goal: Option<GoalFile>,
    pub enrollment: Option<String>,
    pub period: Option<String>,
    pub period_starts: Option<String>,
    pub repeat: Option<String>,
    pub reward: Option<ChallengeRewardFile>,
    pub on_return: Option<String>,
}

/// `reward:` of a Challenge: exactly one of its fields.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ChallengeRewardFile {
    #[serde(default)]
    points: Option<i64>,
    #[serde(default)]
    reward: Option<i64>,
    #[serde(default)]
    coupon: Option<i64>,
    #[serde(default)]
    game: Option<i64>,
}

/// Whether events count before the Customer enrols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enrollment {
    /// Every Customer takes part; the first event that counts enrols them.
    Automatic,
    /// Only Customers enrolled through POST /challenges/{id}/enroll.
    Required,
}

/// When a period starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeriodStart {
    /// On the calendar (Monday, the 1st), on the Company's clocks.
    Calendar,
    /// On the day the Customer enrolled.
    Enrollment,
}

/// Whether a completed Challenge starts again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// Completed at most once per Customer.
    Never,
    /// Completed at most once per period.
    EachPeriod,
    /// Starts again as soon as it is completed.
    OnceCompleted,
}

/// What a completed Challenge gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeReward {
    /// Points, credited in the completing event's transaction.
    Points(i64),
    /// A Reward of the catalogue, held by the Customer (`available`).
    Reward(i64),
    /// A Voucher of a Coupon.
    Coupon(i64),
    /// One participation in a game.
    Game(i64),
}

/// What cancelling an event that counted does to a completion it made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnReturn {
    /// The completion and its grant stand; only the progress goes back.
    Keep,
    /// The completion is revoked and its grant reversed, once.
    Revoke,
}

/// A compiled Challenge.
#[derive(Debug, Clone)]
pub struct Challenge {
    /// The goal.
    pub goal: Goal,
    /// Who takes part.
    pub enrollment: Enrollment,
    /// The period progress counts over.
    pub period: Period,
    /// When a period starts.
    pub period_starts: PeriodStart,
    /// Whether it repeats.
    pub repeat: Repeat,
    /// What completing it gives.
    pub reward: ChallengeReward,
    /// What a return does.
    pub on_return: OnReturn,
}

impl Challenge {
    /// The other campaigns it names.
    pub fn references(&self) -> Vec<Reference> {
        let (kind, id, what) = match self.reward {
            ChallengeReward::Points(_) => return Vec::new(),
            ChallengeReward::Reward(id) => ("reward", id, "Reward"),
            ChallengeReward::Coupon(id) => ("coupon", id, "Voucher of Coupon"),
            ChallengeReward::Game(id) => ("game", id, "participation in game"),
        };
        vec![Reference {
            kind,
            id,
            key: "reward:",
            what: format!("completing the Challenge gives a {what} {id}"),
        }]
    }

    /// The goal's target, as responses show it.
    pub fn target(&self) -> Amount {
        Amount(match (&self.goal.consecutive, &self.goal.measure) {
            (Some(consecutive), _) => Decimal::from(*consecutive),
            (None, Measure::Count(count)) => Decimal::from(*count),
            (None, Measure::Sum { target, .. }) => *target,
            (None, Measure::Streak { length, .. }) => Decimal::from(*length),
        })
    }
}

/// `name` among `names`, or a problem at `key` listing them.
fn one_of<T: Copy>(
    problems: &mut Problems<'_>,
    key: &str,
    value: Option<&str>,
    names: &[(&str, T)],
    default: T,
) -> Option<T> {
    let Some(value) = value else {
        return Some(default);
    };
    let found = names
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, v)| *v);
    if found.is_none() {
        let listed: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
        problems.at_key(
            key,
            format!("`{key}: {value}` is not known; use {}", listed.join(", ")),
        );
    }
    found
}

impl ChallengeFields {
    /// The Challenge; every problem goes to `problems`.
    pub fn compile(
        self,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
    ) -> Option<Challenge> {
        let errors_before = problems.errors.len();
        let enrollment = one_of(
            problems,
            "enrollment",
            self.enrollment.as_deref(),
            &[
                ("automatic", Enrollment::Automatic),
                ("required", Enrollment::Required),
            ],
            Enrollment::Automatic,
        );
        let periods: Vec<(&str, Period)> = Period::ALL.to_vec();
        let period = one_of(
            problems,
            "period",
            self.period.as_deref(),
            &periods,
            Period::Campaign,
        );
        let period_starts = one_of(
            problems,
            "period_starts",
            self.period_starts.as_deref(),
            &[
                ("calendar", PeriodStart::Calendar),
                ("enrollment", PeriodStart::Enrollment),
            ],
            PeriodStart::Calendar,
        );
        let repeat = one_of(
            problems,
            "repeat",
            self.repeat.as_deref(),
            &[
                ("never", Repeat::Never),
                ("each_period", Repeat::EachPeriod),
                ("once_completed", Repeat::OnceCompleted),
            ],
            Repeat::Never,
        );
        let on_return = one_of(
            problems,
            "on_return",
            self.on_return.as_deref(),
            &[("keep", OnReturn::Keep), ("revoke", OnReturn::Revoke)],
            OnReturn::Keep,
        );
        if repeat == Some(Repeat::EachPeriod) && period == Some(Period::Campaign) {
            problems.at_key(
                "repeat",
                "`repeat: each_period` needs a `period` (day, week, month or year)",
            );
        }
        if period_starts == Some(PeriodStart::Enrollment) && period == Some(Period::Campaign) {
            problems.at_key(
                "period_starts",
                "`period_starts: enrollment` needs a `period` (day, week, month or year)",
            );
        }
        let goal = match self.goal {
            Some(goal) => goal.compile(problems, compile),
            None => {
                problems.at_key(
                    "kind",
                    "a challenge needs a `goal`: { count: N }, { sum: EXPRESSION, target: N } or { streak: { days: N } }",
                );
                None
            }
        };
        let reward = match self.reward {
            Some(reward) => reward.compile(problems),
            None => {
                problems.at_key(
                    "kind",
                    "a challenge needs a `reward`: { points: N }, { reward: ID }, { coupon: ID } or { game: ID }",
                );
                None
            }
        };
        if problems.errors.len() > errors_before {
            return None;
        }
        Some(Challenge {
            goal: goal?,
            enrollment: enrollment?,
            period: period?,
            period_starts: period_starts?,
            repeat: repeat?,
            reward: reward?,
            on_return: on_return?,
        })
    }
}

impl ChallengeRewardFile {
    fn compile(self, problems: &mut Problems<'_>) -> Option<ChallengeReward> {
        let given: Vec<ChallengeReward> = [
            self.points.map(ChallengeReward::Points),
            self.reward.map(ChallengeReward::Reward),
            self.coupon.map(ChallengeReward::Coupon),
            self.game.map(ChallengeReward::Game),
        ]
        .into_iter()
        .flatten()
        .collect();
        let [reward] = given[..] else {
            problems.at_key(
                "reward",
                "`reward` is one of { points: N }, { reward: ID }, { coupon: ID } or { game: ID }",
            );
            return None;
        };
        let valid = match reward {
            ChallengeReward::Points(points) => (1..=MAX_POINTS).contains(&points),
            ChallengeReward::Reward(id)
            | ChallengeReward::Coupon(id)
            | ChallengeReward::Game(id) => id > 0,
        };
        if !valid {
            problems.at_key(
                "reward",
                format!("`reward` points are from 1 to {MAX_POINTS}, and ids above 0"),
            );
            return None;
        }
        Some(reward)
    }
}
