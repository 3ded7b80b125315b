//! Rewards as the catalogue (GET /rewards) answers them, with a Customer's
//! standing when one is named.

use std::collections::BTreeMap;

use poem_openapi::Object;

use crate::resources::campaign_header::CampaignHeader;
use crate::resources::points::model::PointsKind;
use crate::resources::rewards::model::RewardGiven;

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
