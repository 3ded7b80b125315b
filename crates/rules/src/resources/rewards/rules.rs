//! The Reward fields of a campaign file (`kind: reward`), checked and
//! compiled into a [`Reward`]: what it costs, who pays it from which balance,
//! how many there are, how often one Customer may redeem it, and what it
//! gives.
//!
//! ```yaml
//! id: 402
//! kind: reward
//! name: { en: Tote bag, es: Bolsa de tela }
//! image_url: https://example.com/tote.png
//! when: customer.loyalty_member      # audience, tier: who may redeem it
//! points_cost: 500                   # in the balance's unit (wallet: cents)
//! points_cost_by_tier: { gold: 400 } # a tier's own price
//! balance: points                    # or wallet
//! stock: 200                         # -1 (default): unlimited
//! limit: { count: 1, per: month }    # per Customer; per day, week, month, year or campaign
//! gives: { item: TOTE-01 }           # or { voucher: { coupon: 31 } }, { points: 50 }, { game: 501 }
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::engine::problems::Problems;
use crate::resources::instant_wins::rules::Period;
use crate::resources::points::model::MAX_POINTS;
use crate::resources::points::model::PointsKind;

/// Longest `image_url`.
const MAX_URL: usize = 2_000;

/// The Reward fields written at the top level of a campaign file.
#[derive(Debug, Default)]
pub struct RewardFields {
    pub image_url: Option<String>,
    pub points_cost: Option<i64>,
    pub points_cost_by_tier: BTreeMap<String, i64>,
    pub balance: Option<String>,
    pub stock: Option<i64>,
    pub limit: Option<LimitFile>,
    pub gives: Option<GivesFile>,
}

/// `limit:` of a Reward: redemptions per Customer per period.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitFile {
    count: i64,
    per: String,
}

/// `gives:` of a Reward: exactly one of its fields.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct GivesFile {
    #[serde(default)]
    voucher: Option<GivenVoucherFile>,
    #[serde(default)]
    points: Option<i64>,
    #[serde(default)]
    balance: Option<String>,
    #[serde(default)]
    game: Option<i64>,
    #[serde(default)]
    item: Option<String>,
}

/// `gives: { voucher: { coupon: ID } }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GivenVoucherFile {
    coupon: i64,
}

/// A compiled Reward.
#[derive(Debug, Clone, PartialEq)]
pub struct Reward {
    /// A picture of it.
    pub image_url: Option<String>,
    /// What redeeming it costs; `None`: it is only given (a prize), never redeemed.
    pub points_cost: Option<i64>,
    /// A tier's own price, by tier id.
    pub points_cost_by_tier: BTreeMap<String, i64>,
    /// The balance that pays.
    pub balance: PointsKind,
    /// Units there are; -1: unlimited.
    pub stock: i64,
    /// Redemptions per Customer per period.
    pub limit: Option<RewardLimit>,
    /// What a redemption gives.
    pub gives: RewardGift,
}

/// Redemptions of one Reward per Customer per period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewardLimit {
    /// Most redemptions in one period.
    pub count: i64,
    /// The period (`campaign`: ever).
    pub per: Period,
}

/// What redeeming a Reward gives the Customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RewardGift {
    /// A physical item handed over (the product code, if named).
    Item(Option<String>),
    /// A Voucher of this Coupon.
    Voucher {
        /// The Coupon's id.
        coupon_id: i64,
    },
    /// Points (or wallet cents) credited.
    Points {
        /// Amount.
        points: i64,
        /// The balance credited.
        kind: PointsKind,
    },
    /// One participation in this game.
    Game {
        /// The game's rule id.
        game_id: i64,
    },
}

impl RewardGift {
    /// `item`, `voucher`, `points` or `game`.
    pub fn name(&self) -> &'static str {
        match self {
            RewardGift::Item(_) => "item",
            RewardGift::Voucher { .. } => "voucher",
            RewardGift::Points { .. } => "points",
            RewardGift::Game { .. } => "game",
        }
    }
}

impl Reward {
    /// What the Customer in tier `tier` pays; `None` when it is not redeemed.
    pub fn cost_for(&self, tier: Option<&str>) -> Option<i64> {
        let cost = self.points_cost?;
        Some(
            tier.and_then(|tier| self.points_cost_by_tier.get(tier).copied())
                .unwrap_or(cost),
        )
    }
}

/// The balance named `name` (`points` when none).
fn balance_named(name: Option<&str>, key: &str, problems: &mut Problems<'_>) -> PointsKind {
    match name {
        None | Some("points") => PointsKind::Points,
        Some("wallet") => PointsKind::Wallet,
        Some(other) => {
            problems.at_key(
                key,
                format!("balance is `points` or `wallet`, not `{other}`"),
            );
            PointsKind::Points
        }
    }
}

impl RewardFields {
    /// Checks every field and compiles them; `None` when any is wrong.
    pub fn compile(self, problems: &mut Problems<'_>) -> Option<Reward> {
        let before = problems.errors.len();
        let cost_range = format!("a whole number from 0 to {MAX_POINTS}");
        if self
            .points_cost
            .is_some_and(|cost| !(0..=MAX_POINTS).contains(&cost))
        {
            problems.at_key("points_cost", format!("points_cost is {cost_range}"));
        }
        for (tier, cost) in &self.points_cost_by_tier {
            if !(0..=MAX_POINTS).contains(cost) {
                problems.at_key(
                    "points_cost_by_tier",
                    format!("the cost for tier `{tier}` is {cost_range}"),
                );
            }
        }
        if !self.points_cost_by_tier.is_empty() && self.points_cost.is_none() {
            problems.at_key(
                "points_cost_by_tier",
                "points_cost_by_tier needs `points_cost`, the price of every other tier",
            );
        }
        let balance = balance_named(self.balance.as_deref(), "balance", problems);
        let stock = self.stock.unwrap_or(-1);
        if stock < -1 {
            problems.at_key(
                "stock",
                "stock is -1 (unlimited) or a number of units, 0 or more",
            );
        }
        if let Some(url) = &self.image_url
            && (url.len() > MAX_URL || !(url.starts_with("https://") || url.starts_with("http://")))
        {
            problems.at_key(
                "image_url",
                format!("image_url is an http(s) URL of at most {MAX_URL} characters"),
            );
        }
        let limit = self.limit.and_then(|limit| {
            let per = Period::parse(&limit.per);
            if per.is_none() {
                problems.at_key(
                    "limit",
                    format!(
                        "limit.per is day, week, month, year or campaign, not `{}`",
                        limit.per
                    ),
                );
            }
            if limit.count < 1 {
                problems.at_key("limit", "limit.count is at least 1");
            }
            per.map(|per| RewardLimit {
                count: limit.count,
                per,
            })
        });
        let gives = compile_gives(self.gives.unwrap_or_default(), problems);
        (problems.errors.len() == before).then_some(Reward {
            image_url: self.image_url,
            points_cost: self.points_cost,
            points_cost_by_tier: self.points_cost_by_tier,
            balance,
            stock,
            limit,
            gives: gives?,
        })
    }
}

/// `gives:` compiled: exactly one thing (an item when nothing is written).
fn compile_gives(gives: GivesFile, problems: &mut Problems<'_>) -> Option<RewardGift> {
    let written = [
        gives.voucher.is_some(),
        gives.points.is_some(),
        gives.game.is_some(),
        gives.item.is_some(),
    ]
    .into_iter()
    .filter(|written| *written)
    .count();
    if written > 1 {
        problems.at_key(
            "gives",
            "gives is one of `voucher: { coupon: ID }`, `points: N`, `game: ID` or `item: CODE`",
        );
        return None;
    }
    if gives.balance.is_some() && gives.points.is_none() {
        problems.at_key("gives", "gives.balance goes with `points: N`");
        return None;
    }
    if let Some(voucher) = gives.voucher {
        if voucher.coupon <= 0 {
            problems.at_key("gives", "gives.voucher.coupon is the id of a Coupon");
            return None;
        }
        return Some(RewardGift::Voucher {
            coupon_id: voucher.coupon,
        });
    }
    if let Some(points) = gives.points {
        if !(1..=MAX_POINTS).contains(&points) {
            problems.at_key(
                "gives",
                format!("gives.points is a whole number from 1 to {MAX_POINTS}"),
            );
            return None;
        }
        let kind = balance_named(gives.balance.as_deref(), "gives", problems);
        return Some(RewardGift::Points { points, kind });
    }
    if let Some(game_id) = gives.game {
        if game_id <= 0 {
            problems.at_key("gives", "gives.game is the id of a game campaign");
            return None;
        }
        return Some(RewardGift::Game { game_id });
    }
    Some(RewardGift::Item(
        gives.item.filter(|item| !item.trim().is_empty()),
    ))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::engine::campaign::Campaign;
    use crate::engine::kinds::CampaignKind;
    use crate::engine::script::ScriptEngine;

    use super::*;

    fn parse(text: &str) -> Result<Reward, Vec<String>> {
        Campaign::parse(&ScriptEngine::new(), &PathBuf::from("r.yaml"), text)
            .map(|campaign| match campaign.kind {
                CampaignKind::Reward(reward) => *reward,
                other => panic!("not a reward: {}", other.name()),
            })
            .map_err(|errors| errors.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn a_prize_only_reward_has_no_cost_and_gives_an_item() {
        let reward = parse("id: 1\nkind: reward\nname: R\n").unwrap();
        assert_eq!(reward.points_cost, None);
        assert_eq!(reward.stock, -1);
        assert_eq!(reward.gives, RewardGift::Item(None));
        assert_eq!(reward.cost_for(Some("gold")), None);
    }

    #[test]
    fn every_field_compiles() {
        let reward = parse(
            "id: 1\nkind: reward\nname: R\nimage_url: https://x.org/a.png\npoints_cost: 500\npoints_cost_by_tier: { gold: 400 }\nbalance: wallet\nstock: 3\nlimit: { count: 2, per: month }\ngives: { voucher: { coupon: 31 } }\n",
        )
        .unwrap();
        assert_eq!(reward.cost_for(None), Some(500));
        assert_eq!(reward.cost_for(Some("silver")), Some(500));
        assert_eq!(reward.cost_for(Some("gold")), Some(400));
        assert_eq!(reward.balance, PointsKind::Wallet);
        assert_eq!(reward.stock, 3);
        assert_eq!(
            reward.limit,
            Some(RewardLimit {
                count: 2,
                per: Period::Month
            })
        );
        assert_eq!(reward.gives, RewardGift::Voucher { coupon_id: 31 });
        let points = parse(
            "id: 1\nkind: reward\nname: R\npoints_cost: 5\ngives: { points: 50, balance: wallet }\n",
        )
        .unwrap();
        assert_eq!(
            points.gives,
            RewardGift::Points {
                points: 50,
                kind: PointsKind::Wallet
            }
        );
    }

    #[test]
    fn each_problem_is_reported_at_its_line() {
        let errors = parse(
            "id: 1\nkind: reward\nname: R\npoints_cost: -5\nstock: -3\nlimit: { count: 0, per: fortnight }\ngives: { points: 5, game: 3 }\nimage_url: ftp://x\n",
        )
        .unwrap_err();
        for (line, text) in [
            (4, "points_cost"),
            (5, "stock"),
            (6, "fortnight"),
            (6, "at least 1"),
            (7, "one of"),
            (8, "image_url"),
        ] {
            assert!(
                errors
                    .iter()
                    .any(|e| e.starts_with(&format!("r.yaml:{line}:")) && e.contains(text)),
                "{line} {text}: {errors:?}"
            );
        }
        let errors =
            parse("id: 1\nkind: reward\nname: R\npoints_cost_by_tier: { gold: 4 }\n").unwrap_err();
        assert!(errors[0].contains("needs `points_cost`"), "{errors:?}");
    }

    #[test]
    fn reward_fields_belong_to_rewards_only() {
        let errors = Campaign::parse(
            &ScriptEngine::new(),
            &PathBuf::from("g.yaml"),
            "id: 1\nkind: game\nname: G\npoints_cost: 5\n",
        )
        .unwrap_err();
        assert!(
            errors[0].to_string().contains("reward campaigns only"),
            "{errors:?}"
        );
    }
}
