//! The YAML of one campaign file: every key a campaign may write, as read
//! before it is compiled ([`crate::engine::campaign::Campaign::parse`]).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::engine::listens::OnFile;
use crate::engine::text::Text;
use crate::resources::challenges::goal::GoalFile;
use crate::resources::challenges::rules::ChallengeRewardFile;
use crate::resources::coupons::rules::CouponFile;
use crate::resources::discounts::stacking::StackingFile;
use crate::resources::instant_wins::rules::file::InstantWinFile;
use crate::resources::limits::OfferLimitRules;
use crate::resources::messages::rules::MessageFile;
use crate::resources::rewards::rules::GivesFile;
use crate::resources::rewards::rules::LimitFile;
use crate::resources::vouchers::rules::VoucherFile;

/// One campaign file's keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CampaignFile {
    pub id: i64,
    pub kind: String,
    pub name: Text,
    #[serde(default)]
    pub description: Option<Text>,
    #[serde(default = "yes")]
    pub active: bool,
    #[serde(default)]
    pub available_from: Option<String>,
    #[serde(default)]
    pub available_to: Option<String>,
    #[serde(default)]
    pub on: Option<OnFile>,
    #[serde(default)]
    pub when: Option<String>,
    #[serde(default)]
    pub discount: Option<crate::resources::discounts::rules::DiscountFile>,
    #[serde(default)]
    pub points: Option<crate::resources::points_campaigns::rules::PointsFile>,
    #[serde(default)]
    pub select_customers: Option<String>,
    #[serde(default)]
    pub once: Option<String>,
    #[serde(default)]
    pub once_limit: Option<i64>,
    #[serde(default)]
    pub recurrence_type: Option<String>,
    #[serde(default)]
    pub recurrence_days: Vec<String>,
    #[serde(default)]
    pub coupon: Option<CouponFile>,
    #[serde(default)]
    pub stacking: Option<StackingFile>,
    #[serde(default)]
    pub limits: Vec<OfferLimitRules>,
    #[serde(default)]
    pub locations: Vec<String>,
    #[serde(default)]
    pub hours: Option<String>,
    #[serde(default)]
    pub countries: Vec<String>,
    #[serde(default)]
    pub tiers: Vec<String>,
    #[serde(default)]
    pub instant_win: Option<InstantWinFile>,
    #[serde(default)]
    pub voucher: Option<VoucherFile>,
    #[serde(default)]
    pub image_url: Option<String>,
    #[serde(default)]
    pub points_cost: Option<i64>,
    #[serde(default)]
    pub points_cost_by_tier: BTreeMap<String, i64>,
    #[serde(default)]
    pub balance: Option<String>,
    #[serde(default)]
    pub stock: Option<i64>,
    #[serde(default)]
    pub limit: Option<LimitFile>,
    #[serde(default)]
    pub gives: Option<GivesFile>,
    #[serde(default)]
    pub goal: Option<GoalFile>,
    #[serde(default)]
    pub enrollment: Option<String>,
    #[serde(default)]
    pub period: Option<String>,
    #[serde(default)]
    pub period_starts: Option<String>,
    #[serde(default)]
    pub repeat: Option<String>,
    #[serde(default)]
    pub reward: Option<ChallengeRewardFile>,
    #[serde(default)]
    pub on_return: Option<String>,
    #[serde(default)]
    pub messages: Vec<MessageFile>,
}

fn yes() -> bool {
    true
}
