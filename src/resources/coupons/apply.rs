//! What the Vouchers a cart names take off it: after the discount
//! campaigns, in the order the cart names them, each on what is left of the
//! lines its Coupon does not exclude. Pure, like the rest of the engine: the
//! Vouchers were read and checked ([`crate::resources::vouchers::desired`])
//! before the evaluation.

use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::Arc;

use rust_decimal::Decimal;
use serde_json::Value;

use crate::common::money::allocate_with_ties;
use crate::common::money::round_money;
use crate::engine::campaign::Campaign;
use crate::engine::effect::DiscountType;
use crate::engine::effect::Effect;
use crate::engine::effect::VoucherEffect;
use crate::engine::effect::VoucherRejection;
use crate::engine::evaluate::Explanation;
use crate::engine::facts::Facts;
use crate::engine::text::Text;
use crate::error::ErrorCode;
use crate::resources::coupons::rules::Coupon;
use crate::resources::coupons::rules::CouponValue;
use crate::resources::coupons::service::coupon_of;
use crate::resources::discounts::rules::tie_keys;
use crate::resources::vouchers::model::CouponInfo;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::usable::Refusal;

/// A Voucher a cart names in `coupons_desired` (or one the Customer
/// selected, when the cart asks for those), as read before the evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct DesiredVoucher {
    /// The code as the cart named it.
    pub code: String,
    /// The Voucher's store key (its code's one normalisation).
    pub key: String,
    /// The Voucher's id; empty when no Voucher has the code.
    pub voucher_id: String,
    /// The code as issued.
    pub voucher_code: String,
    /// Its Coupon; 0 when no Voucher has the code.
    pub coupon_id: i64,
    /// The Coupon's shared code, when it has one.
    pub static_code: Option<String>,
    /// The hold of the cart's it is used under, if any.
    pub reservation_id: Option<String>,
    /// Why it cannot be used, when it cannot (checked against the store).
    pub refusal: Option<Refusal>,
    /// The Voucher to store with its first use, when none is stored yet (a
    /// Customer's Voucher of a static code).
    pub create: Option<Voucher>,
}

impl DesiredVoucher {
    /// Whether it can be used, as far as the store says.
    pub fn usable(&self) -> bool {
        self.refusal.is_none()
    }
}

/// Whether `campaign` is a Coupon with a usable Voucher in `facts`: a
/// Coupon takes part in a cart only through its Vouchers.
pub(crate) fn presented(campaign: &Campaign, facts: &Facts) -> Result<(), String> {
    if facts
        .vouchers
        .iter()
        .any(|voucher| voucher.coupon_id == campaign.id && voucher.usable())
    {
        Ok(())
    } else {
        Err("no usable Voucher of this Coupon in the cart's coupons_desired".into())
    }
}

/// The lines `coupon` may discount: those whose product and categories it
/// does not exclude.
fn eligible_lines(coupon: &Coupon, facts: &Facts) -> Vec<bool> {
    let lines = facts
        .cart
        .get("lines")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    lines
        .iter()
        .map(|line| {
            let product = line.get("product_code").and_then(Value::as_str);
            let excluded_product =
                product.is_some_and(|p| coupon.excluded_products.iter().any(|e| e == p));
            let excluded_category =
                line.get("taxonomies")
                    .and_then(Value::as_array)
                    .is_some_and(|categories| {
                        categories.iter().filter_map(Value::as_str).any(|category| {
                            coupon.excluded_categories.iter().any(|e| e == category)
                        })
                    });
            !(excluded_product || excluded_category)
        })
        .collect()
}

/// What is left to take off each line and the whole cart once `effects`
/// have: every discount together takes at most a line's worth and at most
/// the cart's total.
fn what_is_left(effects: &[Effect], facts: &Facts) -> (Vec<Decimal>, Decimal) {
    let amounts = facts.cart_amounts();
    let mut lines = amounts.worths.clone();
    let worth: Decimal = lines.iter().copied().sum();
    let mut cart = amounts.total.min(worth).max(Decimal::ZERO);
    for effect in effects {
        let value = effect.discount_value();
        if let Some(left) = usize::try_from(effect.line() - 1)
            .ok()
            .and_then(|index| lines.get_mut(index))
        {
            *left -= value;
            cart -= value;
        }
    }
    (lines, cart.max(Decimal::ZERO))
}

/// The share of each line of what `coupon` takes off, or why it takes
/// nothing: its value on what is left of the lines it may discount, capped
/// by its `max_amount` and by what is left of the cart, shared out in
/// proportion to what is left of each line.
fn voucher_shares(
    coupon: &Coupon,
    facts: &Facts,
    lines_left: &[Decimal],
    cart_left: Decimal,
) -> Result<Vec<Decimal>, (ErrorCode, String)> {
    let minor_units = facts.locale.minor_units;
    let eligible = eligible_lines(coupon, facts);
    if !eligible.iter().any(|e| *e) {
        return Err((
            ErrorCode::VoucherNotApplicable,
            "every line of the cart is excluded from its Coupon".into(),
        ));
    }
    let weights: Vec<Decimal> = lines_left
        .iter()
        .zip(&eligible)
        .map(|(left, eligible)| if *eligible { *left } else { Decimal::ZERO })
        .collect();
    let base: Decimal = weights.iter().copied().sum();
    let wanted = match coupon.value {
        CouponValue::Percent(percent) => {
            round_money(base * percent / Decimal::ONE_HUNDRED, minor_units)
        }
        CouponValue::Amount(amount) => round_money(amount, minor_units),
    };
    let value = coupon
        .max_amount
        .map_or(wanted, |cap| wanted.min(round_money(cap, minor_units)))
        .min(base)
        .min(cart_left);
    if value <= Decimal::ZERO {
        return Err((
            ErrorCode::VoucherNotApplicable,
            "nothing is left to take off the lines it may discount".into(),
        ));
    }
    let all: Vec<usize> = (0..weights.len()).collect();
    let keys = tie_keys(facts, &all);
    allocate_with_ties(value, &weights, &keys, minor_units).ok_or_else(|| {
        (
            ErrorCode::VoucherNotApplicable,
            format!("{value} cannot be shared out over the lines"),
        )
    })
}

/// Applies the Vouchers of `facts` after the discount campaigns' `effects`:
/// each usable Voucher whose Coupon took part (its explanation says it
/// applied) adds one `voucher` effect per line it takes something off;
/// every other Voucher adds one `voucher_rejected` effect with its refusal.
/// A Coupon's explanation ends up saying why when none of its Vouchers
/// applied.
pub(crate) fn apply_vouchers(
    effects: &mut Vec<Effect>,
    explanations: &mut [Explanation],
    campaigns: &[Campaign],
    facts: &Facts,
    render: &dyn Fn(&Text) -> String,
) {
    if facts.vouchers.is_empty() {
        return;
    }
    let (mut lines_left, mut cart_left) = what_is_left(effects, facts);
    let mut applied_coupons = HashSet::new();
    let mut rejected = HashMap::new();
    for desired in &facts.vouchers {
        let campaign = campaigns
            .iter()
            .find(|c| c.id == desired.coupon_id && coupon_of(c).is_some());
        let rule_name = campaign.map(|c| render(&c.name)).unwrap_or_default();
        let explanation = campaign.and_then(|c| explanations.iter().find(|e| e.rule_id == c.id));
        let outcome = match (&desired.refusal, campaign.zip(explanation)) {
            (Some(refusal), _) => Err(refusal.clone()),
            (None, None) => Err((
                ErrorCode::VoucherDeleted,
                format!("the Coupon of {} was deleted", desired.code),
            )),
            (None, Some((_, explanation))) if !explanation.applied => Err((
                ErrorCode::VoucherNotApplicable,
                explanation.reason.clone().unwrap_or_default(),
            )),
            (None, Some((campaign, _))) => coupon_of(campaign)
                .ok_or_else(|| {
                    (
                        ErrorCode::VoucherDeleted,
                        format!("the Coupon of {} was deleted", desired.code),
                    )
                })
                .and_then(|coupon| {
                    voucher_shares(coupon, facts, &lines_left, cart_left)
                        .map(|shares| (coupon, shares))
                }),
        };
        match outcome {
            Ok((coupon, shares)) => {
                applied_coupons.insert(desired.coupon_id);
                let rule_name: Arc<str> = Arc::from(rule_name.as_str());
                let coupon_info = Arc::new(CouponInfo {
                    voucher_id: desired.voucher_id.clone(),
                    voucher_code: desired.voucher_code.clone(),
                    coupon_id: desired.coupon_id,
                    coupon_name: rule_name.to_string(),
                    static_code: desired.static_code.clone().unwrap_or_default(),
                });
                let effect_type = match coupon.value {
                    CouponValue::Percent(_) => DiscountType::Percent,
                    CouponValue::Amount(_) => DiscountType::Amount,
                };
                for (index, share) in shares.into_iter().enumerate() {
                    if share <= Decimal::ZERO {
                        continue;
                    }
                    lines_left[index] -= share;
                    cart_left -= share;
                    effects.push(Effect::Voucher(Box::new(VoucherEffect {
                        rule_id: desired.coupon_id,
                        rule_name: rule_name.clone(),
                        line: index as i64 + 1,
                        value: share,
                        effect_type,
                        coupon_info: coupon_info.clone(),
                    })));
                }
            }
            Err((code, error)) => {
                rejected.insert(desired.coupon_id, format!("{}: {error}", desired.code));
                effects.push(Effect::VoucherRejected(Box::new(VoucherRejection {
                    rule_id: desired.coupon_id,
                    rule_name,
                    voucher_code: desired.code.clone(),
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
            && let Some(reason) = rejected.remove(&explanation.rule_id)
        {
            explanation.applied = false;
            explanation.reason = Some(reason);
        }
    }
}
