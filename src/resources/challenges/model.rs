//! What the Challenge operations answer: a Challenge as listed, a
//! Customer's standing in one with its completions, and what a completion
//! gave.

use poem_openapi::Object;

use crate::common::amount::Amount;
use crate::common::time::Timestamp;
use crate::resources::challenges::progress::Completion;
use crate::resources::challenges::progress::Grant;

/// What a Challenge's completion gave: `type` says which of the fields is set.
#[derive(Debug, Clone, PartialEq, Eq, Object)]
pub struct ChallengeGrantBody {
    /// `points`, `reward`, `voucher` or `game`.
    #[oai(rename = "type")]
    pub kind: String,
    /// Points credited.
    #[oai(skip_serializing_if_is_none)]
    pub points: Option<i64>,
    /// The Reward the Customer holds.
    #[oai(skip_serializing_if_is_none)]
    pub reward_id: Option<i64>,
    /// Its reward transaction (GET /rewards/transactions).
    #[oai(skip_serializing_if_is_none)]
    pub transaction_id: Option<String>,
    /// The Coupon of the Voucher issued.
    #[oai(skip_serializing_if_is_none)]
    pub coupon_id: Option<i64>,
    /// The Voucher's code.
    #[oai(skip_serializing_if_is_none)]
    pub voucher_code: Option<String>,
    /// The game a participation was given in.
    #[oai(skip_serializing_if_is_none)]
    pub game_id: Option<i64>,
}

impl From<Grant> for ChallengeGrantBody {
    fn from(grant: Grant) -> Self {
        let none = ChallengeGrantBody {
            kind: String::new(),
            points: None,
            reward_id: None,
            transaction_id: None,
            coupon_id: None,
            voucher_code: None,
            game_id: None,
        };
        match grant {
            Grant::Points { points } => ChallengeGrantBody {
                kind: "points".into(),
                points: Some(points),
                ..none
            },
            Grant::Reward {
                reward_id,
                transaction_id,
            } => ChallengeGrantBody {
                kind: "reward".into(),
                reward_id: Some(reward_id),
                transaction_id: Some(transaction_id),
                ..none
            },
            Grant::Voucher { coupon_id, code } => ChallengeGrantBody {
                kind: "voucher".into(),
                coupon_id: Some(coupon_id),
                voucher_code: Some(code),
                ..none
            },
            Grant::Game { game_id } => ChallengeGrantBody {
                kind: "game".into(),
                game_id: Some(game_id),
                ..none
            },
        }
    }
}

/// A Challenge as GET /challenges lists it.
#[derive(Debug, Clone, PartialEq, Object)]
pub struct ChallengeView {
    /// The Challenge's id (its campaign's).
    pub id: i64,
    /// Its name, in the response language.
    pub name: String,
    /// Its description, in the response language.
    #[oai(skip_serializing_if_is_none)]
    pub description: Option<String>,
    /// What it listens to: `cart`, `custom_event:TYPE` or `trigger:TYPE`.
    pub counts: String,
    /// `count`, `sum` or `streak`.
    pub goal: String,
    /// What completes it (events, an amount, days or weeks in a row, or
    /// periods in a row).
    pub target: Amount,
    /// `day`, `week`, `month`, `year` or `campaign`.
    pub period: String,
    /// `never`, `each_period` or `once_completed`.
    pub repeat: String,
    /// `automatic` or `required`.
    pub enrollment: String,
    /// What completing it gives.
    pub reward: ChallengeGrantBody,
    /// First instant it counts.
    #[oai(skip_serializing_if_is_none)]
    pub available_from: Option<Timestamp>,
    /// Last instant it counts.
    #[oai(skip_serializing_if_is_none)]
    pub available_to: Option<Timestamp>,
    /// With a Customer named: where they stand.
    #[oai(skip_serializing_if_is_none)]
    pub customer: Option<CustomerChallenge>,
}

/// One completion of a Challenge by a Customer.
#[derive(Debug, Clone, PartialEq, Eq, Object)]
pub struct CompletionView {
    /// The period it completed (`2026-W48`, `2026-11`, `from 2026-11-03`,
    /// `campaign`).
    pub period: String,
    /// When.
    pub completed_at: Timestamp,
    /// The events that made it (`cart:CODE`, `custom_event:ID`, ...).
    pub events: Vec<String>,
    /// What it gave; absent when it gave nothing.
    #[oai(skip_serializing_if_is_none)]
    pub granted: Option<ChallengeGrantBody>,
    /// When a return revoked it (`on_return: revoke`); what it gave was
    /// taken back where the Customer still held it.
    #[oai(skip_serializing_if_is_none)]
    pub revoked_at: Option<Timestamp>,
}

impl From<Completion> for CompletionView {
    fn from(completion: Completion) -> Self {
        CompletionView {
            period: completion.period,
            completed_at: completion.completed_at,
            events: completion.counted.into_iter().map(|c| c.source).collect(),
            granted: completion.granted.map(Into::into),
            revoked_at: completion.revoked_at,
        }
    }
}

/// A Customer's standing in a Challenge.
#[derive(Debug, Clone, PartialEq, Object)]
pub struct CustomerChallenge {
    /// The Challenge.
    pub challenge_id: i64,
    /// The Customer.
    pub customer_id: String,
    /// Whether the Customer takes part: enrolled, or any Customer of an
    /// `enrollment: automatic` Challenge.
    pub enrolled: bool,
    /// When they enrolled (or their first event counted).
    #[oai(skip_serializing_if_is_none)]
    pub enrolled_at: Option<Timestamp>,
    /// The current period.
    pub period: String,
    /// Progress in it, at most `target`.
    pub progress: Amount,
    /// What completes it.
    pub target: Amount,
    /// Whether it is completed (for the current period, when it repeats).
    pub completed: bool,
    /// Completions that stand (not revoked), over every period.
    pub completions: i64,
    /// Seconds left until the current period (or the Challenge) ends; absent
    /// when it has no end.
    #[oai(skip_serializing_if_is_none)]
    pub seconds_left: Option<i64>,
    /// The events counted in the current period, oldest first.
    pub counted: Vec<String>,
    /// Every completion, oldest first (GET
    /// /customers/{value}/challenges/{id} only).
    #[oai(skip_serializing_if_is_none)]
    pub history: Option<Vec<CompletionView>>,
}

/// POST /challenges/{id}/enroll.
#[derive(Debug, Clone, PartialEq, Eq, Object)]
#[oai(deny_unknown_fields)]
pub struct EnrollRequest {
    /// The Customer's id (this or `customer_code`).
    #[oai(
        skip_serializing_if_is_none,
        validator(min_length = 1, max_length = 128)
    )]
    pub customer_id: Option<String>,
    /// The Customer's code (this or `customer_id`).
    #[oai(
        skip_serializing_if_is_none,
        validator(min_length = 1, max_length = 128)
    )]
    pub customer_code: Option<String>,
}
