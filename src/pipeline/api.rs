//! What the pipeline's operations answer over HTTP besides their record: the
//! effects of the campaigns that applied, one documented shape per kind
//! (told apart by `type`), and with `explain=true` why each campaign applied
//! or not. Carts, Custom Events and triggers all answer with these.

use std::sync::Arc;

use poem_openapi::{Object, Union};

use crate::common::amount::Amount;
use crate::engine::effect::DiscountEffect;
use crate::engine::effect::Effect;
use crate::engine::effect::InstantWinDrawEffect;
use crate::engine::effect::PointsEffect;
use crate::engine::effect::VoucherEffect;
use crate::engine::effect::VoucherIssuedEffect;
use crate::engine::effect::VoucherRejection;
use crate::engine::evaluate::Explanation;
use crate::resources::challenges::evaluate::ChallengeEffect;
use crate::resources::challenges::model::ChallengeGrantBody;
use crate::resources::vouchers::model::CouponInfo;
use crate::resources::vouchers::model::Voucher;

/// One effect of a campaign on the event; `type` says which kind.
// A body lives only from its evaluation to the serialiser, and poem's
// discriminated unions take objects, not boxes.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Union)]
#[oai(discriminator_name = "type", one_of)]
pub enum EffectBody {
    /// Money off the cart or one of its lines.
    #[oai(mapping = "discount")]
    Discount(DiscountEffectBody),
    /// Points earned.
    #[oai(mapping = "points")]
    Points(PointsEffectBody),
    /// An Instant Win draw, won or not.
    #[oai(mapping = "instant_win")]
    InstantWin(InstantWinEffectBody),
    /// A Voucher's discount on one cart line.
    #[oai(mapping = "voucher")]
    Voucher(VoucherEffectBody),
    /// A Voucher the cart named that was not used.
    #[oai(mapping = "voucher_rejected")]
    VoucherRejected(VoucherRejectedEffectBody),
    /// A Voucher a `voucher` campaign issued to the Customer.
    #[oai(mapping = "voucher_issued")]
    VoucherIssued(VoucherIssuedEffectBody),
    /// Progress the event made in a Challenge.
    #[oai(mapping = "challenge")]
    Challenge(ChallengeEffectBody),
}

/// The fields every effect carries.
#[derive(Debug, Object)]
pub struct EffectCampaign {
    /// The campaign's id.
    pub rule_id: i64,
    /// The campaign's name, in the response language.
    pub rule_name: String,
    /// The 1-based cart line a discount takes its `value` off; 0 for every
    /// other kind.
    pub line: i64,
    /// Money a discount takes off `line`, exact to the minor unit; 0 for
    /// every other kind.
    pub value: Amount,
    /// A discount's `percent` or `amount`; empty for every other kind.
    pub effect_type: String,
    /// A discount's `cart` or `line`: a cart discount answers one effect per
    /// line it reaches, each with that line's share, and the shares of one
    /// campaign add up exactly to its discount; empty for every other kind.
    pub distribution_type: String,
}

impl EffectCampaign {
    /// The fields of an effect other than a discount.
    fn of(rule_id: i64, rule_name: String) -> Self {
        EffectCampaign {
            rule_id,
            rule_name,
            line: 0,
            value: Amount::ZERO,
            effect_type: String::new(),
            distribution_type: String::new(),
        }
    }
}

/// A discount: `value` off cart line `line`.
///
/// A line discount (`distribution_type: line`) answers one effect per line it
/// matched. A cart discount (`distribution_type: cart`) is shared out over the
/// cart's lines in proportion to what each is worth (price times quantity,
/// less the discounts before it), in whole minor units, the unit left over
/// going to the largest remainders; it answers one effect per line with a
/// share, and the `value`s of one campaign add up exactly to its discount.
/// The stored cart's lines carry the same figures in `discount`.
#[derive(Debug, Object)]
pub struct DiscountEffectBody {
    /// The campaign and the discount.
    #[oai(flatten)]
    pub campaign: EffectCampaign,
}

/// Points earned by a points campaign.
#[derive(Debug, Object)]
pub struct PointsEffectBody {
    /// The campaign.
    #[oai(flatten)]
    pub campaign: EffectCampaign,
    /// Points earned.
    pub points: i64,
}

/// An Instant Win draw: won when `prize_name` and `prize_rule_id` are present.
#[derive(Debug, Object)]
pub struct InstantWinEffectBody {
    /// The campaign.
    #[oai(flatten)]
    pub campaign: EffectCampaign,
    /// `loyalty` or `targeted`.
    pub select_customers: String,
    /// Targeted only: the Targeted Delivery send that assigned it.
    #[oai(skip_serializing_if_is_none)]
    pub campaign_history_id: Option<String>,
    /// Targeted only: the Voucher it took part with.
    #[oai(skip_serializing_if_is_none)]
    pub coupon_info: Option<CouponInfo>,
    /// Only on a win: the prize's name.
    #[oai(skip_serializing_if_is_none)]
    pub prize_name: Option<String>,
    /// Only on a win: the prize's description.
    #[oai(skip_serializing_if_is_none)]
    pub prize_description: Option<String>,
    /// Only on a win: the points campaign, Reward or game given.
    #[oai(skip_serializing_if_is_none)]
    pub prize_rule_id: Option<i64>,
    /// Index of the drawn entry (-1: none). Kept for backward compatibility;
    /// whether the Customer won is told by `prize_name` and `prize_rule_id`.
    pub winned_prize_index: i64,
}

/// A Voucher named in `coupons_desired`: `value` off cart line `line`.
///
/// Vouchers apply after the discount campaigns, in the order the cart names
/// them, each on what is left of the lines its Coupon does not exclude
/// (`excluded_products`, `excluded_categories`): a percentage of what is
/// left of them, or a fixed amount, at most its Coupon's `max_amount` and
/// at most what is left. Its value is shared out over those lines like a
/// cart discount's (`distribution_type: cart`), one effect per line with a
/// share, the shares adding up exactly to it. A realtime cart redeems one
/// use of each applied Voucher in its own transaction; its cancellation
/// gives the uses back; a simulation redeems nothing.
#[derive(Debug, Object)]
pub struct VoucherEffectBody {
    /// The Coupon (`rule_id`, `rule_name`) and the line's share.
    #[oai(flatten)]
    pub campaign: EffectCampaign,
    /// The Voucher's code as issued (also in `coupon_info`).
    pub voucher_code: String,
    /// The Voucher and its Coupon.
    pub coupon_info: CouponInfo,
}

/// A Voucher named in `coupons_desired` that was not used: the sale went on
/// without it. `code` is the refusal the Voucher would get from
/// POST /vouchers/redeem (`voucher_not_found`, `voucher_redeemed`,
/// `voucher_expired`, `voucher_inactive`, `voucher_deleted`,
/// `voucher_out_location`, `voucher_out_date`, `voucher_frozen`), or
/// `voucher_not_applicable` when its Coupon's condition is not met by this
/// cart, every line is excluded from it, or nothing is left to take off, or
/// `voucher_not_combinable` when the stacking rules left it out (`error`
/// names the offer that applies instead and what it is worth more), or
/// `voucher_lookups_limited` when the API key sent too many unknown codes
/// within the minute (the code was not looked up).
#[derive(Debug, Object)]
pub struct VoucherRejectedEffectBody {
    /// The Coupon (`rule_id` 0 and `rule_name` empty when no Voucher has the
    /// code); `line` and `value` are 0.
    #[oai(flatten)]
    pub campaign: EffectCampaign,
    /// The code as the cart named it.
    pub voucher_code: String,
    /// Why it was not used: the interface's refusal code.
    pub code: String,
    /// What it means here.
    pub error: String,
}

/// A Voucher a `voucher` campaign issued to the event's Customer, written
/// in the event's own transaction: a later cart names `voucher_code` in
/// `coupons_desired`. A simulation shows the Voucher it would issue and
/// issues nothing.
#[derive(Debug, Object)]
pub struct VoucherIssuedEffectBody {
    /// The `voucher` campaign; `line` and `value` are 0.
    #[oai(flatten)]
    pub campaign: EffectCampaign,
    /// The issued Voucher's code (also in `coupon_info` and `voucher`).
    pub voucher_code: String,
    /// The Voucher and its Coupon.
    pub coupon_info: CouponInfo,
    /// The Voucher issued.
    pub voucher: Voucher,
}

/// Progress the event made in a Challenge (`rule_id`): it counted, and
/// `progress` of `target` is reached. On the event that completes it,
/// `completed` is true and `granted` says what it gave, written in the
/// event's own transaction (points in the ledger, a Reward held, a game
/// participation, or a Voucher, also answered as a `voucher_issued` effect).
/// An event that does not count answers no effect; `explain=true` says why.
#[derive(Debug, Object)]
pub struct ChallengeEffectBody {
    /// The Challenge; `line` and `value` are 0.
    #[oai(flatten)]
    pub campaign: EffectCampaign,
    /// Progress after the event, at most `target`: events counted, an
    /// amount added up, days or weeks in a row, or periods in a row met.
    pub progress: Amount,
    /// What completes it.
    pub target: Amount,
    /// Whether this event completed it.
    pub completed: bool,
    /// What the completion gave; absent when it gave nothing (the period's
    /// grant was given before, by a completion a return revoked).
    #[oai(skip_serializing_if_is_none)]
    pub granted: Option<ChallengeGrantBody>,
}

impl From<Effect> for EffectBody {
    fn from(effect: Effect) -> Self {
        match effect {
            Effect::Discount(discount) => EffectBody::Discount(discount.into()),
            Effect::Points(PointsEffect {
                rule_id,
                rule_name,
                points,
            }) => EffectBody::Points(PointsEffectBody {
                campaign: EffectCampaign::of(rule_id, rule_name),
                points,
            }),
            Effect::InstantWin(boxed) => {
                let InstantWinDrawEffect {
                    rule_id,
                    rule_name,
                    draw,
                } = *boxed;
                EffectBody::InstantWin(InstantWinEffectBody {
                    campaign: EffectCampaign::of(rule_id, rule_name),
                    select_customers: draw.select_customers.to_string(),
                    campaign_history_id: draw.campaign_history_id,
                    coupon_info: draw.coupon_info,
                    prize_name: draw.prize_name,
                    prize_description: draw.prize_description,
                    prize_rule_id: draw.prize_rule_id,
                    winned_prize_index: draw.winned_prize_index,
                })
            }
            Effect::Voucher(boxed) => {
                let VoucherEffect {
                    rule_id,
                    rule_name,
                    line,
                    value,
                    effect_type,
                    coupon_info,
                } = *boxed;
                let coupon_info = Arc::unwrap_or_clone(coupon_info);
                EffectBody::Voucher(VoucherEffectBody {
                    campaign: EffectCampaign {
                        line,
                        value: Amount(value),
                        effect_type: effect_type.as_str().to_string(),
                        distribution_type: "cart".to_string(),
                        rule_id,
                        rule_name: rule_name.to_string(),
                    },
                    voucher_code: coupon_info.voucher_code.clone(),
                    coupon_info,
                })
            }
            Effect::VoucherRejected(boxed) => {
                let VoucherRejection {
                    rule_id,
                    rule_name,
                    voucher_code,
                    code,
                    error,
                } = *boxed;
                EffectBody::VoucherRejected(VoucherRejectedEffectBody {
                    campaign: EffectCampaign::of(rule_id, rule_name),
                    voucher_code,
                    code: code.code().to_string(),
                    error,
                })
            }
            Effect::VoucherIssued(issued) => {
                let coupon_info = issued.coupon_info();
                let VoucherIssuedEffect {
                    rule_id,
                    rule_name,
                    voucher,
                    ..
                } = *issued;
                EffectBody::VoucherIssued(VoucherIssuedEffectBody {
                    campaign: EffectCampaign::of(rule_id, rule_name),
                    voucher_code: voucher.code.clone(),
                    coupon_info,
                    voucher,
                })
            }
            Effect::Challenge(challenge) => {
                let ChallengeEffect {
                    rule_id,
                    rule_name,
                    step,
                    ..
                } = *challenge;
                EffectBody::Challenge(ChallengeEffectBody {
                    campaign: EffectCampaign::of(rule_id, rule_name),
                    progress: step.progress,
                    target: step.target,
                    completed: step.completed,
                    granted: step.granted.map(Into::into),
                })
            }
        }
    }
}

impl From<DiscountEffect> for DiscountEffectBody {
    fn from(discount: DiscountEffect) -> Self {
        DiscountEffectBody {
            campaign: EffectCampaign {
                line: discount.line,
                value: Amount(discount.value),
                effect_type: discount.effect_type.as_str().to_string(),
                distribution_type: discount.distribution_type().to_string(),
                rule_id: discount.rule_id,
                rule_name: discount.rule_name.to_string(),
            },
        }
    }
}

/// Why a campaign applied or not.
#[derive(Debug, Object)]
pub struct ExplanationBody {
    /// The campaign's id.
    pub rule_id: i64,
    /// The campaign's file and line.
    pub source: String,
    /// Whether it returned effects.
    pub applied: bool,
    /// Why not, when it did not.
    #[oai(skip_serializing_if_is_none)]
    pub reason: Option<String>,
    /// Where what decided it is written, as `file:line` or
    /// `file:line:column`: the part of its condition that was false, or the
    /// key (`on`, `locations`, `limits`, `stacking`, `tiers`, ...).
    #[oai(skip_serializing_if_is_none)]
    pub at: Option<String>,
    /// When its condition (or line selector) was false: the parts of it
    /// that made it so, each with the values it read.
    #[oai(skip_serializing_if_is_empty, default)]
    pub parts: Vec<ConditionPartBody>,
}

/// A part of a condition that decided its result.
#[derive(Debug, Object)]
pub struct ConditionPartBody {
    /// The part as written, e.g. `cart.total > 40.0`.
    pub part: String,
    /// What it gave.
    pub was: bool,
    /// Where it is written: `file:line:column`.
    pub at: String,
    /// The facts it read and their values, e.g. `{"cart.total": 35.0}`
    /// (absent facts are `null`).
    pub values: std::collections::BTreeMap<String, serde_json::Value>,
    /// In a line selector: the cart line (from 1) it was evaluated on.
    #[oai(skip_serializing_if_is_none)]
    pub cart_line: Option<usize>,
}

impl From<Explanation> for ExplanationBody {
    fn from(explanation: Explanation) -> Self {
        ExplanationBody {
            rule_id: explanation.rule_id,
            source: explanation.source.to_string(),
            applied: explanation.applied,
            reason: explanation.reason,
            at: explanation.at.map(|at| at.to_string()),
            parts: explanation
                .parts
                .into_iter()
                .map(|part| ConditionPartBody {
                    part: part.text,
                    was: part.was,
                    at: part.at,
                    values: part.values.into_iter().collect(),
                    cart_line: part.cart_line,
                })
                .collect(),
        }
    }
}

/// Effects, and explanations when asked for, as response bodies.
pub(crate) fn bodies(
    effects: Vec<Effect>,
    explanations: Vec<Explanation>,
    explain: bool,
) -> (Vec<EffectBody>, Option<Vec<ExplanationBody>>) {
    (
        effects.into_iter().map(Into::into).collect(),
        explain.then(|| explanations.into_iter().map(Into::into).collect()),
    )
}
