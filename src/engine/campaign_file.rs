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
pub(crate) struct CampaignFile {
    pub(crate) id: i64,
    pub(crate) kind: String,
    pub(crate) name: Text,
    #[serde(default)]
    pub(crate) description: Option<Text>,
    #[serde(default = "yes")]
    pub(crate) active: bool,
    #[serde(default)]
    pub(crate) available_from: Option<String>,
    #[serde(default)]
    pub(crate) available_to: Option<String>,
    #[serde(default)]
    pub(crate) on: Option<OnFile>,
    #[serde(default)]
    pub(crate) when: Option<String>,
    #[serde(default)]
    pub(crate) discount: Option<crate::resources::discounts::rules::DiscountFile>,
    #[serde(default)]
    pub(crate) points: Option<crate::resources::points_campaigns::rules::PointsFile>,
    #[serde(default)]
    pub(crate) select_customers: Option<String>,
    #[serde(default)]
    pub(crate) once: Option<String>,
    #[serde(default)]
    pub(crate) once_limit: Option<i64>,
    #[serde(default)]
    pub(crate) recurrence_type: Option<String>,
    #[serde(default)]
    pub(crate) recurrence_days: Vec<String>,
    #[serde(default)]
    pub(crate) coupon: Option<CouponFile>,
    #[serde(default)]
    pub(crate) stacking: Option<StackingFile>,
    #[serde(default)]
    pub(crate) limits: Vec<OfferLimitRules>,
    #[serde(default)]
    pub(crate) locations: Vec<String>,
    #[serde(default)]
    pub(crate) hours: Option<String>,
    #[serde(default)]
    pub(crate) countries: Vec<String>,
    #[serde(default)]
    pub(crate) tiers: Vec<String>,
    #[serde(default)]
    pub(crate) instant_win: Option<InstantWinFile>,
    #[serde(default)]
    pub(crate) voucher: Option<VoucherFile>,
    #[serde(default)]
    pub(crate) image_url: Option<String>,
    #[serde(default)]
    pub(crate) points_cost: Option<i64>,
    #[serde(default)]
    pub(crate) points_cost_by_tier: BTreeMap<String, i64>,
    #[serde(default)]
    pub(crate) balance: Option<String>,
    #[serde(default)]
    pub(crate) stock: Option<i64>,
    #[serde(default)]
    pub(crate) limit: Option<LimitFile>,
    #[serde(default)]
    pub(crate) gives: Option<GivesFile>,
    #[serde(default)]
    pub(crate) goal: Option<GoalFile>,
    #[serde(default)]
    pub(crate) enrollment: Option<String>,
    #[serde(default)]
    pub(crate) period: Option<String>,
    #[serde(default)]
    pub(crate) period_starts: Option<String>,
    #[serde(default)]
    pub(crate) repeat: Option<String>,
    #[serde(default)]
    pub(crate) reward: Option<ChallengeRewardFile>,
    #[serde(default)]
    pub(crate) on_return: Option<String>,
    #[serde(default)]
    pub(crate) messages: Vec<MessageFile>,
}

fn yes() -> bool {
    true
}
