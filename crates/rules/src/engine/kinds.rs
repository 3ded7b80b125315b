//! Campaign kinds: the one place every kind plugs into the engine, like a
//! command enum. A kind's file section, compilation and evaluation live in
//! its resource folder; here each is named, compiled from its section and
//! asked for its effects. Adding a kind is a variant, its name in
//! [`CampaignKind::NAMES`] and one arm in each `match` below (the compiler
//! lists any arm left out; the tests check the names).

use crate::engine::campaign::Campaign;
use crate::engine::effect::Effect;
use crate::engine::effect::InstantWinDrawEffect;
use crate::engine::facts::Facts;
use crate::engine::not_applied::NotApplied;
use crate::engine::problems::Problems;
use crate::engine::script::PreparedFacts;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::engine::text::Text;
use crate::resources::challenges::evaluate::challenge_effects;
use crate::resources::challenges::goal::Measure;
use crate::resources::challenges::rules::Challenge;
use crate::resources::challenges::rules::ChallengeFields;
use crate::resources::coupons::rules::Coupon;
use crate::resources::coupons::rules::CouponFile;
use crate::resources::discounts::rules::CompileExpression;
use crate::resources::discounts::rules::Discount;
use crate::resources::discounts::rules::DiscountFile;
use crate::resources::discounts::rules::discount_offer;
use crate::resources::discounts::settle::CampaignOffer;
use crate::resources::instant_wins::draw_record::DrawRecord;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::draws::Draws;
use crate::resources::instant_wins::rules::draws::instant_win_draw;
use crate::resources::instant_wins::rules::file::InstantWinFields;
use crate::resources::limits::LimitTake;
use crate::resources::points_campaigns::rules::PointsAccrual;
use crate::resources::points_campaigns::rules::PointsFile;
use crate::resources::points_campaigns::rules::points_effects;
use crate::resources::rewards::rules::Reward;
use crate::resources::rewards::rules::RewardFields;
use crate::resources::rewards::rules::RewardGift;
use crate::resources::vouchers::rules::EarnedVoucher;
use crate::resources::vouchers::rules::VoucherFile;
use crate::resources::vouchers::rules::earned_voucher;

/// Another campaign a campaign names, which must exist and be of `kind`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The kind it must be.
    pub kind: &'static str,
    /// Its id.
    pub id: i64,
    /// How the line naming it starts, for the error's line.
    pub key: &'static str,
    /// What the campaign does with it, in words.
    pub what: String,
}

/// What a campaign does; one variant per kind.
#[derive(Debug, Clone)]
pub enum CampaignKind {
    /// Money off.
    Discount(Box<Discount>),
    /// Points into the wallet.
    Points(PointsAccrual),
    /// A weighted prize draw.
    InstantWin(Box<InstantWin>),
    /// A Reward of the catalogue: redeemed with points, or given as a prize.
    Reward(Box<Reward>),
    /// A game, played with participations (given as prizes, by Rewards
    /// and Challenges, or free per period): a weighted prize draw per play.
    Game(Box<InstantWin>),
    /// A Coupon: the template of Vouchers, which apply it to carts.
    Coupon(Box<Coupon>),
    /// Issues the Customer a Voucher of a Coupon.
    Voucher(EarnedVoucher),
    /// A goal Customers reach with the events that count, for a reward.
    Challenge(Box<Challenge>),
    /// Messages only (`messages:`), shown when its condition holds.
    Message,
}

/// The sections of a campaign file that say what it does.
pub struct KindSections {
    /// `kind:`.
    pub kind: String,
    /// `discount:`.
    pub discount: Option<DiscountFile>,
    /// `points:`.
    pub points: Option<PointsFile>,
    /// `coupon:` of a Coupon campaign.
    pub coupon: Option<CouponFile>,
    /// `locations:` of a Coupon campaign.
    pub coupon_locations: Vec<String>,
    /// `voucher:` of a `voucher` campaign.
    pub voucher: Option<VoucherFile>,
    /// The Instant Win fields.
    pub instant_win: InstantWinFields,
    /// The Reward fields.
    pub reward: RewardFields,
    /// The Challenge fields.
    pub challenge: ChallengeFields,
}

/// What evaluating one campaign sees and where its draws go.
pub struct KindContext<'a, 'd> {
    /// The expression engine.
    pub engine: &'a ScriptEngine,
    /// The campaign evaluated.
    pub campaign: &'a Campaign,
    /// Every campaign of the Company (prizes name others).
    pub campaigns: &'a [Campaign],
    /// The event and what is known of its Customer.
    pub facts: &'a Facts,
    /// The facts, prepared once for every expression.
    pub prepared: &'a PreparedFacts<'a>,
    /// Random values and state for Instant Win draws.
    pub draws: &'a mut Draws<'d>,
    /// Puts translatable text in the response language.
    pub render: &'a dyn Fn(&Text) -> String,
    /// The draws made, to be recorded with the event.
    pub draw_records: &'a mut Vec<DrawRecord>,
    /// The discounts offered, settled with each other and the Vouchers
    /// once every campaign was evaluated.
    pub discount_offers: &'a mut Vec<CampaignOffer>,
    /// What the points campaigns that applied take from their limits,
    /// counted with the event itself.
    pub event_limit_takes: &'a mut Vec<LimitTake>,
    /// How many effects the campaigns before this one gave.
    pub effects_so_far: usize,
}

impl CampaignKind {
    /// Every kind's `kind:` name, in the order the error message lists them.
    pub const NAMES: [&'static str; 9] = [
        "discount",
        "points",
        "instant_win",
        "reward",
        "game",
        "coupon",
        "voucher",
        "challenge",
        "message",
    ];

    /// The `kind` name in files and effects.
    pub fn name(&self) -> &'static str {
        match self {
            CampaignKind::Discount(_) => "discount",
            CampaignKind::Points(_) => "points",
            CampaignKind::InstantWin(_) => "instant_win",
            CampaignKind::Reward(_) => "reward",
            CampaignKind::Game(_) => "game",
            CampaignKind::Coupon(_) => "coupon",
            CampaignKind::Voucher(_) => "voucher",
            CampaignKind::Challenge(_) => "challenge",
            CampaignKind::Message => "message",
        }
    }

    /// The expressions of its own section, beside the campaign's `when`.
    pub fn expressions(&self) -> Vec<&Script> {
        match self {
            CampaignKind::Discount(discount) => discount.expressions(),
            CampaignKind::Challenge(challenge) => match &challenge.goal.measure {
                Measure::Sum { amount, .. } => vec![amount],
                Measure::Count(_) | Measure::Streak { .. } => Vec::new(),
            },
            CampaignKind::Points(_)
            | CampaignKind::InstantWin(_)
            | CampaignKind::Reward(_)
            | CampaignKind::Game(_)
            | CampaignKind::Coupon(_)
            | CampaignKind::Voucher(_)
            | CampaignKind::Message => Vec::new(),
        }
    }

    /// The other campaigns it names.
    pub fn references(&self) -> Vec<Reference> {
        match self {
            CampaignKind::Voucher(earned) => vec![Reference {
                kind: "coupon",
                id: earned.coupon_id,
                key: "coupon:",
                what: format!("the Voucher issued is of Coupon {}", earned.coupon_id),
            }],
            CampaignKind::Reward(reward) => match reward.gives {
                RewardGift::Voucher { coupon_id } => vec![Reference {
                    kind: "coupon",
                    id: coupon_id,
                    key: "gives:",
                    what: format!("the Reward gives a Voucher of Coupon {coupon_id}"),
                }],
                RewardGift::Game { game_id } => vec![Reference {
                    kind: "game",
                    id: game_id,
                    key: "gives:",
                    what: format!("the Reward gives a participation in game {game_id}"),
                }],
                RewardGift::Item(_) | RewardGift::Points { .. } => Vec::new(),
            },
            CampaignKind::Challenge(challenge) => challenge.references(),
            CampaignKind::Discount(_)
            | CampaignKind::Points(_)
            | CampaignKind::InstantWin(_)
            | CampaignKind::Game(_)
            | CampaignKind::Coupon(_)
            | CampaignKind::Message => Vec::new(),
        }
    }

    /// The kind `sections` describe; every problem goes to `problems`.
    pub fn compile(
        sections: KindSections,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
    ) -> Option<CampaignKind> {
        if sections.kind == "voucher" {
            if sections.discount.is_some() || sections.points.is_some() {
                problems.at_key(
                    "kind",
                    "a `voucher` campaign has a `voucher:` section and no `discount:` or `points:`",
                );
                return None;
            }
            let Some(voucher) = sections.voucher else {
                problems.at_key(
                    "kind",
                    "a `voucher` campaign needs a `voucher:` section naming its `coupon`",
                );
                return None;
            };
            return voucher.compile(problems).map(CampaignKind::Voucher);
        }
        if let Some(voucher) = sections.voucher.as_ref().map(|_| "voucher") {
            problems.at_key(voucher, "`voucher:` belongs to `voucher` campaigns only");
            return None;
        }
        if sections.kind == "coupon" {
            if sections.discount.is_some() || sections.points.is_some() {
                problems.at_key(
                    "kind",
                    "a `coupon` campaign has a `coupon:` section and no `discount:` or `points:`",
                );
                return None;
            }
            let Some(coupon) = sections.coupon else {
                problems.at_key("kind", "a `coupon` campaign needs a `coupon:` section");
                return None;
            };
            return coupon
                .compile(sections.coupon_locations, problems)
                .map(|coupon| CampaignKind::Coupon(Box::new(coupon)));
        }
        match (sections.kind.as_str(), sections.discount, sections.points) {
            ("discount", Some(discount), None) => discount
                .compile(problems, compile)
                .map(|discount| CampaignKind::Discount(Box::new(discount))),
            ("points", None, Some(points)) => points.compile(problems).map(CampaignKind::Points),
            ("instant_win", None, None) => sections
                .instant_win
                .compile(problems, false)
                .map(|instant_win| CampaignKind::InstantWin(Box::new(instant_win))),
            ("reward", None, None) => sections
                .reward
                .compile(problems)
                .map(|reward| CampaignKind::Reward(Box::new(reward))),
            ("game", None, None) => sections
                .instant_win
                .compile(problems, true)
                .map(|game| CampaignKind::Game(Box::new(game))),
            ("challenge", None, None) => sections
                .challenge
                .compile(problems, compile)
                .map(|challenge| CampaignKind::Challenge(Box::new(challenge))),
            // Its `messages:` are the campaign's, checked with it.
            ("message", None, None) => Some(CampaignKind::Message),
            (kind @ ("discount" | "points"), _, _) => {
                problems.at_key(
                    "kind",
                    format!("a `{kind}` campaign has a `{kind}:` section and no other"),
                );
                None
            }
            (kind @ ("instant_win" | "reward" | "game" | "challenge" | "message"), _, _) => {
                problems.at_key(
                    "kind",
                    format!("a `{kind}` campaign has no `discount:` or `points:` section"),
                );
                None
            }
            (other, _, _) => {
                problems.at_key(
                    "kind",
                    format!(
                        "kind `{other}` is not available; use {} or {}",
                        Self::NAMES[..Self::NAMES.len() - 1].join(", "),
                        Self::NAMES[Self::NAMES.len() - 1]
                    ),
                );
                None
            }
        }
    }

    /// The effects of a campaign of this kind that takes part in the event
    /// of `cx`; the reason when it gives none.
    pub fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        let campaign = cx.campaign;
        let rule_name = (cx.render)(&campaign.name);
        match self {
            CampaignKind::Discount(discount) => {
                let reckoning = discount_offer(cx.engine, discount, cx.facts, cx.prepared)?;
                cx.discount_offers.push(CampaignOffer {
                    rule_id: campaign.id,
                    rule_name: rule_name.into(),
                    reckoning,
                    position: cx.effects_so_far,
                });
                // Its effects come once the offers are settled.
                Ok(Vec::new())
            }
            CampaignKind::Points(points) => {
                points_effects(campaign, points, cx.facts, rule_name, cx.event_limit_takes)
            }
            CampaignKind::InstantWin(instant_win) | CampaignKind::Game(instant_win) => {
                let (draw, record) = instant_win_draw(
                    campaign,
                    instant_win,
                    cx.campaigns,
                    cx.facts,
                    cx.draws,
                    cx.render,
                )?;
                cx.draw_records.push(record);
                Ok(vec![Effect::InstantWin(Box::new(InstantWinDrawEffect {
                    rule_id: campaign.id,
                    rule_name,
                    draw,
                }))])
            }
            CampaignKind::Reward(_) => Err("a Reward has no effects of its own".into()),
            // Its Vouchers' effects are reckoned after every discount
            // campaign's (`coupons::apply`).
            CampaignKind::Coupon(_) => Ok(Vec::new()),
            CampaignKind::Voucher(earned) => Ok(earned_voucher(
                campaign,
                *earned,
                cx.campaigns,
                cx.facts,
                cx.render,
            )?),
            CampaignKind::Challenge(challenge) => Ok(challenge_effects(campaign, challenge, cx)?),
            // What it shows is its messages (`messages::rules`).
            CampaignKind::Message => Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// A smallest valid campaign file of each kind, by name.
    fn sample(name: &str) -> Option<&'static str> {
        Some(match name {
            "discount" => {
                "id: 1\nkind: discount\nname: D\non: cart\ndiscount:\n  applies_to: cart\n  percent: 10\n"
            }
            "points" => "id: 1\nkind: points\nname: P\non: cart\npoints:\n  fixed: 5\n",
            "instant_win" => {
                "id: 1\nkind: instant_win\nname: I\non: cart\nselect_customers: loyalty\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n"
            }
            "reward" => "id: 1\nkind: reward\nname: R\n",
            "game" => {
                "id: 1\nkind: game\nname: G\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n"
            }
            "coupon" => "id: 1\nkind: coupon\nname: C\ncoupon:\n  discount: { percent: 10 }\n",
            "voucher" => {
                "id: 2\nkind: voucher\nname: V\non: { custom_event: review }\nvoucher:\n  coupon: 1\n"
            }
            "challenge" => {
                "id: 3\nkind: challenge\nname: C\non: cart\ngoal: { count: 3 }\nreward: { points: 10 }\n"
            }
            "message" => {
                "id: 4\nkind: message\nname: M\non: cart\nmessages:\n  - key: hello\n    text: Hello\n"
            }
            _ => return None,
        })
    }

    #[test]
    fn every_registered_kind_compiles_from_its_file_and_answers_to_its_name() {
        let engine = ScriptEngine::new();
        for name in CampaignKind::NAMES {
            let text = sample(name)
                .unwrap_or_else(|| panic!("kind `{name}` is registered without a sample file"));
            let campaign = Campaign::parse(&engine, &PathBuf::from("k.yaml"), text)
                .unwrap_or_else(|errors| panic!("kind `{name}`: {errors:?}"));
            assert_eq!(campaign.kind.name(), name);
        }
        let mut names = CampaignKind::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CampaignKind::NAMES.len(), "names are unique");
    }

    #[test]
    fn an_unregistered_kind_is_refused_with_the_registered_names() {
        let errors = Campaign::parse(
            &ScriptEngine::new(),
            &PathBuf::from("k.yaml"),
            "id: 1\nkind: raffle\nname: R\n",
        )
        .unwrap_err();
        let message = errors[0].to_string();
        for name in CampaignKind::NAMES {
            assert!(message.contains(name), "{message}");
        }
    }
}
