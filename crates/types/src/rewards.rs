//! What a Reward gives and its transactions (redemptions and Instant Win
//! prizes); the catalogue as GET /rewards answers it is the service's `rewards::view`.

use serde::{Deserialize, Serialize};

use crate::points::PointsKind;
use crate::time::Timestamp;

/// What a Reward gives, or gave.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct RewardGiven {
    /// `item` (a physical item handed over), `voucher` (a Voucher of a
    /// Coupon), `points` (points or wallet credited) or `game` (a game
    /// participation).
    #[cfg_attr(feature = "openapi", oai(rename = "type"))]
    #[serde(rename = "type")]
    pub kind: String,
    /// `item`: the product code handed over, when the Reward names one.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// `voucher`: the Coupon.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupon_id: Option<i64>,
    /// `voucher`, in a transaction: the Voucher's code.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher_code: Option<String>,
    /// `voucher`, in a transaction: the Voucher's id.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher_id: Option<String>,
    /// `points`: the amount credited.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<i64>,
    /// `points`: the balance credited.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<PointsKind>,
    /// `game`: the game given a participation.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<i64>,
}

/// Where a reward transaction stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[cfg_attr(feature = "openapi", oai(rename_all = "snake_case"))]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
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
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
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
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<RewardGiven>,
    /// The store where it was redeemed.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_code: Option<String>,
    /// Who redeemed it for the Customer (`X-Author-Email`).
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_email: Option<String>,
    /// When.
    pub created_at: Timestamp,
    /// When it was rolled back.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back_at: Option<Timestamp>,
    /// Who rolled it back (`X-Author-Email`).
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back_by: Option<String>,
    /// Why it was rolled back.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_reason: Option<String>,
}
