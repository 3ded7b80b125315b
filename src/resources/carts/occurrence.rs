//! A cart as an occurrence of the event pipeline: what conditions see of it,
//! what it keeps of an evaluation (line discounts, points, and each kind's
//! documents of its write: the Vouchers it redeems, the discounts it got)
//! and how it is written.

use std::sync::Arc;
use std::sync::OnceLock;

use chrono::NaiveDate;

use rust_decimal::Decimal;
use serde_json::Value;

use crate::common::amount::Amount;
use crate::common::money::decimal_from_f64;
use crate::common::time::Timestamp;
use crate::engine::campaign::Listens;
use crate::engine::effect::Effect;
use crate::engine::evaluate::Evaluation;
use crate::engine::facts::CartAmounts;
use crate::engine::facts::Facts;
use crate::engine::facts::line_worths;
use crate::error::ApiResult;
use crate::pipeline::contribution::SettledCart;
use crate::pipeline::contributions::EvaluatedEvent;
use crate::pipeline::kinds::CONTRIBUTIONS;
use crate::pipeline::occurrence::Earned;
use crate::pipeline::occurrence::Occurrence;
use crate::resources::carts::model::Cart;
use crate::resources::carts::service::CartOutcome;
use crate::resources::carts::store::CartWrite;
use crate::resources::coupons::apply::DesiredVoucher;
use crate::resources::webhooks::emit::Subscriptions;
use crate::storage::Store;

/// A cart going through the event pipeline.
pub(crate) struct CartOccurrence {
    /// The cart, completed by each evaluation.
    pub(crate) cart: Cart,
    /// The coupon codes the till asked to redeem.
    pub(crate) coupons_desired: Vec<String>,
    /// The Vouchers it names, as read before the evaluation.
    pub(crate) vouchers: Vec<DesiredVoucher>,
    /// Its Company.
    pub(crate) company: String,
    /// The kinds' documents of its write, made from its last evaluation
    /// (the uses of the Vouchers that applied, the discounts it got):
    /// [`crate::pipeline::contribution::Contribution::cart_parts`].
    pub(crate) kinds_parts: Vec<(&'static str, Value)>,
    /// The effects of Voucher codes held back before it was evaluated (too
    /// many unknown codes from its API key), answered after the others.
    pub(crate) held_back: Vec<Effect>,
    /// Its calendar day where it was made (set when it is described).
    pub(crate) day: NaiveDate,
    /// The instant a simulation is evaluated at, when it asked one.
    pub(crate) evaluated_at: Option<Timestamp>,
    /// Whom the webhook events of what its write does go to.
    pub(crate) webhooks: Arc<Subscriptions>,
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
        let settled = SettledCart {
            company: &self.company,
            cart: &self.cart,
            vouchers: &self.vouchers,
            evaluation,
            webhooks: &self.webhooks,
        };
        self.kinds_parts = CONTRIBUTIONS
            .iter()
            .flat_map(|kind| kind.cart_parts(&settled))
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

    fn webhook_event(&self, _evaluated: &EvaluatedEvent) -> Option<(&'static str, Value)> {
        // In the shape the API answers it.
        let cart = poem_openapi::types::ToJSON::to_json(&self.cart)?;
        Some(("cart.recorded", cart))
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
            kinds_parts: &self.kinds_parts,
            day: self.day,
        };
        store.insert_cart(company, write).await
    }
}
