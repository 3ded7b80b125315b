//! Rewards as the API answers them: the catalogue (GET /rewards), with a
//! Customer's standing when one is named, and reward transactions
//! (redemptions and Instant Win prizes).

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::points::model::PointsKind;

/// What a Reward gives, or gave.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Object)]
pub struct RewardGiven {
    /// `item` (a physical item handed over), `voucher` (a Voucher of a
    /// Coupon), `points` (points or wallet credited) or `game` (a game
    /// participation).
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    /// `item`: the product code handed over, when the Reward names one.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// `voucher`: the Coupon.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupon_id: Option<i64>,
    /// `voucher`, in a transaction: the Voucher's code.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher_code: Option<String>,
    /// `voucher`, in a transaction: the Voucher's id.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher_id: Option<String>,
    /// `points`: the amount credited.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<i64>,
    /// `points`: the balance credited.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<PointsKind>,
    /// `game`: the game given a participation.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<i64>,
}

/// How often one Customer may redeem a Reward.
#[derive(Debug, Clone, PartialEq, Eq, Object)]
pub struct RewardLimitView {
    /// Most redemptions in one period.
    pub count: i64,
    /// `day`, `week`, `month`, `year` (on the Company's clocks) or
    /// `campaign` (ever).
    pub per: String,
}

/// A Reward of the catalogue.
#[derive(Debug, Clone, PartialEq, Object)]
pub struct RewardView {
    /// Its id, name, description, whether it is active and its dates.
    #[oai(flatten)]
    pub header: CampaignHeader,
    /// A picture of it.
    #[oai(skip_serializing_if_is_none)]
    pub image_url: Option<String>,
    /// What redeeming it costs, from `balance`; absent when it is only given
    /// (an Instant Win prize) and never redeemed.
    #[oai(skip_serializing_if_is_none)]
    pub points_cost: Option<i64>,
    /// A tier's own price, by tier id.
    pub points_cost_by_tier: BTreeMap<String, i64>,
    /// The balance that pays: `points`, or `wallet` (cents).
    pub balance: PointsKind,
    /// Units it was given; -1: unlimited.
    pub stock: i64,
    /// Units left; -1: unlimited.
    pub stock_left: i64,
    /// How often one Customer may redeem it.
    #[oai(skip_serializing_if_is_none)]
    pub limit: Option<RewardLimitView>,
    /// What a redemption gives.
    pub gives: RewardGiven,
    /// With a Customer: who.
    #[oai(skip_serializing_if_is_none)]
    pub customer_id: Option<String>,
    /// With a Customer: what it costs them (their tier's price).
    #[oai(skip_serializing_if_is_none)]
    pub customer_cost: Option<i64>,
    /// With a Customer: their redemptions of it in the current period of `limit`.
    #[oai(skip_serializing_if_is_none)]
    pub redeemed_in_period: Option<i64>,
    /// With a Customer: whether they can redeem it now.
    #[oai(skip_serializing_if_is_none)]
    pub can_redeem: Option<bool>,
    /// With a Customer who cannot redeem it: the error code a redemption
    /// would answer (`customer_not_enough_score`, `reward_out_of_stock`,
    /// `reward_limit_reached`, `reward_not_available`,
    /// `reward_not_redeemable`, `customer_inactive`).
    #[oai(skip_serializing_if_is_none)]
    pub reason: Option<String>,
    /// With a Customer who cannot redeem it: why, in words.
    #[oai(skip_serializing_if_is_none)]
    pub reason_message: Option<String>,
}

/// Where a reward transaction stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, poem_openapi::Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum RewardState {
    /// Paid for and given (a redemption).
    Redeemed,
    /// Given as a prize; the Customer holds it.
    Available,
    /// A redemption reversed: its cost returned, what it gave taken back.
    RolledBack,
}

/// A Reward a Customer redeemed or was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct RewardTransaction {
    /// Transaction identifier (`rwt_...` for redemptions; an Instant Win
    /// prize's is its draw's id).
    pub id: String,
    /// The Customer.
    pub customer_id: String,
    /// The Reward.
    pub reward_id: i64,
    /// The Reward's name, in the Company's default language when it was
    /// redeemed.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward_name: Option<String>,
    /// `redemption` (paid with points) or `instant_win` (a prize).
    pub source: String,
    /// The campaign that gave it: the Reward itself, or the Instant Win.
    pub rule_id: i64,
    /// `redeemed`, `available` (a prize) or `rolled_back`.
    pub state: RewardState,
    /// What it cost (0 for a prize).
    #[serde(default)]
    pub points: i64,
    /// The balance that paid.
    #[serde(default)]
    pub balance: PointsKind,
    /// What it gave.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<RewardGiven>,
    /// The store where it was redeemed.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_code: Option<String>,
    /// Who redeemed it for the Customer (`X-Author-Email`).
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_email: Option<String>,
    /// When.
    pub created_at: Timestamp,
    /// When it was rolled back.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back_at: Option<Timestamp>,
    /// Who rolled it back (`X-Author-Email`).
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back_by: Option<String>,
    /// Why it was rolled back.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_reason: Option<String>,
}
