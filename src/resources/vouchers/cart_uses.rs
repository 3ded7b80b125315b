//! The Voucher uses a cart redeems: one use of each Voucher it presented
//! that took money off it, taken in the cart's own transaction (Vouchers'
//! carried part, [`super::contribution`]).

use rust_decimal::Decimal;

use crate::common::amount::Amount;
use crate::common::ids::time_ordered_id;
use crate::engine::effect::Effect;
use crate::pipeline::contribution::SettledCart;
use crate::resources::vouchers::model::VoucherRedemption;
use crate::resources::vouchers::redemption_store::VoucherUse;

/// One use of each Voucher `settled` presented that its evaluation
/// applied, with the money it takes off and what it takes from its
/// Coupon's limits.
pub(crate) fn cart_voucher_uses(settled: &SettledCart<'_>) -> Vec<VoucherUse> {
    let SettledCart {
        cart, evaluation, ..
    } = settled;
    let effects = &evaluation.effects;
    settled
        .vouchers
        .iter()
        .filter_map(|voucher| {
            let value: Decimal = effects
                .iter()
                .filter_map(|effect| match effect {
                    Effect::Voucher(applied)
                        if applied.coupon_info.voucher_id == voucher.voucher_id =>
                    {
                        Some(applied.value)
                    }
                    _ => None,
                })
                .sum();
            (value > Decimal::ZERO).then(|| VoucherUse {
                key: voucher.key.clone(),
                redemption: VoucherRedemption {
                    redemption_id: time_ordered_id("rdm"),
                    voucher_code: voucher.voucher_code.clone(),
                    voucher_id: voucher.voucher_id.clone(),
                    coupon_id: voucher.coupon_id,
                    customer_id: cart.customer_id.clone(),
                    location_code: cart.location_code.clone(),
                    cart_code: Some(cart.id.clone()),
                    value: Some(Amount(value)),
                    reservation_id: voucher.reservation_id.clone(),
                    redeemed_at: cart.created_at,
                    rolled_back_at: None,
                },
                create: voucher.create.clone(),
                seen: None,
                limit_takes: evaluation
                    .limit_takes
                    .iter()
                    .find(|taken| taken.voucher_id.as_ref() == Some(&voucher.voucher_id))
                    .map(|taken| taken.takes.clone())
                    .unwrap_or_default(),
            })
        })
        .collect()
}
