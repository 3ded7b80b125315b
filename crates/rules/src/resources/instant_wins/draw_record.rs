//! A draw as the interpreter makes it and the store keeps it, and the state
//! of one Instant Win and one Customer it is decided on.

use serde::Serialize;

use crate::common::time::Timestamp;
use crate::resources::points::model::PointsKind;
use crate::resources::vouchers::model::Voucher;

/// What the store knows about one Instant Win and one Customer, read before
/// the event is evaluated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InstantWinState {
    /// The Customer's participations in the current period.
    pub participations: i64,
    /// Units of each prize given so far, in prize order.
    pub given: Vec<i64>,
    /// The Customer's Voucher for the campaign (targeted campaigns).
    pub voucher: Option<Voucher>,
    /// Games: the participations the Customer was given and has not played.
    pub granted: i64,
}

/// A prize won in a draw, to be credited or delivered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WonPrize {
    /// The prize's id within its campaign.
    pub prize_id: String,
    /// `points`, `reward` or `game`.
    pub promotion_type: &'static str,
    /// The points campaign, Reward or game given.
    pub promotion_id: i64,
    /// Points credited (points prizes): the points campaign's accrual on this event.
    pub points: Option<i64>,
    /// Points prizes: the balance credited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points_kind: Option<PointsKind>,
    /// Points prizes: when they expire, as the points campaign says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points_expire_at: Option<Timestamp>,
    /// The prize's configured stock (-1 unlimited): a win takes one unit.
    pub stock: i64,
}

impl WonPrize {
    /// Whether the prize goes through the delivery outbox: Rewards and game
    /// participations do; points are credited by the draw's own transaction.
    pub fn needs_delivery(&self) -> bool {
        self.promotion_type != "points"
    }
}

/// The stock of one limited prize as the draw saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StockSeen {
    /// The prize's id.
    pub prize_id: String,
    /// Its configured stock.
    pub stock: i64,
    /// Units given before this draw.
    pub given: i64,
}

/// Everything about one draw: what the store must check and write, and what
/// an auditor needs to explain it afterwards.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrawRecord {
    /// The Instant Win's rule id.
    pub rule_id: i64,
    /// Key of the participation period (`2026-11-22`, `2026-W47`, `campaign`, ...).
    pub period: String,
    /// The campaign's limit per period.
    pub once_limit: i64,
    /// Participations in the period before this one.
    pub participations_seen: i64,
    /// Probability of each prize in this draw.
    pub weights: Vec<f64>,
    /// Stock of each limited prize as seen.
    pub stock_seen: Vec<StockSeen>,
    /// The random value drawn, in [0, 1).
    pub random: f64,
    /// Whether a scenario forced the prize (the random value was chosen
    /// in its share of the weights).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forced: bool,
    /// The entry it fell on (-1: the probability passed to No Prize).
    pub drawn_index: i64,
    /// The prize won, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prize: Option<WonPrize>,
    /// The Voucher it took part with (targeted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voucher_code: Option<String>,
    /// Whether the draw used one of the Voucher's uses (its campaign's
    /// coupon has `uses_per_voucher`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub voucher_used: bool,
    /// Games: whether the play used a participation the Customer was given
    /// (its free plays of the period were used).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub participation_used: bool,
}
