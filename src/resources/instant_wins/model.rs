//! Instant Win campaigns as the list and detail endpoints return them (the
//! draws are in [`super::draw_record`]).

use poem_openapi::Object;
use serde::Serialize;

use crate::resources::campaign_header::CampaignHeader;

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
