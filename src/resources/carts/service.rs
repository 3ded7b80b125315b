//! Carts: evaluated against the Company's campaigns; recorded with their
//! points in one transaction (realtime) or not at all (simulate).

use crate::common::amount::Amount;
use crate::common::ids::time_ordered_id;
use crate::common::money::decimal_from_f64;
use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::languages::negotiate::Language;
use crate::pipeline::occurrence::Occurrence;
use crate::pipeline::run::Mode;
use crate::resources::carts::model::Cart;
use crate::resources::carts::model::CartCancellation;
use crate::resources::carts::model::CartLine;
use crate::resources::carts::model::NewCart;
use crate::resources::carts::model::NewCartLine;
use crate::resources::carts::store::CartWrite;
use crate::resources::coupons::apply::DesiredVoucher;
use crate::resources::customers::service::CustomerRef;
use crate::resources::discounts::model::DiscountSource;
use crate::resources::discounts::model::DiscountTransaction;
use crate::resources::points::model::PointsKind;
use crate::resources::vouchers::desired::CartVouchers;
use crate::resources::vouchers::model::VoucherRedemption;
use crate::resources::vouchers::redemption_store::VoucherUse;
use crate::services::Services;
use crate::storage::Store;
use rust_decimal::Decimal;
use serde_json::Value;

use crate::engine::campaign::Listens;
use crate::engine::effect::Effect;
use crate::engine::effect::PointsEffect;
use crate::engine::evaluate::Explanation;
use crate::engine::facts::CartAmounts;
use crate::engine::facts::Facts;
use crate::engine::facts::line_worth;
use crate::engine::facts::line_worths;
use crate::resources::customers::model::normalise_code;
use crate::resources::instant_wins::draws::MAX_DRAW_ATTEMPTS;
use crate::resources::points::store::ledger::LedgerEntry;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Most lines one cart may have.
pub const MAX_CART_LINES: usize = 500;

/// Most units one line may have.
const MAX_QUANTITY: f64 = 1_000_000.0;

/// The largest cart total: ten thousand million, well inside what every
/// figure computed from it keeps exactly.
const MAX_TOTAL: i64 = 10_000_000_000;

/// A cart with what the campaigns made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct CartOutcome {
    /// The cart as recorded (or as it would be, when simulated).
    pub cart: Cart,
    /// The effects of the campaigns that applied.
    pub effects: Vec<Effect>,
    /// Why each campaign applied or not.
    pub explanations: Vec<Explanation>,
}

/// A cart going through the event pipeline.
struct CartOccurrence {
    /// The cart, completed by each evaluation.
    cart: Cart,
    /// The coupon codes the till asked to redeem.
    coupons_desired: Vec<String>,
    /// The Vouchers it names, as read before the evaluation.
    vouchers: Vec<DesiredVoucher>,
    /// The uses of the Vouchers that applied, redeemed with the cart.
    voucher_uses: Vec<VoucherUse>,
    /// The discounts it got, kept in the Customer's history.
    discounts: Vec<DiscountTransaction>,
}

impl Occurrence for CartOccurrence {
    fn listens(&self) -> Listens {
        Listens::Cart
    }

    fn date(&self) -> Timestamp {
        self.cart.date
    }

    fn describe(&self, facts: &mut Facts) {
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

    fn cart_id(&self) -> Option<&str> {
        Some(&self.cart.id)
    }

    fn draw_source(&self) -> String {
        format!("cart:{}", self.cart.id)
    }

    fn settle(&mut self, effects: &[Effect], points_earned: i64, at: Timestamp) {
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
        self.voucher_uses = voucher_uses(&self.cart, &self.vouchers, effects, at);
        self.discounts = cart_discounts(&self.cart, effects, at);
    }

    fn always_written(&self) -> bool {
        true
    }

    async fn write(
        &self,
        store: &Store,
        company: &str,
        _customer_id: &str,
        ledger: &[LedgerEntry],
        draw_write: &Value,
    ) -> ApiResult<()> {
        let write = CartWrite {
            cart: &self.cart,
            ledger,
            draw_write,
            voucher_uses: &self.voucher_uses,
            discounts: &self.discounts,
        };
        store.insert_cart(company, write).await
    }
}

/// One use of each Voucher of `vouchers` that `effects` apply to `cart`,
/// with the money it takes off.
fn voucher_uses(
    cart: &Cart,
    vouchers: &[DesiredVoucher],
    effects: &[Effect],
    at: Timestamp,
) -> Vec<VoucherUse> {
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
            })
        })
        .collect()
}

/// One transaction per discount campaign and per Voucher that took money
/// off `cart`, with what it took.
fn cart_discounts(cart: &Cart, effects: &[Effect], at: Timestamp) -> Vec<DiscountTransaction> {
    let mut given: Vec<DiscountTransaction> = Vec::new();
    for effect in effects {
        let (discount_id, name, source, voucher_code) = match effect {
            Effect::Discount(discount) => (
                discount.rule_id,
                &*discount.rule_name,
                DiscountSource::Cart,
                None,
            ),
            Effect::Voucher(voucher) => (
                voucher.rule_id,
                &*voucher.rule_name,
                DiscountSource::Voucher,
                Some(&voucher.coupon_info.voucher_code),
            ),
            _ => continue,
        };
        let value = effect.discount_value();
        match given
            .iter_mut()
            .find(|t| t.discount_id == discount_id && t.voucher_code.as_ref() == voucher_code)
        {
            Some(transaction) => transaction.value.0 += value,
            None => given.push(DiscountTransaction {
                id: time_ordered_id("dtx"),
                customer_id: cart.customer_id.clone(),
                discount_id,
                discount_name: name.to_string(),
                source,
                value: Amount(value),
                cart_code: Some(cart.id.clone()),
                voucher_code: voucher_code.cloned(),
                location_code: cart.location_code.clone(),
                description: None,
                base_amount: None,
                created_at: at,
                cancelled_at: None,
            }),
        }
    }
    given
}

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

/// The lines of `new`, checked: each names a product, has a quantity over
/// 0 and a price in the currency's minor unit.
fn checked_lines(new: &[NewCartLine], minor_units: u32) -> ApiResult<Vec<CartLine>> {
    if new.is_empty() || new.len() > MAX_CART_LINES {
        return Err(ApiError::invalid(format!(
            "a cart has 1 to {MAX_CART_LINES} lines"
        )));
    }
    new.iter()
        .enumerate()
        .map(|(index, line)| {
            if line.product_code.trim().is_empty() {
                return Err(ApiError::invalid(format!(
                    "`lines[{index}].product_code` must not be blank"
                )));
            }
            if !(line.quantity.is_finite() && line.quantity > 0.0 && line.quantity <= MAX_QUANTITY)
            {
                return Err(ApiError::invalid(format!(
                    "`lines[{index}].quantity` must be more than 0 and at most {MAX_QUANTITY}"
                )));
            }
            Ok(CartLine {
                product_code: line.product_code.clone(),
                quantity: line.quantity,
                price: line
                    .price
                    .money(&format!("`lines[{index}].price`"), minor_units)?,
                taxonomies: line.taxonomies.clone(),
                features: line.features.clone(),
                discount: Amount::ZERO,
            })
        })
        .collect()
}

/// The total a cart may declare: at most what its lines add up to (each
/// line's worth may be rounded differently by the till, so one minor unit
/// per line is tolerated), and less when the till took something off the
/// whole ticket. A total above its lines would earn on money never paid.
fn checked_total(
    sent: Amount,
    lines_sum: Decimal,
    line_count: usize,
    minor_units: u32,
) -> ApiResult<Amount> {
    let tolerance = Decimal::new(1, minor_units) * Decimal::from(line_count);
    if sent.0 > lines_sum + tolerance {
        return Err(ApiError::invalid(format!(
            "`total` {} is more than the lines add up to ({lines_sum}); send the amount \
             paid, at most the lines' sum, or leave it out",
            sent.0
        )));
    }
    Ok(sent)
}

impl Services {
    /// Evaluates `new` and, when `record` is true, records the cart, its
    /// ledger entries and the new balance in one transaction.
    pub async fn process_cart(
        &self,
        company: &str,
        new: NewCart,
        language: &Language,
        record: bool,
    ) -> ApiResult<CartOutcome> {
        let code = normalise_code(&new.code)
            .map_err(|_| ApiError::invalid("code must be 1 to 128 printable characters"))?;
        let locale = self.company_locale(company).await?;
        let lines = checked_lines(&new.lines, locale.minor_units)?;
        let lines_sum: Decimal = lines
            .iter()
            .map(|line| {
                let quantity = decimal_from_f64(line.quantity).unwrap_or_default();
                line_worth(line.price.0, quantity, locale.minor_units)
            })
            .sum();
        let total = match &new.total {
            Some(total) => checked_total(
                total.money("`total`", locale.minor_units)?,
                lines_sum,
                lines.len(),
                locale.minor_units,
            )?,
            None => Amount(lines_sum),
        };
        if total.0 > Decimal::from(MAX_TOTAL) {
            return Err(ApiError::invalid(format!(
                "the cart's total {} is more than {MAX_TOTAL}",
                total.0
            )));
        }
        let customer = self
            .active_customer(company, &new.customer_id, &new.customer_code)
            .await?;
        let date = new.date.unwrap_or_else(|| self.now());
        let presented = CartVouchers {
            coupons_desired: &new.coupons_desired,
            reservation_ids: &new.reservation_ids,
            location_code: new.location_code.as_deref(),
            at: self.now(),
        };
        let vouchers = self
            .desired_vouchers(company, &customer.id, presented, &locale)
            .await?;
        let mut occurrence = CartOccurrence {
            cart: Cart {
                id: code,
                customer_id: customer.id.clone(),
                date,
                location_code: new.location_code.clone(),
                lines,
                total,
                discount_total: Amount::ZERO,
                points_earned: 0,
                cancels: None,
                cancelled_by: None,
                created_at: self.now(),
            },
            coupons_desired: new.coupons_desired.clone(),
            vouchers,
            voucher_uses: Vec::new(),
            discounts: Vec::new(),
        };
        let mode = if record { Mode::Record } else { Mode::Simulate };
        let mut attempt = 0;
        let evaluated = loop {
            attempt += 1;
            match self
                .run_pipeline(company, &customer, &mut occurrence, language, mode)
                .await
            {
                // Another till took or held a use of a Voucher since it was
                // read: read them again, and the sale goes on without it.
                Err(error)
                    if matches!(
                        error.code,
                        ErrorCode::VoucherRedeemed | ErrorCode::VoucherFrozen
                    ) && attempt < MAX_DRAW_ATTEMPTS =>
                {
                    let presented = CartVouchers {
                        at: self.now(),
                        ..presented
                    };
                    occurrence.vouchers = self
                        .desired_vouchers(company, &customer.id, presented, &locale)
                        .await?;
                }
                evaluated => break evaluated?,
            }
        };
        if record {
            let cart = &occurrence.cart;
            tracing::info!(company, cart = %cart.id, customer = %customer.id, effects = evaluated.effects.len(), "cart recorded");
        }
        Ok(CartOutcome {
            cart: occurrence.cart,
            effects: evaluated.effects,
            explanations: evaluated.explanations,
        })
    }

    /// Cancels a recorded cart: records a cart with the opposite amounts and
    /// ledger entries reversing every point it earned, at most once.
    pub async fn cancel_cart(
        &self,
        company: &str,
        request: CartCancellation,
    ) -> ApiResult<CartOutcome> {
        let original = self.cart(company, &request.cart_id).await?;
        if original.cancels.is_some() {
            return Err(ApiError::invalid(format!(
                "cart {} is itself a cancellation",
                original.id
            )));
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
        let mut attempt = 0;
        let (ledger, cancellation) = loop {
            attempt += 1;
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
            let written = self
                .store
                .insert_cancellation(company, &original.id, &cancellation, &ledger)
                .await;
            match written {
                // A redemption slipped in between reading the balance and
                // writing: plan again on the new balance.
                Err(error)
                    if error.code == ErrorCode::CustomerNotEnoughScore
                        && attempt < MAX_DRAW_ATTEMPTS =>
                {
                    continue;
                }
                written => written?,
            }
            break (ledger, cancellation);
        };
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
        tracing::info!(company, cart = %original.id, cancellation = %cancellation.id, "cart cancelled");
        Ok(CartOutcome {
            cart: cancellation,
            effects,
            explanations: Vec::new(),
        })
    }

    /// The cart `id`.
    pub async fn cart(&self, company: &str, id: &str) -> ApiResult<Cart> {
        self.store
            .cart(company, id)
            .await?
            .ok_or_else(|| ApiError::new(ErrorCode::CartNotFound, format!("no cart `{id}`")))
    }

    /// Carts, optionally of one Customer and between two instants.
    pub async fn carts(
        &self,
        company: &str,
        customer: Option<CustomerRef<'_>>,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        page: PageRequest,
    ) -> ApiResult<Page<Cart>> {
        let customer_id = match customer {
            Some(reference) => Some(self.find_customer(company, reference).await?.customer.id),
            None => None,
        };
        let fetched = self
            .store
            .carts(
                company,
                customer_id.as_deref(),
                from,
                to,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        Ok(Page::from_fetched(fetched, &page, |cart| cart.id.clone()))
    }
}
