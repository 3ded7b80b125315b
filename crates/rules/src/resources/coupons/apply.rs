//! What the Vouchers a cart names offer it: each its Coupon's discount on
//! the lines the Coupon does not exclude, settled with the discount
//! campaigns in [`crate::resources::discounts::settle`]. Pure, like the rest
//! of the engine: the Vouchers were read and checked
//! (the service's `resources::vouchers::desired`) before the evaluation.

use crate::resources::master_data::enrich::discountable_lines;
use crate::resources::master_data::matching::{line_in_category, product_listed};
use std::collections::HashMap;
use std::sync::Arc;

use rust_decimal::Decimal;
use serde_json::Value;

use crate::common::money::round_money;
use crate::engine::campaign::Campaign;
use crate::engine::evaluate::Explanation;
use crate::engine::facts::Facts;
use crate::engine::text::Text;
use crate::error::ErrorCode;
use crate::resources::coupons::rules::Coupon;
use crate::resources::coupons::rules::CouponValue;
use crate::resources::coupons::rules::coupon_of;
use crate::resources::discounts::settle::Giver;
use crate::resources::discounts::settle::Offer;
use crate::resources::discounts::settle::reckon::Reckoning;
use crate::resources::discounts::settle::reckon::Spread;
use crate::resources::discounts::settle::reckon::Worth;
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
pub fn presented(campaign: &Campaign, facts: &Facts) -> Result<(), String> {
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
/// does not exclude, of Products discounts may take money off.
fn eligible_lines(coupon: &Coupon, facts: &Facts) -> Vec<bool> {
    let lines = facts
        .cart
        .get("lines")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let discountable = discountable_lines(&facts.cart);
    lines
        .iter()
        .zip(discountable)
        .map(|(line, discountable)| {
            if !discountable {
                return false;
            }
            !(product_listed(&coupon.excluded_products, line)
                || line_in_category(&coupon.excluded_categories, line))
        })
        .collect()
}

/// One outcome per Voucher of `facts`, in the cart's order: the offer it
/// makes the cart, or why it makes none (its refusal; its Coupon deleted,
/// not applying to this cart, excluding every line; or the cart already
/// using the Coupon's `max_per_cart` Vouchers). `explanations` say whether
/// each Coupon's condition held.
pub fn voucher_offers<'c>(
    campaigns: &'c [Campaign],
    explanations: &[Explanation],
    facts: &Facts,
    render: &dyn Fn(&Text) -> String,
) -> Vec<Result<Offer<'c>, Refusal>> {
    let minor_units = facts.locale.minor_units;
    let mut taken_per_coupon: HashMap<i64, u32> = HashMap::new();
    facts
        .vouchers
        .iter()
        .enumerate()
        .map(|(index, desired)| {
            if let Some(refusal) = &desired.refusal {
                return Err(refusal.clone());
            }
            let deleted = || {
                (
                    ErrorCode::VoucherDeleted,
                    format!("the Coupon of {} was deleted", desired.code),
                )
            };
            let campaign = campaigns
                .iter()
                .find(|c| c.id == desired.coupon_id)
                .ok_or_else(deleted)?;
            let coupon = coupon_of(campaign).ok_or_else(deleted)?;
            match explanations.iter().find(|e| e.rule_id == campaign.id) {
                Some(explanation) if explanation.applied => {}
                Some(explanation) => {
                    return Err((
                        ErrorCode::VoucherNotApplicable,
                        explanation.reason.clone().unwrap_or_default(),
                    ));
                }
                None => return Err(deleted()),
            }
            let taken = taken_per_coupon.entry(campaign.id).or_default();
            if let Some(most) = campaign.stacking.max_per_cart
                && *taken >= most
            {
                return Err((
                    ErrorCode::VoucherNotCombinable,
                    format!(
                        "a cart uses at most {most} Voucher{} of this Coupon",
                        if most == 1 { "" } else { "s" }
                    ),
                ));
            }
            if let Some((left, limit)) = facts
                .limits
                .get(&campaign.id)
                .and_then(|headroom| headroom.redemptions.as_ref())
                && u64::from(*taken) >= *left
            {
                return Err((
                    ErrorCode::VoucherLimitReached,
                    format!("its Coupon's limit of {limit} is reached"),
                ));
            }
            let eligible = eligible_lines(coupon, facts);
            if !eligible.contains(&true) {
                return Err((
                    ErrorCode::VoucherNotApplicable,
                    "every line of the cart is excluded from its Coupon".into(),
                ));
            }
            *taken += 1;
            let rule_name: Arc<str> = Arc::from(render(&campaign.name));
            let worth = match coupon.value {
                CouponValue::Percent(percent) => Worth::Rate(percent / Decimal::ONE_HUNDRED),
                CouponValue::Amount(amount) => Worth::Amount(round_money(amount, minor_units)),
            };
            Ok(Offer {
                rule_id: campaign.id,
                rule_name: rule_name.clone(),
                stacking: &campaign.stacking,
                limits: &campaign.limits,
                reckoning: Reckoning {
                    worth,
                    max_amount: coupon.max_amount.map(|cap| round_money(cap, minor_units)),
                    eligible,
                    spread: Spread::Eligible,
                },
                giver: Giver::Voucher {
                    desired: index,
                    coupon_info: Arc::new(CouponInfo {
                        voucher_id: desired.voucher_id.clone(),
                        voucher_code: desired.voucher_code.clone(),
                        coupon_id: desired.coupon_id,
                        coupon_name: rule_name.to_string(),
                        static_code: desired.static_code.clone().unwrap_or_default(),
                    }),
                },
            })
        })
        .collect()
}
