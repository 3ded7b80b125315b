//! Carts: checked, evaluated against the Company's campaigns through the
//! event pipeline ([`super::occurrence`]), recorded with everything they
//! earned and used in one transaction (realtime) or not at all (simulate);
//! read back one or a page at a time.

use crate::common::amount::Amount;
use crate::common::language::Language;
use crate::common::money::decimal_from_f64;
use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::occurrence::Occurrence;
use crate::pipeline::run::Mode;
use crate::resources::carts::model::Cart;
use crate::resources::carts::model::CartLine;
use crate::resources::carts::model::NewCart;
use crate::resources::carts::model::NewCartLine;
use crate::resources::carts::occurrence::CartOccurrence;
use crate::resources::customers::service::CustomerRef;
use crate::resources::customers::service::Subject;
use crate::resources::messages::model::MessageBody;
use crate::resources::vouchers::desired::CartVouchers;
use crate::services::Services;
use rust_decimal::Decimal;

use crate::engine::effect::Effect;
use crate::engine::evaluate::Explanation;
use crate::engine::facts::line_worth;
use crate::pipeline::contributions::event_tries;
use crate::resources::customers::model::normalise_code;

/// Most lines one cart may have.
pub const MAX_CART_LINES: usize = 500;

/// What another till may take of a cart's Vouchers and limits between their
/// read and the cart's write: the cart is evaluated again without it.
const USES_GONE: &[ErrorCode] = &[
    ErrorCode::VoucherRedeemed,
    ErrorCode::VoucherFrozen,
    ErrorCode::VoucherLimitReached,
    ErrorCode::DiscountLimitReached,
];

/// Most units one line may have.
const MAX_QUANTITY: f64 = 1_000_000.0;

/// Fewest units one line may have: a gram of a product sold by the
/// kilogram. A smaller quantity is a mistake, never a sale.
const MIN_QUANTITY: f64 = 0.001;

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
    /// The messages of the campaigns that applied, for the Customer.
    pub messages: Vec<MessageBody>,
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
            if !(line.quantity.is_finite()
                && line.quantity >= MIN_QUANTITY
                && line.quantity <= MAX_QUANTITY)
            {
                return Err(ApiError::invalid(format!(
                    "`lines[{index}].quantity` must be at least {MIN_QUANTITY} and at most {MAX_QUANTITY}, not {}",
                    line.quantity
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

/// How a cart is run through the campaigns.
#[derive(Debug, Clone, Copy)]
pub struct CartRun {
    /// Recorded (`realtime`), or only evaluated (`simulate`).
    pub record: bool,
    /// Every campaign's explanation asked for.
    pub explain: bool,
    /// The instant a simulation is evaluated at instead of now; a recorded
    /// cart never is (the API refuses it).
    pub at: Option<Timestamp>,
}

impl Services {
    /// Evaluates `new` and, when `how.record` is true, records the cart,
    /// its ledger entries and the new balance in one transaction.
    pub async fn process_cart(
        &self,
        company: &str,
        new: NewCart,
        held_back: Vec<Effect>,
        language: &Language,
        how: CartRun,
    ) -> ApiResult<CartOutcome> {
        let CartRun {
            record,
            explain,
            at,
        } = how;
        let now = at.unwrap_or_else(|| self.now());
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
        let reference = CustomerRef::required(&new.customer_id, &new.customer_code, "customer")?;
        // A cart presenting Voucher codes needs its Customer to find them;
        // any other reads its Customer with its facts, in one round trip.
        let known = if new.coupons_desired.is_empty() {
            None
        } else {
            Some(self.active_customer_by(company, reference).await?)
        };
        let date = new.date.unwrap_or(now);
        let presented = CartVouchers {
            coupons_desired: &new.coupons_desired,
            reservation_ids: &new.reservation_ids,
            location_code: new.location_code.as_deref(),
            at: now,
        };
        let vouchers = match &known {
            Some(customer) => {
                self.desired_vouchers(company, &customer.id, presented, &locale)
                    .await?
            }
            None => Vec::new(),
        };
        let mut occurrence = CartOccurrence {
            cart: Cart {
                id: code,
                customer_id: known.as_ref().map(|c| c.id.clone()).unwrap_or_default(),
                date,
                location_code: new.location_code.clone(),
                lines,
                total,
                discount_total: Amount::ZERO,
                points_earned: 0,
                cancels: None,
                cancelled_by: None,
                created_at: now,
            },
            coupons_desired: new.coupons_desired.clone(),
            vouchers,
            company: company.to_string(),
            kinds_parts: Vec::new(),
            held_back,
            // The Company's day until the pipeline describes the cart in
            // its Location's time zone.
            day: locale.local(date.as_datetime()).date_naive(),
            evaluated_at: at.filter(|_| !record),
            webhooks: self.store.memory.webhooks.clone(),
        };
        let mode = if record { Mode::Record } else { Mode::Simulate };
        let mut tries = event_tries();
        let evaluated = loop {
            let subject = match &known {
                Some(customer) => Subject::Read(customer),
                None => Subject::Named(reference),
            };
            let evaluated = self
                .run_pipeline(company, subject, &mut occurrence, language, mode, explain)
                .await;
            // Another till took or held a use of a Voucher, or the last of a
            // limit, since they were read: read them again, and the sale goes
            // on without what is gone.
            if !tries.again(&evaluated, USES_GONE) {
                break evaluated?;
            }
            let presented = CartVouchers {
                at: self.now(),
                ..presented
            };
            occurrence.vouchers = self
                .desired_vouchers(company, &occurrence.cart.customer_id, presented, &locale)
                .await?;
        };
        if record {
            let cart = &occurrence.cart;
            tracing::info!(company, cart = %cart.id, customer = %cart.customer_id, effects = evaluated.effects.len(), "cart recorded");
        }
        Ok(occurrence.answer(evaluated))
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
