//! Settling a cart's offers, in one documented order: every discount
//! campaign that applied and every Voucher the cart presents is an offer;
//! offers of higher `priority` come first and win conflicts; among offers
//! of one priority that do not combine, the choice worth most to the
//! Customer (each reckoned on the cart alone) wins ([`choose`](mod@choose)); the
//! winners then take their money off in priority order, campaigns before
//! Vouchers and each in its own order, every one at most what the ones
//! before it left ([`reckon`]). An offer left out says why: a campaign in
//! its explanation, a Voucher in a `voucher_rejected` effect.

pub mod choose;
pub mod reckon;

use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::Arc;

use rust_decimal::Decimal;

use crate::engine::campaign::Campaign;
use crate::engine::effect::DiscountEffect;
use crate::engine::effect::Distribution;
use crate::engine::effect::Effect;
use crate::engine::effect::VoucherEffect;
use crate::engine::effect::VoucherRejection;
use crate::engine::evaluate::Explanation;
use crate::engine::facts::Facts;
use crate::engine::text::Text;
use crate::error::ErrorCode;
use crate::resources::coupons::apply::voucher_offers;
use crate::resources::discounts::settle::choose::Contender;
use crate::resources::discounts::settle::choose::choose;
use crate::resources::discounts::settle::reckon::Left;
use crate::resources::discounts::settle::reckon::Reckoning;
use crate::resources::discounts::settle::reckon::Spread;
use crate::resources::discounts::stacking::Stacking;
use crate::resources::limits::Headroom;
use crate::resources::limits::OfferLimit;
use crate::resources::limits::OfferTakes;
use crate::resources::limits::Redeeming;
use crate::resources::limits::limit_takes as limit_takes_of;
use crate::resources::vouchers::model::CouponInfo;
use crate::resources::vouchers::usable::Refusal;

/// A discount campaign that applied to the cart, before it meets the other
/// offers.
#[derive(Debug, Clone)]
pub struct CampaignOffer {
    /// The campaign.
    pub rule_id: i64,
    /// Its name in the response language.
    pub rule_name: Arc<str>,
    /// What it takes off.
    pub reckoning: Reckoning,
    /// Where its effects go among the other campaigns' (campaign order).
    pub position: usize,
}

/// What gave an offer.
#[derive(Debug, Clone)]
pub enum Giver {
    /// A discount campaign; its effects go at `position`.
    Campaign {
        /// Where its effects go.
        position: usize,
    },
    /// The Voucher at `desired` in the cart's Vouchers.
    Voucher {
        /// Its place among `facts.vouchers`.
        desired: usize,
        /// The Voucher and its Coupon, as its effects name them.
        coupon_info: Arc<CouponInfo>,
    },
}

/// One discount campaign or Voucher competing for the cart.
#[derive(Debug, Clone)]
pub struct Offer<'c> {
    /// The campaign or the Voucher's Coupon.
    pub rule_id: i64,
    /// Its name in the response language.
    pub rule_name: Arc<str>,
    /// How it shares the cart.
    pub stacking: &'c Stacking,
    /// Its budgets and caps.
    pub limits: &'c [OfferLimit],
    /// What it takes off.
    pub reckoning: Reckoning,
    /// What gave it.
    pub giver: Giver,
}

impl Offer<'_> {
    /// How explanations name it.
    fn label(&self) -> String {
        match &self.giver {
            Giver::Campaign { .. } => format!("`{}` (rule {})", self.rule_name, self.rule_id),
            Giver::Voucher { coupon_info, .. } => format!(
                "Voucher {} of `{}` (Coupon {})",
                coupon_info.voucher_code, self.rule_name, self.rule_id
            ),
        }
    }
}

/// Settles the discount campaigns that applied (`campaign_offers`) and the
/// Vouchers of `facts` into `effects` (campaigns' at their place, Vouchers'
/// after every other) and `explanations` (a campaign or Coupon that took
/// nothing off did not apply, and says why).
pub fn settle(
    effects: &mut Vec<Effect>,
    explanations: &mut [Explanation],
    limit_takes: &mut Vec<OfferTakes>,
    campaign_offers: Vec<CampaignOffer>,
    campaigns: &[Campaign],
    facts: &Facts,
    render: &dyn Fn(&Text) -> String,
) {
    if campaign_offers.is_empty() && facts.vouchers.is_empty() {
        return;
    }
    let mut offers: Vec<Offer<'_>> = campaign_offers
        .into_iter()
        .filter_map(|offer| {
            let campaign = campaigns.iter().find(|c| c.id == offer.rule_id)?;
            Some(Offer {
                rule_id: offer.rule_id,
                rule_name: offer.rule_name,
                stacking: &campaign.stacking,
                limits: &campaign.limits,
                reckoning: offer.reckoning,
                giver: Giver::Campaign {
                    position: offer.position,
                },
            })
        })
        .collect();
    let mut voucher_refusals: Vec<Option<Refusal>> = vec![None; facts.vouchers.len()];
    for (desired, outcome) in voucher_offers(campaigns, explanations, facts, render)
        .into_iter()
        .enumerate()
    {
        match outcome {
            Ok(offer) => offers.push(offer),
            Err(refusal) => voucher_refusals[desired] = Some(refusal),
        }
    }
    let (shares, losses) = settle_offers(&offers, facts);
    place_effects(effects, &offers, &shares);
    let redeeming = Redeeming::of_facts(facts);
    for ((offer, shares), loss) in offers.iter().zip(&shares).zip(&losses) {
        if offer.limits.is_empty() || loss.is_some() {
            continue;
        }
        let (voucher_id, code) = match &offer.giver {
            Giver::Campaign { .. } => (None, ErrorCode::DiscountLimitReached),
            Giver::Voucher { coupon_info, .. } => (
                Some(coupon_info.voucher_id.clone()),
                ErrorCode::VoucherLimitReached,
            ),
        };
        let amount: Decimal = shares.iter().copied().sum();
        limit_takes.push(OfferTakes {
            rule_id: offer.rule_id,
            voucher_id,
            takes: limit_takes_of(
                offer.rule_id,
                &offer.label(),
                offer.limits,
                &redeeming,
                amount,
                code,
            ),
        });
    }
    let mut voucher_effects: Vec<Vec<Effect>> = vec![Vec::new(); facts.vouchers.len()];
    for ((offer, shares), loss) in offers.iter().zip(&shares).zip(losses) {
        match (&offer.giver, loss) {
            (Giver::Campaign { .. }, Some((code, reason))) => {
                if let Some(explanation) =
                    explanations.iter_mut().find(|e| e.rule_id == offer.rule_id)
                {
                    // What decided is written under one key of its file.
                    let key = match code {
                        ErrorCode::DiscountLimitReached => "limits",
                        ErrorCode::VoucherNotCombinable => "stacking",
                        _ => "lines",
                    };
                    let campaign = campaigns.iter().find(|c| c.id == offer.rule_id);
                    explanation.refuse(campaign, key, reason);
                }
            }
            (Giver::Campaign { .. }, None) => {}
            (Giver::Voucher { desired, .. }, Some(refusal)) => {
                voucher_refusals[*desired] = Some(refusal);
            }
            (
                Giver::Voucher {
                    desired,
                    coupon_info,
                },
                None,
            ) => {
                voucher_effects[*desired] = shares
                    .iter()
                    .enumerate()
                    .filter(|(_, share)| **share > Decimal::ZERO)
                    .map(|(index, share)| {
                        Effect::Voucher(Box::new(VoucherEffect {
                            rule_id: offer.rule_id,
                            rule_name: offer.rule_name.clone(),
                            line: index as i64 + 1,
                            value: *share,
                            effect_type: offer.reckoning.effect_type(),
                            coupon_info: coupon_info.clone(),
                        }))
                    })
                    .collect();
            }
        }
    }
    let mut applied_coupons = std::collections::HashSet::new();
    let mut first_rejection = std::collections::HashMap::new();
    for (desired, voucher) in facts.vouchers.iter().enumerate() {
        match voucher_refusals[desired].take() {
            None => {
                applied_coupons.insert(voucher.coupon_id);
                effects.append(&mut voucher_effects[desired]);
            }
            Some((code, error)) => {
                let campaign = campaigns.iter().find(|c| c.id == voucher.coupon_id);
                first_rejection
                    .entry(voucher.coupon_id)
                    .or_insert_with(|| format!("{}: {error}", voucher.code));
                effects.push(Effect::VoucherRejected(Box::new(VoucherRejection {
                    rule_id: voucher.coupon_id,
                    rule_name: campaign.map(|c| render(&c.name)).unwrap_or_default(),
                    voucher_code: voucher.code.clone(),
                    code,
                    error,
                })));
            }
        }
    }
    // A Coupon none of whose Vouchers took anything off did not apply.
    for explanation in explanations.iter_mut() {
        if explanation.applied
            && !applied_coupons.contains(&explanation.rule_id)
            && let Some(reason) = first_rejection.remove(&explanation.rule_id)
        {
            let campaign = campaigns.iter().find(|c| c.id == explanation.rule_id);
            explanation.refuse(campaign, "coupon", reason);
        }
    }
}

/// What each offer takes off each line, and why it takes nothing when it
/// does not: worth nothing on the cart alone, left out by the stacking
/// rules, or nothing left by the offers before it.
fn settle_offers(offers: &[Offer<'_>], facts: &Facts) -> (Vec<Vec<Decimal>>, Vec<Option<Refusal>>) {
    let everything = Left::all_of(facts);
    let mut losses: Vec<Option<Refusal>> = vec![None; offers.len()];
    let mut contenders = Vec::with_capacity(offers.len());
    let mut contending = Vec::with_capacity(offers.len());
    for (index, offer) in offers.iter().enumerate() {
        if let Some(reached) = facts
            .limits
            .get(&offer.rule_id)
            .and_then(Headroom::exhausted)
        {
            losses[index] = Some((limit_code(offer), reached));
            continue;
        }
        let worth: Decimal = offer
            .reckoning
            .shares(offer.stacking.base, &everything, facts)
            .iter()
            .sum();
        if worth > Decimal::ZERO {
            contending.push(index);
            contenders.push(Contender {
                stacking: offer.stacking,
                worth,
                label: offer.label(),
            });
        } else {
            losses[index] = Some(nothing_left(offer, "the discount comes to 0"));
        }
    }
    for (verdict, &index) in choose(&contenders).into_iter().zip(&contending) {
        if let Some(reason) = verdict {
            losses[index] = Some((ErrorCode::VoucherNotCombinable, reason));
        }
    }
    let mut order: Vec<usize> = (0..offers.len())
        .filter(|&index| losses[index].is_none())
        .collect();
    order.sort_by_key(|&index| (Reverse(offers[index].stacking.priority), index));
    let mut shares = vec![Vec::new(); offers.len()];
    let mut left = everything;
    // What each limited offer's budget has left, shared by its Vouchers.
    let mut budgets: HashMap<i64, (Decimal, &str)> = facts
        .limits
        .iter()
        .filter_map(|(rule_id, headroom)| {
            headroom
                .amount
                .as_ref()
                .map(|(left, limit)| (*rule_id, (*left, limit.as_str())))
        })
        .collect();
    for index in order {
        let offer = &offers[index];
        let budget = budgets.get_mut(&offer.rule_id);
        let taken = match &budget {
            Some((left_of_budget, limit)) if left_of_budget.is_zero() => {
                losses[index] = Some((limit_code(offer), format!("its limit of {limit} is spent")));
                continue;
            }
            Some((left_of_budget, _)) => {
                let capped = Reckoning {
                    max_amount: Some(
                        offer
                            .reckoning
                            .max_amount
                            .map_or(*left_of_budget, |cap| cap.min(*left_of_budget)),
                    ),
                    ..offer.reckoning.clone()
                };
                capped.shares(offer.stacking.base, &left, facts)
            }
            None => offer.reckoning.shares(offer.stacking.base, &left, facts),
        };
        if let Some((left_of_budget, _)) = budget {
            *left_of_budget -= taken.iter().copied().sum::<Decimal>();
        }
        if taken.iter().all(|share| *share <= Decimal::ZERO) {
            losses[index] = Some(nothing_left(
                offer,
                "the discounts before it left nothing to take off",
            ));
            continue;
        }
        left.take(&taken);
        shares[index] = taken;
    }
    (shares, losses)
}

/// The refusal of `offer` when a limit of it is reached.
fn limit_code(offer: &Offer<'_>) -> ErrorCode {
    match offer.giver {
        Giver::Campaign { .. } => ErrorCode::DiscountLimitReached,
        Giver::Voucher { .. } => ErrorCode::VoucherLimitReached,
    }
}

/// Why `offer` takes nothing: a campaign says `campaign_reason`; a Voucher
/// is not applicable.
fn nothing_left(offer: &Offer<'_>, campaign_reason: &str) -> Refusal {
    match offer.giver {
        Giver::Campaign { .. } => (ErrorCode::VoucherNotApplicable, campaign_reason.into()),
        Giver::Voucher { .. } => (
            ErrorCode::VoucherNotApplicable,
            "nothing is left to take off the lines it may discount".into(),
        ),
    }
}

/// Puts the discount campaigns' effects at their places in `effects`: one
/// per line they take something off.
fn place_effects(effects: &mut Vec<Effect>, offers: &[Offer<'_>], shares: &[Vec<Decimal>]) {
    // From the last place back, so the earlier places stay where they were
    // (campaigns next to each other share a place, in campaign order).
    for (offer, shares) in offers.iter().zip(shares).rev() {
        let Giver::Campaign { position } = offer.giver else {
            continue;
        };
        let distribution = match offer.reckoning.spread {
            Spread::PerLine => Distribution::Line,
            Spread::Total | Spread::Eligible => Distribution::Cart,
        };
        let placed = shares
            .iter()
            .enumerate()
            .filter(|(_, share)| **share > Decimal::ZERO)
            .map(|(index, share)| {
                Effect::Discount(DiscountEffect {
                    rule_id: offer.rule_id,
                    rule_name: offer.rule_name.clone(),
                    line: index as i64 + 1,
                    value: *share,
                    effect_type: offer.reckoning.effect_type(),
                    distribution,
                })
            });
        effects.splice(position..position, placed);
    }
}

#[cfg(test)]
mod tests;
