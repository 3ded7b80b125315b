//! Instant Win in the interpreter: whether the Customer takes part in a draw,
//! the draw itself, the `instant_win` effect it returns and the record of it
//! the service stores. Pure: participations, stock, the Customer's Voucher and
//! the random source are passed in.

use crate::resources::challenges::progress::ChallengeRecord;
use crate::resources::instant_wins::draw_record::DrawRecord;
use crate::resources::instant_wins::draw_record::InstantWinState;
use crate::resources::instant_wins::draw_record::StockSeen;
use crate::resources::instant_wins::draw_record::WonPrize;
use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::engine::not_applied::NotApplied;
use crate::engine::text::Text;
use crate::resources::instant_wins::rules::Audience;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::draw;
use crate::resources::instant_wins::rules::forced::{ForcedPrize, forced_random};
use crate::resources::points_campaigns::rules::PointsAccrual;
use crate::resources::vouchers::model::CouponInfo;

/// How the reason a Customer cannot play a game starts.
pub const NO_PARTICIPATIONS: &str = "no participation left";

/// The state the campaigns of one event read, and the random source of its
/// draws.
pub struct Draws<'a> {
    /// State per Instant Win rule id; a campaign missing here has no
    /// participations, no prize given and no Voucher.
    pub states: &'a HashMap<i64, InstantWinState>,
    /// The Customer's record per Challenge id; missing: nothing counted yet.
    pub challenges: &'a HashMap<i64, ChallengeRecord>,
    /// Values in [0, 1): seeded in tests and scenarios, the OS generator in production.
    pub random: &'a mut dyn FnMut() -> f64,
    /// The prize the next draw of an Instant Win gives, when a scenario
    /// forced it (never in production).
    pub forced: &'a HashMap<i64, ForcedPrize>,
}

/// The Instant Win fields of an `instant_win` effect.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstantWinEffect {
    /// `loyalty` or `targeted`.
    pub select_customers: &'static str,
    /// Targeted only: the Targeted Delivery send that assigned it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub campaign_history_id: Option<String>,
    /// Targeted only: the Voucher.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coupon_info: Option<CouponInfo>,
    /// Only on a win.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prize_name: Option<String>,
    /// Only on a win.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prize_description: Option<String>,
    /// Only on a win: the points campaign, Reward or game given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prize_rule_id: Option<i64>,
    /// Index of the drawn entry (-1: none); not by itself a win.
    pub winned_prize_index: i64,
}

/// The event's `coupons_desired`.
fn coupons_desired(facts: &Facts) -> Vec<&str> {
    [&facts.cart, &facts.event, &facts.trigger]
        .into_iter()
        .filter_map(|value| value.get("coupons_desired").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether the Customer may take part; the reason when not.
fn may_take_part(
    instant_win: &InstantWin,
    state: &InstantWinState,
    facts: &Facts,
) -> Result<(), NotApplied> {
    // Its days, hours, tiers, countries and `locations` are every
    // campaign's (`engine::evaluate`).
    if instant_win.audience == Audience::Targeted {
        let Some(voucher) = &state.voucher else {
            return Err("targeted: the Customer holds no Voucher of this Instant Win".into());
        };
        let desired = coupons_desired(facts);
        if !desired.iter().any(|c| *c == "all" || *c == voucher.code) {
            return Err(
                "targeted: coupons_desired names neither `all` nor the Customer's Voucher code"
                    .into(),
            );
        }
        if let Some(uses) = instant_win.coupon.as_ref().and_then(|c| c.uses_per_voucher)
            && voucher.uses_left <= 0
        {
            return Err(format!(
                "targeted: Voucher {} has given its {uses} draws",
                voucher.code
            )
            .into());
        }
    }
    if instant_win.granted_plays {
        if state.participations >= instant_win.once_limit && state.granted <= 0 {
            return Err(NotApplied::at_key(
                "once_limit",
                format!(
                    "{NO_PARTICIPATIONS}: {} free plays of {} per {} used and no participation given",
                    state.participations.min(instant_win.once_limit),
                    instant_win.once_limit,
                    instant_win.once.name()
                ),
            ));
        }
        return Ok(());
    }
    if state.participations >= instant_win.once_limit {
        return Err(NotApplied::at_key(
            "once_limit",
            format!(
                "participation limit reached: {} of {} per {}",
                state.participations,
                instant_win.once_limit,
                instant_win.once.name()
            ),
        ));
    }
    Ok(())
}

/// The points campaign `id` a points prize gives.
fn points_campaign(campaigns: &[Campaign], id: i64) -> Option<&PointsAccrual> {
    campaigns.iter().find_map(|c| match &c.kind {
        CampaignKind::Points(accrual) if c.id == id => Some(accrual),
        _ => None,
    })
}

/// The draw of `campaign` for this event: its effect and its record, or why
/// the Customer did not take part.
pub fn instant_win_draw(
    campaign: &Campaign,
    instant_win: &InstantWin,
    campaigns: &[Campaign],
    facts: &Facts,
    draws: &mut Draws<'_>,
    render: &dyn Fn(&Text) -> String,
) -> Result<(InstantWinEffect, DrawRecord), NotApplied> {
    let empty = InstantWinState::default();
    let state = draws.states.get(&campaign.id).unwrap_or(&empty);
    may_take_part(instant_win, state, facts)?;
    let given: Vec<i64> = (0..instant_win.prizes.len())
        .map(|i| state.given.get(i).copied().unwrap_or(0))
        .collect();
    let forced = draws
        .forced
        .get(&campaign.id)
        .and_then(|target| forced_random(&instant_win.prizes, &given, target));
    let random = forced.unwrap_or_else(|| (draws.random)());
    let drawn = draw(&instant_win.prizes, &given, random);
    let won = drawn
        .index
        .filter(|_| drawn.won)
        .map(|i| &instant_win.prizes[i]);
    let coupon_info = match (&instant_win.coupon, &state.voucher) {
        (Some(coupon), Some(voucher)) if instant_win.audience == Audience::Targeted => {
            Some(CouponInfo {
                voucher_id: voucher.id.clone(),
                voucher_code: voucher.code.clone(),
                coupon_id: coupon.id,
                coupon_name: render(&coupon.name),
                static_code: coupon.static_code.clone(),
            })
        }
        _ => None,
    };
    let drawn_index = drawn.index.map_or(-1, |i| i as i64);
    let effect = InstantWinEffect {
        select_customers: instant_win.audience.name(),
        campaign_history_id: coupon_info
            .as_ref()
            .and(state.voucher.as_ref())
            .and_then(|v| v.campaign_history_id.clone()),
        coupon_info,
        prize_name: won.map(|p| render(&p.name)),
        prize_description: won.map(|p| p.description.as_ref().map(render).unwrap_or_default()),
        prize_rule_id: won.and_then(|p| p.promotion_id),
        winned_prize_index: drawn_index,
    };
    let record = DrawRecord {
        rule_id: campaign.id,
        period: instant_win.once.key(facts.locale.wall_clock(facts.now)),
        once_limit: instant_win.once_limit,
        participations_seen: state.participations,
        weights: drawn.weights,
        stock_seen: instant_win
            .prizes
            .iter()
            .zip(&given)
            .filter(|(prize, _)| prize.stock >= 0)
            .map(|(prize, given)| StockSeen {
                prize_id: prize.id.clone(),
                stock: prize.stock,
                given: *given,
            })
            .collect(),
        random,
        forced: forced.is_some(),
        drawn_index,
        prize: won.and_then(|prize| {
            let promotion_id = prize.promotion_id?;
            let accrual = (prize.promotion_type
                == crate::resources::instant_wins::rules::PromotionType::Points)
                .then(|| points_campaign(campaigns, promotion_id))
                .flatten();
            Some(WonPrize {
                prize_id: prize.id.clone(),
                promotion_type: prize.promotion_type.name(),
                promotion_id,
                points: accrual.map(|a| {
                    crate::resources::points_campaigns::rules::accrued_points(a, facts).max(0)
                }),
                points_kind: accrual.map(|a| a.kind),
                points_expire_at: accrual
                    .and_then(|a| a.expiry)
                    .map(|e| e.of(Timestamp::from(facts.now), &facts.locale)),
                stock: prize.stock,
            })
        }),
        voucher_code: state.voucher.as_ref().map(|v| v.code.clone()),
        voucher_used: state.voucher.is_some()
            && instant_win
                .coupon
                .as_ref()
                .is_some_and(|c| c.uses_per_voucher.is_some()),
        participation_used: instant_win.granted_plays
            && state.participations >= instant_win.once_limit,
    };
    Ok((effect, record))
}
