//! The discounts a cart got, written with the cart: its discount
//! transaction (each discount campaign and Voucher that took money off it)
//! and what its campaigns take from their limits (Discounts' parts of a
//! cart's write, [`super::contribution`]).

use crate::common::amount::Amount;
use crate::common::ids::time_ordered_id;
use crate::engine::effect::Effect;
use crate::pipeline::contribution::SettledCart;
use crate::resources::discounts::model::DiscountGiver;
use crate::resources::discounts::model::DiscountSource;
use crate::resources::discounts::model::DiscountTransaction;
use crate::resources::discounts::model::GivenDiscount;
use crate::resources::limits::LimitTake;

/// The discount transaction of the cart `settled`: each discount campaign
/// and each Voucher that took money off it, with what it took; `None` when
/// none did.
pub(crate) fn cart_discounts(settled: &SettledCart<'_>) -> Option<DiscountTransaction> {
    let cart = settled.cart;
    let mut given: Vec<GivenDiscount> = Vec::new();
    for effect in &settled.evaluation.effects {
        let (discount_id, name, given_by, voucher_code) = match effect {
            Effect::Discount(discount) => (
                discount.rule_id,
                &*discount.rule_name,
                DiscountGiver::Campaign,
                None,
            ),
            Effect::Voucher(voucher) => (
                voucher.rule_id,
                &*voucher.rule_name,
                DiscountGiver::Voucher,
                Some(&voucher.coupon_info.voucher_code),
            ),
            _ => continue,
        };
        let value = effect.discount_value();
        match given
            .iter_mut()
            .find(|d| d.discount_id == discount_id && d.voucher_code.as_ref() == voucher_code)
        {
            Some(discount) => discount.value.0 += value,
            None => given.push(GivenDiscount {
                discount_id,
                discount_name: name.to_string(),
                given_by,
                value: Amount(value),
                voucher_code: voucher_code.cloned(),
            }),
        }
    }
    (!given.is_empty()).then(|| DiscountTransaction {
        id: time_ordered_id("dtx"),
        customer_id: cart.customer_id.clone(),
        source: DiscountSource::Cart,
        value: cart.discount_total,
        discounts: given,
        cart_code: Some(cart.id.clone()),
        location_code: cart.location_code.clone(),
        description: None,
        base_amount: None,
        created_at: cart.created_at,
        cancelled_at: None,
    })
}

/// What the discount campaigns (not the Vouchers: their uses carry theirs)
/// that applied to `settled` take from their limits.
pub(crate) fn campaign_limit_takes(settled: &SettledCart<'_>) -> Vec<LimitTake> {
    settled
        .evaluation
        .limit_takes
        .iter()
        .filter(|taken| taken.voucher_id.is_none())
        .flat_map(|taken| taken.takes.iter().cloned())
        .collect()
}
