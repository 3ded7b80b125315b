//! Points and wallet operations: balances, the ledger of a Customer,
//! redemptions (alone or for a cart), transfers between Customers and manual
//! adjustments. Every operation is one transaction of ledger entries; a debit
//! never takes a balance below zero, however many arrive at once.

use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::retry::{CHANGED, Tries};
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::http::idempotency::answer::awaits_answer;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::MAX_POINTS;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsTransaction;
use crate::services::Services;

/// How many times a keyed operation reads the balances it moves again when
/// they moved before its write.
const MAX_BALANCE_READS: u32 = 16;

/// Longest description of an operation.
const MAX_DESCRIPTION: usize = 500;

/// What a redemption, transfer or adjustment did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointsOperation {
    /// Identifier shared by the operation's ledger entries.
    pub id: String,
    /// The balance moved.
    pub kind: PointsKind,
    /// Amount moved.
    pub points: i64,
    /// The Customer debited (redemption, transfer) or adjusted.
    pub customer_id: String,
    /// Their balance afterwards.
    pub balance: i64,
    /// Transfers: the Customer credited, and their balance afterwards.
    pub counterpart: Option<(String, i64)>,
    /// Cart redemptions: the cart.
    pub cart_id: Option<String>,
}

/// Checks an amount given by a caller; `signed` allows negative ones.
fn amount(points: i64, signed: bool) -> ApiResult<i64> {
    let valid = if signed {
        points != 0 && points.abs() <= MAX_POINTS
    } else {
        (1..=MAX_POINTS).contains(&points)
    };
    if valid {
        Ok(points)
    } else if signed {
        Err(ApiError::invalid(format!(
            "points must be a whole number other than 0, from -{MAX_POINTS} to {MAX_POINTS}"
        )))
    } else {
        Err(ApiError::invalid(format!(
            "points must be a whole number from 1 to {MAX_POINTS}"
        )))
    }
}

fn description(text: Option<String>) -> ApiResult<Option<String>> {
    match text {
        Some(text) if text.chars().count() > MAX_DESCRIPTION => Err(ApiError::invalid(format!(
            "description is at most {MAX_DESCRIPTION} characters"
        ))),
        Some(text) if text.trim().is_empty() => Ok(None),
        other => Ok(other),
    }
}

/// The entry debiting or crediting `customer` in an operation.
fn entry(
    customer: &Customer,
    kind: PointsKind,
    points: i64,
    reason: &str,
    operation: &Operation<'_>,
) -> LedgerEntry {
    LedgerEntry {
        operation_id: Some(operation.id.clone()),
        author_email: operation.author.map(str::to_string),
        description: operation.note.clone(),
        ..LedgerEntry::new(&customer.id, kind, points, reason, operation.at)
    }
}

/// What an operation moving one Customer's balance answers, from that
/// balance afterwards.
fn one_balance<'a>(
    id: &'a str,
    kind: PointsKind,
    points: i64,
    customer_id: &'a str,
    cart_id: Option<&'a str>,
) -> impl Fn([i64; 1]) -> PointsOperation + 'a {
    move |[balance]| PointsOperation {
        id: id.to_string(),
        kind,
        points,
        customer_id: customer_id.to_string(),
        balance,
        counterpart: None,
        cart_id: cart_id.map(str::to_string),
    }
}

/// What an operation moves and what its ledger entries keep: `points` of
/// the `kind` balance, a note, and the author (`X-Author-Email`).
#[derive(Debug, Clone)]
pub struct Movement<'a> {
    /// The balance moved.
    pub kind: PointsKind,
    /// How many: more than 0 (an adjustment: other than 0, negative debits).
    pub points: i64,
    /// A note kept on the entries.
    pub note: Option<String>,
    /// Who made it.
    pub author: Option<&'a str>,
}

impl<'a> Movement<'a> {
    /// `points` of the `kind` balance, with `note`, by `author`.
    pub fn new(
        kind: PointsKind,
        points: i64,
        note: Option<String>,
        author: Option<&'a str>,
    ) -> Self {
        Movement {
            kind,
            points,
            note,
            author,
        }
    }

    /// Its amount (`signed`: a negative one debits) and note checked, and
    /// the operation moving it at `at`.
    fn checked(&self, signed: bool, at: Timestamp) -> ApiResult<(i64, Operation<'a>)> {
        let points = amount(self.points, signed)?;
        let operation = Operation {
            id: crate::common::ids::time_ordered_id("op"),
            at,
            author: self.author,
            note: description(self.note.clone())?,
        };
        Ok((points, operation))
    }
}

/// What the entries of one operation share.
struct Operation<'a> {
    id: String,
    at: Timestamp,
    author: Option<&'a str>,
    note: Option<String>,
}

impl Services {
    /// Appends `entries` (redeeming for the cart `for_cart`, when given) with
    /// the `kind` balances of `customers` locked in this process, and
    /// answers `operation` of those balances afterwards.
    /// The answer of a keyed request is written with the entries
    /// ([`crate::http::idempotency::answer`]): the balances are read first,
    /// the answer made from them and what the entries move, and the write
    /// expects them unchanged (a cart or another process moved one
    /// meanwhile: read again).
    async fn append_locked<const N: usize>(
        &self,
        company: &str,
        customers: [&str; N],
        kind: PointsKind,
        entries: &[LedgerEntry],
        for_cart: Option<&str>,
        operation: impl Fn([i64; N]) -> PointsOperation,
    ) -> ApiResult<PointsOperation> {
        let _held = self.balance_locks.lock(company, &customers, kind).await;
        // A points balance kept in memory is as the last write of this
        // process left it: a keyed write still checks it in its
        // transaction, and one refused reads the store (the refusal
        // forgets the Customer).
        let read_balances = || async {
            let mut balances = [0; N];
            for (balance, customer) in balances.iter_mut().zip(customers) {
                let kept = match kind {
                    PointsKind::Points => self.store.kept_points_balance(company, customer),
                    PointsKind::Wallet => None,
                };
                *balance = match kept {
                    Some(kept) => kept,
                    None => self.store.balance(company, customer, kind).await?,
                };
            }
            ApiResult::Ok(balances)
        };
        if !awaits_answer() {
            // The balances as the write's own transaction left them: no read
            // of their own, and no other write's move in them.
            let after = self
                .store
                .append_ledger(company, entries, for_cart, &[])
                .await?;
            let mut balances = [0; N];
            for (balance, customer) in balances.iter_mut().zip(customers) {
                *balance = match after
                    .iter()
                    .find(|moved| moved.customer_id == customer && moved.kind == kind)
                {
                    Some(moved) => moved.balance,
                    None => self.store.balance(company, customer, kind).await?,
                };
            }
            return Ok(operation(balances));
        }
        let mut tries = Tries::at_most(MAX_BALANCE_READS);
        loop {
            let before = read_balances().await?;
            let mut after = before;
            for (balance, customer) in after.iter_mut().zip(customers) {
                *balance += entries
                    .iter()
                    .filter(|entry| entry.customer_id == customer && entry.kind == kind)
                    .map(|entry| entry.points)
                    .sum::<i64>();
            }
            let done = operation(after);
            answer_now(&done).await;
            let expected: Vec<(&str, PointsKind, i64)> = customers
                .iter()
                .zip(before)
                .map(|(customer, balance)| (*customer, kind, balance))
                .collect();
            let written = self
                .store
                .append_ledger(company, entries, for_cart, &expected)
                .await;
            if tries.again(&written, CHANGED) {
                continue;
            }
            written?;
            return Ok(done);
        }
    }

    /// A Customer's balances: (customer id, points, wallet).
    pub async fn balances(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
    ) -> ApiResult<(String, i64, i64)> {
        let customer = self.find_customer(company, customer).await?.customer;
        let (points, wallet) = tokio::try_join!(
            self.store
                .balance(company, &customer.id, PointsKind::Points),
            self.store
                .balance(company, &customer.id, PointsKind::Wallet),
        )?;
        Ok((customer.id, points, wallet))
    }

    /// A Customer's ledger entries, newest first.
    pub async fn points_transactions(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        kind: Option<PointsKind>,
        page: PageRequest,
    ) -> ApiResult<Page<PointsTransaction>> {
        let customer = self.find_customer(company, customer).await?.customer;
        let fetched = self
            .store
            .ledger_entries(
                company,
                &customer.id,
                kind,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        Ok(Page::from_fetched(fetched, &page, |entry| entry.id.clone()))
    }

    /// Redeems what `movement` says from an active Customer's balance;
    /// `customer_not_enough_score` when the balance is smaller.
    pub async fn redeem_points(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        movement: Movement<'_>,
    ) -> ApiResult<PointsOperation> {
        let (points, operation) = movement.checked(false, self.now())?;
        let customer = self.active_customer_by(company, customer).await?;
        let debit = entry(&customer, movement.kind, -points, "redemption", &operation);
        let done = self
            .append_one(company, &customer, debit, points, &operation)
            .await?;
        tracing::info!(company, customer = %customer.id, points, kind = movement.kind.name(), operation = %operation.id, "points redeemed");
        Ok(done)
    }

    /// Redeems what `movement` says for the recorded cart `cart_id` from its
    /// Customer's balance; the cart's cancellation gives them back, once.
    pub async fn redeem_points_for_cart(
        &self,
        company: &str,
        cart_id: &str,
        movement: Movement<'_>,
    ) -> ApiResult<PointsOperation> {
        let (points, operation) = movement.checked(false, self.now())?;
        let cart = self.cart(company, cart_id).await?;
        if cart.cancels.is_some() {
            return Err(ApiError::new(
                ErrorCode::CartIsCancellation,
                format!("cart {} is a cancellation", cart.id),
            ));
        }
        let customer = self
            .active_customer_by(company, CustomerRef::id(&cart.customer_id))
            .await?;
        let debit = LedgerEntry {
            cart_id: Some(cart.id.clone()),
            ..entry(&customer, movement.kind, -points, "redemption", &operation)
        };
        self.append_one(company, &customer, debit, points, &operation)
            .await
    }

    /// Appends the one entry `moved` of `customer` (for its cart, when it
    /// names one) in `operation`, answered as moving `points`.
    async fn append_one(
        &self,
        company: &str,
        customer: &Customer,
        moved: LedgerEntry,
        points: i64,
        operation: &Operation<'_>,
    ) -> ApiResult<PointsOperation> {
        let kind = moved.kind;
        let for_cart = moved.cart_id.clone();
        let for_cart = for_cart.as_deref();
        self.append_locked(
            company,
            [&customer.id],
            kind,
            std::slice::from_ref(&moved),
            for_cart,
            one_balance(&operation.id, kind, points, &customer.id, for_cart),
        )
        .await
    }

    /// Moves `points` of `kind` from one Customer to another of the same
    /// Company: both legs or neither.
    pub async fn transfer_points(
        &self,
        company: &str,
        from: CustomerRef<'_>,
        to: CustomerRef<'_>,
        movement: Movement<'_>,
    ) -> ApiResult<PointsOperation> {
        let (points, operation) = movement.checked(false, self.now())?;
        let kind = movement.kind;
        let from = self.active_customer_by(company, from).await?;
        let to = self.active_customer_by(company, to).await?;
        if from.id == to.id {
            return Err(ApiError::new(
                ErrorCode::SameCustomer,
                "a transfer needs two different Customers",
            ));
        }
        let id = &operation.id;
        let debit = LedgerEntry {
            counterpart_id: Some(to.id.clone()),
            ..entry(&from, kind, -points, "transfer", &operation)
        };
        let credit = LedgerEntry {
            counterpart_id: Some(from.id.clone()),
            ..entry(&to, kind, points, "transfer", &operation)
        };
        let done = self
            .append_locked(
                company,
                [&from.id, &to.id],
                kind,
                &[debit, credit],
                None,
                |[from_balance, to_balance]| PointsOperation {
                    id: id.clone(),
                    kind,
                    points,
                    customer_id: from.id.clone(),
                    balance: from_balance,
                    counterpart: Some((to.id.clone(), to_balance)),
                    cart_id: None,
                },
            )
            .await?;
        tracing::info!(company, from = %from.id, to = %to.id, points, kind = kind.name(), operation = %id, "points transferred");
        Ok(done)
    }

    /// Credits (positive) or debits (negative) a Customer by hand, e.g. a
    /// goodwill gesture; a debit never takes the balance below zero. A credit
    /// may expire at `expires_at`.
    pub async fn adjust_points(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        movement: Movement<'_>,
        expires_at: Option<Timestamp>,
    ) -> ApiResult<PointsOperation> {
        let (points, operation) = movement.checked(true, self.now())?;
        if let Some(at) = expires_at {
            if points < 0 {
                return Err(ApiError::invalid(
                    "only credits expire: expires_at needs positive points",
                ));
            }
            if at <= self.now() {
                return Err(ApiError::invalid("expires_at must be in the future"));
            }
        }
        let customer = self.active_customer_by(company, customer).await?;
        let adjustment = LedgerEntry {
            expires_at,
            ..entry(&customer, movement.kind, points, "adjustment", &operation)
        };
        self.append_one(company, &customer, adjustment, points, &operation)
            .await
    }
}
