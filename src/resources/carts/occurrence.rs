//! A cart as an occurrence of the event pipeline: what conditions see of it,
//! what it keeps of an evaluation (line discounts, points, the Vouchers it
//! redeems and the discounts it got) and how it is written.

use std::sync::OnceLock;

use chrono::NaiveDate;

use rust_decimal::Decimal;

use crate::common::amount::Amount;
use crate::common::ids::time_ordered_id;
use crate::common::money::decimal_from_f64;
use crate::common::time::Timestamp;
use crate::engine::campaign::Listens;
use crate::engine::effect::Effect;
use crate::engine::evaluate::Evaluation;
use crate::engine::facts::CartAmounts;
use crate::engine::facts::Facts;
use crate::engine::facts::line_worths;
use crate::error::ApiResult;
use crate::pipeline::contributions::EvaluatedEvent;
use crate::pipeline::occurrence::Earned;
use crate::pipeline::occurrence::Occurrence;
use crate::resources::carts::model::Cart;
use crate::resources::carts::service::CartOutcome;
use crate::resources::carts::store::CartWrite;
use crate::resources::coupons::apply::DesiredVoucher;
use crate::resources::discounts::model::DiscountGiver;
use crate::resources::discounts::model::DiscountSource;
use crate::resources::discounts::model::DiscountTransaction;
use crate::resources::discounts::model::GivenDiscount;
use crate::resources::limits::LimitTake;
use crate::resources::vouchers::model::VoucherRedemption;
use crate::resources::vouchers::redemption_store::VoucherUse;
use crate::storage::Store;

/// A cart going through the event pipeline.
pub(crate) struct CartOccurrence {
    /// The cart, completed by each evaluation.
    pub(crate) cart: Cart,
    /// The coupon codes the till asked to redeem.
    pub(crate) coupons_desired: Vec<String>,
    /// The Vouchers it names, as read before the evaluation.
    pub(crate) vouchers: Vec<DesiredVoucher>,
    /// The uses of the Vouchers that applied, redeemed with the cart.
    pub(crate) voucher_uses: Vec<VoucherUse>,
    /// The discounts it got, kept in the Customer's history.
    pub(crate) discounts: Option<DiscountTransaction>,
    /// What its discount campaigns take from their limits.
    pub(crate) discount_limit_takes: Vec<LimitTake>,
    /// The effects of Voucher codes held back before it was evaluated (too
    /// many unknown codes from its API key), answered after the others.
    pub(crate) held_back: Vec<Effect>,
    /// Its calendar day where it was made (set when it is described).
    pub(crate) day: NaiveDate,
    /// The instant a simulation is evaluated at, when it asked one.
    pub(crate) evaluated_at: Option<Timestamp>,
}

impl Occurrence for CartOccurrence {
    fn listens(&self) -> Listens {
        Listens::Cart
    }

    fn belongs_to(&mut self, customer_id: &str) {
        customer_id.clone_into(&mut self.cart.customer_id);
    }

    fn date(&self) -> Timestamp {
        self.cart.date
    }

    fn evaluated_at(&self) -> Option<Timestamp> {
        self.evaluated_at
    }

    fn describe(&mut self, facts: &mut Facts) {
        // The day it counts on in its Customer's history: where it was made.
        self.day = facts
            .locale
            .local(self.cart.date.as_datetime())
            .date_naive();
        let cart = &self.cart;
        facts.cart = serde_json::json!({
            "code": cart.id,
            "total": cart.total,
            "lines": cart.lines,
            "location_code": cart.location_code,
            "coupons_desired": self.coupons_desired,
            "date": cart.date,
        });
        facts.vouchers.clone_from(&self.vouchers);
        // The exact amounts, from the cart itself rather than its JSON.
        let minor_units = facts.locale.minor_units;
        let prices: Vec<Decimal> = cart.lines.iter().map(|line| line.price.0).collect();
        let quantities: Vec<Decimal> = cart
            .lines
            .iter()
            .map(|line| decimal_from_f64(line.quantity).unwrap_or_default())
            .collect();
        facts.cart_amounts = OnceLock::from(CartAmounts {
            total: cart.total.0,
            worths: line_worths(&prices, &quantities, minor_units),
            prices,
            quantities,
        });
    }

    fn points_reason(&self) -> String {
        "cart".to_string()
    }

    fn location_code(&self) -> Option<&str> {
        self.cart.location_code.as_deref()
    }

    fn cart_id(&self) -> Option<&str> {
        Some(&self.cart.id)
    }

    fn draw_source(&self) -> String {
        format!("cart:{}", self.cart.id)
    }

    fn settle(&mut self, evaluation: &Evaluation, points_earned: i64, at: Timestamp) {
        let effects = &evaluation.effects;
        for line in &mut self.cart.lines {
            line.discount = Amount::ZERO;
        }
        for effect in effects {
            if let Some(line) = usize::try_from(effect.line() - 1)
                .ok()
                .and_then(|index| self.cart.lines.get_mut(index))
            {
                line.discount.0 += effect.discount_value();
            }
        }
        // Every discount effect names its line (cart discounts are shared out
        // over them), so the lines' discounts add up to the cart's.
        self.cart.discount_total = Amount(self.cart.lines.iter().map(|l| l.discount.0).sum());
        self.cart.points_earned = points_earned;
        self.cart.created_at = at;
        self.voucher_uses = voucher_uses(&self.cart, &self.vouchers, evaluation, at);
        self.discounts = cart_discounts(&self.cart, effects, at);
        // What the campaigns (not the Vouchers: their uses carry theirs)
        // take from their limits goes with the discount transaction.
        self.discount_limit_takes = evaluation
            .limit_takes
            .iter()
            .filter(|taken| taken.voucher_id.is_none())
            .flat_map(|taken| taken.takes.iter().cloned())
            .collect();
    }

    type Answer = CartOutcome;

    fn answer(&self, evaluated: EvaluatedEvent) -> CartOutcome {
        let mut effects = evaluated.effects;
        effects.extend(self.held_back.iter().cloned());
        CartOutcome {
            cart: self.cart.clone(),
            effects,
            explanations: evaluated.explanations,
            messages: evaluated.messages,
        }
    }

    fn always_written(&self) -> bool {
        true
    }

    async fn write(
        &self,
        store: &Store,
        company: &str,
        _customer_id: &str,
        earned: &Earned<'_>,
    ) -> ApiResult<()> {
        let write = CartWrite {
            cart: &self.cart,
            earned: *earned,
            voucher_uses: &self.voucher_uses,
            discounts: self.discounts.as_ref(),
            discount_limit_takes: &self.discount_limit_takes,
            day: self.day,
        };
        store.insert_cart(company, write).await
    }
}

/// One use of each Voucher of `vouchers` that `evaluation` applies to
/// `cart`, with the money it takes off and what it takes from its Coupon's
/// limits.
fn voucher_uses(
    cart: &Cart,
    vouchers: &[DesiredVoucher],
    evaluation: &Evaluation,
    at: Timestamp,
) -> Vec<VoucherUse> {
    let effects = &evaluation.effects;
    vouchers
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
                    redeemed_at: at,
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

/// The discount transaction of `cart`: each discount campaign and each
/// Voucher that took money off it, with what it took; `None` when none did.
fn cart_discounts(cart: &Cart, effects: &[Effect], at: Timestamp) -> Option<DiscountTransaction> {
    let mut given: Vec<GivenDiscount> = Vec::new();
    for effect in effects {
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
        created_at: at,
        cancelled_at: None,
    })
}
