//! Repository of carts; they write to the points ledger
//! ([`crate::resources::points::store::ledger`]) and their Customer's
//! purchase days ([`purchase_days`]).

use chrono::NaiveDate;
use serde_json::{Value, json};

mod purchase_days;

pub(crate) use purchase_days::STORE_PURCHASE_DAYS;
pub(crate) use purchase_days::days_from_months;
use purchase_days::purchase_day_row;

use crate::common::amount::Amount;
use crate::common::money::decimal_to_f64;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::written_answer;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::pipeline::kinds::CONTRIBUTIONS;
use crate::pipeline::occurrence::Earned;
use crate::resources::carts::model::Cart;
use crate::resources::carts::purchase_days::PurchaseTotals;
use crate::resources::limits::contribution::EVENT_LIMIT_TAKES;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::store::ledger::APPEND_LEDGER;
use crate::resources::points::store::ledger::GUARD_DEBITS;
use crate::resources::webhooks::outbox::WRITE_WEBHOOKS;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::event_transaction::BatchPart;
use crate::storage::event_transaction::keyed_row;
use crate::storage::first;
use crate::storage::page_query::PageQuery;

/// SurrealQL recomputing the purchase totals of `$customer` from its carts
/// (spend nets cancellations out; cancelled carts and cancellations do not
/// count), and its purchase days (where neither counts at all). The totals
/// are fields of the Customer's state ([`crate::resources::customers::state`]).
pub(crate) const RECOUNT_TOTALS: &str = "
    fn::recount_purchase_days($company, $customer);
    LET $carts = (SELECT fn::money(total) AS total, date, cancels, cancelled_by FROM cart WHERE company = $company AND customer_id = $customer);
    UPSERT type::record('customer_state', [$company, $customer])
        SET company = $company, customer_id = $customer,
            lifetime_spend = math::sum($carts.total),
            cart_count = count($carts[WHERE !cancels AND !cancelled_by]),
            last_purchase = array::max($carts[WHERE !cancels AND !cancelled_by].date)
        RETURN NONE;";

/// `cart` of `company` as its record holds it: keyed by its code, every
/// amount as exact decimal text (no field clause converts them in the store:
/// see `schema.surql`), and without what reading it back gives by default (a
/// line's empty taxonomies and features and zero discount, no cancellation):
/// a cart's bytes are what every later read and the store's compaction pay.
fn cart_document(company: &str, cart: &Cart) -> ApiResult<Value> {
    let mut document = serde_json::to_value(cart).map_err(ApiError::internal)?;
    let Some(object) = document.as_object_mut() else {
        return Err(ApiError::internal("a cart is not stored as an object"));
    };
    object.remove("id");
    object.retain(|_, value| !value.is_null());
    object.insert("code".into(), Value::String(cart.id.clone()));
    object.insert("company".into(), Value::String(company.to_string()));
    object.insert("total".into(), cart.total.to_stored());
    object.insert("discount_total".into(), cart.discount_total.to_stored());
    if let Some(Value::Array(lines)) = object.get_mut("lines") {
        for (stored, line) in lines.iter_mut().zip(&cart.lines) {
            let Some(stored) = stored.as_object_mut() else {
                continue;
            };
            stored.insert("price".into(), line.price.to_stored());
            if line.discount.0.is_zero() {
                stored.remove("discount");
            } else {
                stored.insert("discount".into(), line.discount.to_stored());
            }
            if line.taxonomies.is_empty() {
                stored.remove("taxonomies");
            }
            if line.features.is_empty() {
                stored.remove("features");
            }
        }
    }
    Ok(document)
}

fn from_document(mut document: Value) -> ApiResult<Cart> {
    if let Some(object) = document.as_object_mut() {
        object.remove("id");
        object.remove("company");
        object.remove("limit_takes");
        object.remove("day");
        if let Some(code) = object.remove("code") {
            object.insert("id".into(), code);
        }
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored cart unreadable: {e}")))
}

/// A stored amount (the store answers decimals as text) as conditions see
/// it, a number; `None` when absent or unreadable.
fn stored_number(value: Option<&Value>) -> Option<f64> {
    Amount::from_stored(value?)
        .ok()
        .map(|a| decimal_to_f64(a.0))
}

/// The purchase totals of a Customer's stored state (zero when absent).
pub(crate) fn totals_from_row(row: Option<&Value>) -> PurchaseTotals {
    let Some(row) = row else {
        return PurchaseTotals::default();
    };
    PurchaseTotals {
        lifetime_spend: stored_number(row.get("lifetime_spend")).unwrap_or(0.0),
        cart_count: row.get("cart_count").and_then(Value::as_i64).unwrap_or(0),
        last_purchase: row
            .get("last_purchase")
            .and_then(Value::as_str)
            .and_then(|d| d.parse::<Timestamp>().ok())
            .map(|t| t.as_datetime()),
    }
}

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// carts of the batch (`$carts`, made by [`cart_rows`]), refused with
/// `cart_already_exists` when a code was recorded before: the carts'
/// records, named in [`CART_IDS`], are read in one expression. (A batch
/// holding one code twice is refused before it is sent,
/// [`crate::storage::event_transaction::BatchTransaction::repeats_a_cart`],
/// and recorded event by event, where the second cart meets this check.)
pub(crate) const STORE_CARTS: BatchPart = BatchPart {
    binding: "carts",
    statements: "
    LET $taken = ((<array<record>> $cart_ids).code)[WHERE $this != NONE];
    IF $taken {
        THROW 'REFUSED|cart_already_exists|cart ' + $taken[0] + ' was already recorded';
    };
    INSERT INTO cart $carts RETURN NONE;",
};

/// The record ids of [`STORE_CARTS`]' carts as SurrealQL text, in the order
/// of its rows ([`crate::storage::record_text`]): building them in the
/// statement, one closure per cart, cost 45 µs per cart.
pub(crate) const CART_IDS: BatchPart = BatchPart::read_by_others("cart_ids");

/// The rows [`STORE_CARTS`] and [`STORE_PURCHASE_DAYS`] write for the cart
/// of `write` ([`crate::storage::event_transaction::EventWrite`]) of
/// `company`, when it records one (its totals move the Customer's state:
/// [`crate::resources::customers::state::state_moves`]).
pub(crate) fn cart_rows(company: &str, write: &Value) -> Option<(Value, Value)> {
    let cart = keyed_row(company, &write["cart"], "code")?;
    Some((cart, purchase_day_row(company, write)))
}

/// A cart to record and what goes with it.
#[derive(Debug, Clone, Copy)]
pub struct CartWrite<'a> {
    /// The cart.
    pub cart: &'a Cart,
    /// What its campaigns earned: points, Instant Win draws, Vouchers.
    pub earned: Earned<'a>,
    /// The kinds' documents of its write, by field (the Voucher uses it
    /// redeems, the discounts it got:
    /// [`crate::pipeline::contribution::Contribution::cart_parts`]).
    pub kinds_parts: &'a [(&'static str, Value)],
    /// Its calendar day where it was made, the day of the Customer's
    /// history it counts on ([`crate::engine::history`]).
    pub day: NaiveDate,
}

#[cfg(test)]
impl<'a> CartWrite<'a> {
    /// `cart` earning `ledger` and nothing else, counted on its UTC day:
    /// what the store's tests record.
    pub(crate) fn earning_only(cart: &'a Cart, ledger: &'a [LedgerEntry]) -> CartWrite<'a> {
        CartWrite {
            cart,
            earned: Earned::only(ledger),
            kinds_parts: &[],
            day: cart.date.as_datetime().date_naive(),
        }
    }
}

/// What each kind gives back of a cancelled cart: its statements, reading
/// its own document of `$given_back` as `$part`.
fn give_back_statements() -> String {
    CONTRIBUTIONS
        .iter()
        .enumerate()
        .filter_map(|(index, kind)| {
            let statements = kind.cancellation_statements()?;
            Some(format!("LET $part = $given_back[{index}];\n{statements}\n"))
        })
        .collect()
}

impl Store {
    /// Records a cart with everything it earned and used
    /// ([`CartWrite`]) in one transaction, possibly shared with other events
    /// ([`crate::storage::group_commit`]); `cart_already_exists` if its code
    /// was recorded before, `voucher_redeemed` or `voucher_frozen` when a
    /// Voucher it uses was taken meanwhile.
    pub async fn insert_cart(&self, company: &str, write: CartWrite<'_>) -> ApiResult<()> {
        let cart = write.cart;
        let mut doc = cart_document(company, cart)?;
        // Kept with the cart so that a recount of its Customer's days
        // (after a cancellation or a merge) puts it on the same day.
        doc["day"] = Value::String(write.day.to_string());
        // Kept with the cart so that its cancellation gives them back.
        if let Some(takes) = write.earned.part(EVENT_LIMIT_TAKES.field) {
            doc["limit_takes"] = takes.clone();
        }
        let written = self.ledger_write(company, write.earned.ledger);
        let mut event = json!({
                "company": company,
                "customer": cart.customer_id,
                "cart": doc,
                "event": null,
                "total": cart.total.to_stored(),
                "date": cart.date.to_string(),
                "ledger": written.records,
                "balances": written.balances,
                "ledger_webhooks": written.webhooks,
                "draw_write": write.earned.draw_write,
                "answer": written_answer(),
                "now": cart.created_at.to_string(),
        });
        write.earned.put_parts(&mut event);
        for (field, document) in write.kinds_parts {
            event[*field] = document.clone();
        }
        self.record_event(&cart.customer_id, event).await
    }

    /// Records `cancellation` of the cart `original` with the reversing
    /// `ledger`, in one transaction with what each kind gives back
    /// (`given_back`, one document per contribution in
    /// [`CONTRIBUTIONS`]' order): refuses with `cart_already_cancelled` when
    /// the original was cancelled before, `cart_already_exists` when the
    /// cancellation's code is taken.
    pub async fn insert_cancellation(
        &self,
        company: &str,
        original: &str,
        cancellation: &Cart,
        ledger: &[LedgerEntry],
        given_back: &[Value],
    ) -> ApiResult<()> {
        let doc = cart_document(company, cancellation)?;
        let query = format!(
            "BEGIN TRANSACTION;
             LET $original = type::record('cart', [$company, $original_code]);
             IF ($original.cancelled_by) {{
                 THROW '{REFUSED}{cancelled}|cart ' + $original_code + ' was already cancelled';
             }};
             LET $key = type::record('cart', [$company, $code]);
             IF record::exists($key) {{
                 THROW '{REFUSED}{exists}|cart ' + $code + ' was already recorded';
             }};
             CREATE $key CONTENT $doc RETURN NONE;
             UPDATE $original SET cancelled_by = $code RETURN NONE;
             {GUARD_DEBITS}
             {APPEND_LEDGER}
             {RECOUNT_TOTALS}
             {give_back}
             {WRITE_WEBHOOKS}
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            cancelled = ErrorCode::CartAlreadyCancelled.code(),
            exists = ErrorCode::CartAlreadyExists.code(),
            give_back = give_back_statements(),
        );
        // Before the ledger's `points.changed`, in the order it happened.
        let webhooks =
            poem_openapi::types::ToJSON::to_json(cancellation).map_or_else(Vec::new, |data| {
                self.memory.webhooks.rows(
                    company,
                    "cart.cancelled",
                    Some(&cancellation.customer_id),
                    data,
                    cancellation.created_at,
                )
            });
        let written = self.ledger_write(company, ledger);
        let now = cancellation.created_at.to_string();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("now", now.clone()))
                .bind(("original_code", original.to_string()))
                .bind(("code", cancellation.id.clone()))
                .bind(("customer", cancellation.customer_id.clone()))
                .bind(("doc", doc.clone()))
                .bind_ledger(&written)
                .bind(("given_back", given_back.to_vec()))
                .bind(("webhook_deliveries", webhooks.clone()))
        })
        .await?;
        Ok(())
    }

    /// The cart `id` of `company`.
    pub async fn cart(&self, company: &str, id: &str) -> ApiResult<Option<Cart>> {
        let document: Option<Value> = first(
            self.db
                .query("RETURN type::record('cart', [$company, $id]).*")
                .bind(("company", company.to_string()))
                .bind(("id", id.to_string())),
        )
        .await?;
        document.map(from_document).transpose()
    }

    /// Carts of `company`, optionally of one Customer and within dates, in id
    /// order after `starting_after`, at most `limit`.
    pub async fn carts(
        &self,
        company: &str,
        customer_id: Option<&str>,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<Cart>> {
        let documents = PageQuery::new("SELECT * FROM cart", "code")
            .filter_if("customer_id = $customer", "customer", customer_id)
            .filter_if("date >= $from", "from", from.map(|t| t.to_string()))
            .filter_if("date <= $to", "to", to.map(|t| t.to_string()))
            .fetch(self, company, starting_after, limit)
            .await?;
        documents.into_iter().map(from_document).collect()
    }

    /// Up to `limit` carts of `company` after the cart `after`, in id order
    /// (an export's pages: [`Store::records_after`]).
    pub async fn carts_after(
        &self,
        company: &str,
        after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<Cart>> {
        let documents = self.records_after("cart", company, after, limit).await?;
        documents.into_iter().map(from_document).collect()
    }

    /// Ids of every cart of a Customer.
    pub async fn cart_ids_of(&self, company: &str, customer_id: &str) -> ApiResult<Vec<String>> {
        first(
            self.db
                .query("SELECT VALUE code FROM cart WHERE company = $company AND customer_id = $customer ORDER BY code")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string())),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cart of Customer `x` with lines of `prices`, its total their sum.
    fn cart(code: &str, prices: &[f64]) -> Cart {
        let lines: Vec<Value> = prices
            .iter()
            .map(|price| json!({"product_code": "A", "quantity": 1.0, "price": price, "discount": 0.0}))
            .collect();
        serde_json::from_value(json!({
            "id": code, "customer_id": "x", "date": "2026-05-04T10:00:00Z",
            "lines": lines, "total": prices.iter().sum::<f64>(), "discount_total": 4136.9638,
            "points_earned": 0, "created_at": "2026-05-04T10:00:01Z",
        }))
        .unwrap()
    }

    fn write(cart: &Cart) -> CartWrite<'_> {
        CartWrite::earning_only(cart, &[])
    }

    #[tokio::test]
    async fn amounts_reach_the_store_as_the_decimal_text_they_were_written_as() {
        // A binary float would hold 4346658.73 as 4346658.730000001.
        let store = Store::connect("mem://", None).await.unwrap();
        let one = cart("T-1", &[4346658.73]);
        store.insert_cart("c", write(&one)).await.unwrap();
        let amounts: Vec<Value> = first(store.db.query(
            "SELECT VALUE [total, discount_total, lines[0].price, lines[0].discount] FROM cart",
        ))
        .await
        .unwrap();
        // A line's zero discount is not stored: reading gives it back.
        assert_eq!(
            amounts,
            [json!(["4346658.73", "4136.9638", "4346658.73", null])]
        );
        let read = store.cart("c", "T-1").await.unwrap().unwrap();
        assert_eq!(read, one);
        assert_eq!(read.total.0.to_string(), "4346658.73");
        assert_eq!(read.lines[0].price.0.to_string(), "4346658.73");

        // The Customer's spend adds the carts' totals exactly, and a
        // recount sums the text and the decimals of older carts alike.
        let second = cart("T-2", &[4304597.48, 150000.0]);
        store.insert_cart("c", write(&second)).await.unwrap();
        crate::storage::execute(store.db.query(
            "CREATE type::record('cart', ['c', 'OLD']) CONTENT {
                 company: 'c', code: 'OLD', customer_id: 'x', date: '2026-05-01T10:00:00Z',
                 total: 0.01dec, discount_total: 0dec, lines: []
             };",
        ))
        .await
        .unwrap();
        let spend = || async {
            let spend: Vec<Value> = first(
                store
                    .db
                    .query("SELECT VALUE <string> lifetime_spend FROM customer_state"),
            )
            .await
            .unwrap();
            spend
        };
        assert_eq!(spend().await, [json!("8801256.21")]);
        super::purchase_days::tests::recount(&store).await;
        assert_eq!(spend().await, [json!("8801256.22")]);
    }

    #[tokio::test]
    async fn money_stored_as_floats_before_is_migrated_to_decimals_once() {
        let store = Store::connect("mem://", None).await.unwrap();
        // A store from before: amounts as floats.
        crate::storage::execute(store.db.query(
            "CREATE type::record('cart', ['c', 'OLD-1']) CONTENT {
                 company: 'c', code: 'OLD-1', customer_id: 'x', date: '2026-05-04T10:00:00Z',
                 location_code: NONE, total: 3.63, discount_total: 0.1, points_earned: 0,
                 created_at: '2026-05-04T10:00:01Z',
                 lines: [
                     { product_code: 'A', quantity: 1.0, price: 0.1, taxonomies: [], features: {} },
                     { product_code: 'B', quantity: 1.0, price: 3.53, taxonomies: [], features: {} }
                 ]
             };
             CREATE type::record('customer_stats', ['c', 'x']) CONTENT {
                 company: 'c', customer_id: 'x', lifetime_spend: 3.63, cart_count: 1
             };
             DELETE migration:money_decimals;
             DELETE migration:customer_state;",
        ))
        .await
        .unwrap();
        let before: Vec<Value> = first(
            store
                .db
                .query("SELECT VALUE type::is_float(total) FROM cart"),
        )
        .await
        .unwrap();
        assert_eq!(before, [json!(true)]);

        store.apply_schema().await.unwrap();
        store.apply_schema().await.unwrap();
        let kinds: Vec<Value> = first(store.db.query(
            "SELECT VALUE [type::is_decimal(total), type::is_decimal(discount_total),
                type::is_decimal(lines[0].price), type::is_decimal(lines[1].discount)] FROM cart",
        ))
        .await
        .unwrap();
        assert_eq!(kinds, [json!([true, true, true, true])]);
        let cart = store.cart("c", "OLD-1").await.unwrap().unwrap();
        assert_eq!(cart.total.0.to_string(), "3.63");
        assert_eq!(cart.lines[0].price.0.to_string(), "0.1");
        assert_eq!(cart.lines[1].discount.0.to_string(), "0");
        let state: Option<Value> = first(
            store
                .db
                .query("RETURN type::record('customer_state', ['c', 'x']).*"),
        )
        .await
        .unwrap();
        let totals = totals_from_row(state.as_ref());
        assert_eq!(totals.lifetime_spend, 3.63);
        assert_eq!(totals.cart_count, 1);
    }
}
