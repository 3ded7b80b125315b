//! Instant Win records: campaigns as the list and detail endpoints return
//! them, the draws the interpreter makes and the store keeps, the state a
//! draw is decided on.

use poem_openapi::Object;
use serde::Serialize;

use crate::common::time::Timestamp;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::points::model::PointsKind;
use crate::resources::vouchers::model::Voucher;

/// What a prize gives.
#[derive(Debug, Clone, PartialEq, Serialize, Object)]
pub struct PrizeOutcome {
    /// `points` (points and wallet), `reward`, or `game` (a game participation); empty for No Prize.
    pub promotion_type: String,
    /// The points campaign, Reward or game rule given; absent for No Prize.
    #[oai(skip_serializing_if_is_none)]
    pub promotion_id: Option<i64>,
}

/// One prize of an Instant Win.
#[derive(Debug, Clone, PartialEq, Serialize, Object)]
pub struct InstantWinPrize {
    /// Prize identifier, unique within the Instant Win.
    pub id: String,
    /// Name, in the response language.
    pub name: String,
    /// Description, in the response language.
    #[oai(skip_serializing_if_is_none)]
    pub description: Option<String>,
    /// What the prize gives.
    pub outcome: PrizeOutcome,
    /// Configured probability, a fraction of 1; the weights of one Instant Win sum to 1.
    pub weight: f64,
    /// Remaining stock; -1 is unlimited.
    pub stock: i64,
    /// `remove_prize` (when it runs out its probability passes to No Prize) or
    /// `keep_probabilities` (probabilities stay; drawing it without stock wins nothing).
    pub stock_management_strategy: String,
}

/// The prizes of an Instant Win.
#[derive(Debug, Clone, PartialEq, Serialize, Object)]
pub struct InstantWinPrizes {
    /// Every prize, the No Prize entry included.
    pub instant_win_prizes: Vec<InstantWinPrize>,
}

/// An Instant Win campaign.
#[derive(Debug, Clone, PartialEq, Serialize, Object)]
pub struct InstantWinCampaign {
    /// Its id, name, description, whether it is active and its dates.
    #[oai(flatten)]
    #[serde(flatten)]
    pub header: CampaignHeader,
    /// `daily` or `weekly`; absent when it runs every day of its dates.
    #[oai(skip_serializing_if_is_none)]
    pub recurrence_type: Option<String>,
    /// Weekly recurrence: the days it runs (`monday` ... `sunday`).
    pub recurrence_days: Vec<String>,
    /// `loyalty` (every loyalty member) or `targeted` (holders of its Voucher).
    pub select_customers: String,
    /// Targeted, with a Customer: the assignment of the Instant Win to that Customer.
    #[oai(skip_serializing_if_is_none)]
    pub loyalty_rule_history_id: Option<String>,
    /// The period participations are counted over: day, week, month, year or campaign.
    pub once: String,
    /// Most participations of one Customer per period.
    pub once_limit: i64,
    /// With a Customer: participations left in the current period.
    #[oai(skip_serializing_if_is_none)]
    pub remaining_participations: Option<i64>,
    /// Location codes it runs in; empty: everywhere.
    pub locations: Vec<String>,
    /// Countries it runs in; empty: everywhere.
    pub countries: Vec<String>,
    /// Tiers it is for; empty: every Customer.
    pub tiers: Vec<String>,
    /// The prizes.
    pub instant_win: InstantWinPrizes,
}

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

/// What GET /instant_wins/{id} names with `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, poem_openapi::Enum)]
#[oai(rename_all = "snake_case")]
pub enum InstantWinSearch {
    /// The loyalty rule id (default).
    #[default]
    LoyaltyRuleId,
    /// A Customer's assignment (`loyalty_rule_history_id` of a Voucher).
    LoyaltyRuleHistoryId,
    /// A Targeted Delivery send (`campaign_history_id` of a Voucher).
    CampaignHistoryId,
    /// The coupon's shared code.
    StaticCode,
}
