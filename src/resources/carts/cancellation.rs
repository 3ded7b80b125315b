//! Cancelling a recorded cart (POST /carts/cancellation): a cart of the
//! opposite amounts, the points it earned reversed as far as the balances
//! allow, its Voucher uses given back and its discounts marked, at most once.

use std::collections::HashMap;

use crate::common::amount::Amount;
use crate::engine::effect::Effect;
use crate::engine::effect::PointsEffect;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::http::idempotency::answer::awaits_answer;
use crate::pipeline::contribution::Cancelled;
use crate::pipeline::contributions::event_tries;
use crate::pipeline::kinds::CONTRIBUTIONS;
use crate::resources::carts::model::Cart;
use crate::resources::carts::model::CartCancellation;
use crate::resources::carts::model::CartLine;
use crate::resources::carts::service::CartOutcome;
use crate::resources::customers::model::normalise_code;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::services::Services;

/// `reversals` of a cancellation, each negative one cut so that no balance
/// (`balances`, by Customer and kind) goes below zero; positive ones (points
/// a redemption for the cart took, given back) count first.
fn cap_to_balances(
    reversals: &[LedgerEntry],
    balances: &HashMap<(String, PointsKind), i64>,
) -> Vec<LedgerEntry> {
    let mut available: HashMap<(String, PointsKind), i64> = balances.clone();
    for entry in reversals.iter().filter(|e| e.points > 0) {
        *available
            .entry((entry.customer_id.clone(), entry.kind))
            .or_default() += entry.points;
    }
    let mut capped = Vec::new();
    for entry in reversals {
        if entry.points > 0 {
            capped.push(entry.clone());
            continue;
        }
        let left = available
            .entry((entry.customer_id.clone(), entry.kind))
            .or_default();
        let take = (-entry.points).min((*left).max(0));
        *left -= take;
        if take > 0 {
            capped.push(LedgerEntry {
                points: -take,
                ..entry.clone()
            });
        }
    }
    capped
}

impl Services {
    /// Cancels a recorded cart: records a cart with the opposite amounts and
    /// ledger entries reversing every point it earned, at most once.
    pub async fn cancel_cart(
        &self,
        company: &str,
        request: CartCancellation,
    ) -> ApiResult<CartOutcome> {
        let original = self.cart(company, &request.cart_id).await?;
        if original.cancels.is_some() {
            return Err(ApiError::new(
                ErrorCode::CartIsCancellation,
                format!(
                    "cart {} is itself a cancellation; name the cart it cancels",
                    original.id
                ),
            ));
        }
        let code = match request.code {
            Some(code) => normalise_code(&code)
                .map_err(|_| ApiError::invalid("code must be 1 to 128 printable characters"))?,
            None => format!("{}-cancellation", original.id),
        };
        let now = self.now();
        let earned = self.store.cart_ledger(company, &original.id).await?;
        let reversals: Vec<LedgerEntry> = earned
            .iter()
            .map(|entry| LedgerEntry {
                rule_id: entry.rule_id,
                cart_id: Some(code.clone()),
                operation_id: entry.operation_id.clone(),
                ..LedgerEntry::new(
                    &entry.customer_id,
                    entry.kind,
                    -entry.points,
                    "cancellation",
                    now,
                )
            })
            .collect();
        let mut tries = event_tries();
        let (ledger, cancellation) = loop {
            // Each kind gives back what the cart took or moved of its state
            // (a Challenge's progress, a completion it made).
            let cancelled = Cancelled {
                company,
                customer_id: &original.customer_id,
                cart_id: &original.id,
                code: &code,
                at: now,
            };
            let mut reversals = reversals.clone();
            let mut given_back = Vec::with_capacity(CONTRIBUTIONS.len());
            for kind in CONTRIBUTIONS {
                let given = kind.give_back(self, &cancelled).await?;
                reversals.extend(given.ledger);
                given_back.push(given.document);
            }
            // Points the Customer spent since cannot be taken back: a reversal
            // takes what the balance has (it never goes below zero).
            let mut balances = HashMap::new();
            for entry in &reversals {
                let key = (entry.customer_id.clone(), entry.kind);
                if let std::collections::hash_map::Entry::Vacant(slot) = balances.entry(key) {
                    let (customer, kind) = slot.key().clone();
                    slot.insert(self.store.balance(company, &customer, kind).await?);
                }
            }
            let ledger = cap_to_balances(&reversals, &balances);
            let cancellation = Cart {
                id: code.clone(),
                customer_id: original.customer_id.clone(),
                date: original.date,
                location_code: original.location_code.clone(),
                lines: original
                    .lines
                    .iter()
                    .map(|line| CartLine {
                        quantity: -line.quantity,
                        discount: Amount(-line.discount.0),
                        ..line.clone()
                    })
                    .collect(),
                total: Amount(-original.total.0),
                discount_total: Amount(-original.discount_total.0),
                points_earned: ledger.iter().map(|e| e.points).sum(),
                cancels: Some(original.id.clone()),
                cancelled_by: None,
                created_at: now,
            };
            if awaits_answer() {
                answer_now(&cancellation_outcome(&ledger, cancellation.clone())).await;
            }
            let written = self
                .store
                .insert_cancellation(company, &original.id, &cancellation, &ledger, &given_back)
                .await;
            // A record a kind gives back on moved meanwhile (a Challenge's:
            // give back on the new one),
            // or a redemption slipped in between reading the balance and
            // writing (plan again on the new balance).
            if tries.again(
                &written,
                &[ErrorCode::DrawContended, ErrorCode::CustomerNotEnoughScore],
            ) {
                continue;
            }
            written?;
            break (ledger, cancellation);
        };
        tracing::info!(company, cart = %original.id, cancellation = %cancellation.id, "cart cancelled");
        Ok(cancellation_outcome(&ledger, cancellation))
    }
}

/// What a cancellation answers: the cancellation cart, and the reversing
/// points entries as its effects.
fn cancellation_outcome(ledger: &[LedgerEntry], cancellation: Cart) -> CartOutcome {
    let effects = ledger
        .iter()
        .map(|entry| {
            Effect::Points(PointsEffect {
                rule_id: entry.rule_id.unwrap_or_default(),
                rule_name: String::new(),
                points: entry.points,
            })
        })
        .collect();
    CartOutcome {
        cart: cancellation,
        effects,
        explanations: Vec::new(),
        messages: Vec::new(),
    }
}
