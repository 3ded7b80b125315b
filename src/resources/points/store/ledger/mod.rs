//! The points ledger: append-only entries, each moving one Customer's balance
//! of one kind (points or wallet), stored a write at a time
//! ([`ledger_documents`]; reading them back is [`crate::resources::points::store::ledger_reads`]).
//! Balances are cached per Customer and kind by the transaction that appends,
//! so a balance always equals the sum of its entries; reversals are new
//! entries, never edits.

use serde_json::{Value, json};

use crate::common::stamps::StampClock;
use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::resources::webhooks::emit::LEDGER_WEBHOOKS;
use crate::resources::webhooks::emit::ledger_webhooks_text;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::connection::StoreQuery;
use crate::storage::first;

/// SurrealQL appending every write of `$ledger`, moving each balance of
/// `$balances` and writing the entries' `points.changed` webhook events of
/// `$ledger_webhooks` (all three from [`Store::ledger_write`]) inside the caller's
/// transaction. The moves are summed in Rust: summing them in SurrealQL cost
/// more than writing the entries. A balance is the field of its Customer's
/// state named by its kind ([`crate::resources::customers::state`]).
pub(crate) const APPEND_LEDGER: &str = concat!(
    "
    IF $ledger {
        INSERT INTO ledger_write $ledger RETURN NONE;
    };
    FOR $balance IN $balances {
        LET $state = type::record('customer_state', [$company, $balance.customer_id]);
        UPSERT $state MERGE object::from_entries([
            ['company', $company], ['customer_id', $balance.customer_id],
            [$balance.kind, ($state.*[$balance.kind] ?? 0) + $balance.delta]
        ]) RETURN NONE;
    };",
    ledger_webhooks_text!()
);

/// SurrealQL refusing with `customer_not_enough_score` when `$balances`
/// would take a balance below zero (a balance's entries count together, so
/// points given back offset points taken back); runs before
/// [`APPEND_LEDGER`] in the same transaction, so concurrent debits of one
/// balance conflict on its record and the retried one sees the other's effect.
pub(crate) const GUARD_DEBITS: &str = "
    FOR $balance IN $balances[WHERE delta < 0] {
        LET $have = type::record('customer_state', [$company, $balance.customer_id]).*[$balance.kind] ?? 0;
        IF $have + $balance.delta < 0 {
            THROW 'REFUSED|customer_not_enough_score|Customer ' + $balance.customer_id + ' has ' + <string> $have + ' ' + $balance.kind + ', not ' + <string> (0 - $balance.delta);
        };
    };";

/// SurrealQL giving, as the last statement of a transaction appending a
/// ledger write (before its `COMMIT`), the states of the Customers whose
/// balances `$balances` moved (`$state_ids`: their records as SurrealQL
/// text, [`crate::storage::record_text`], in the order of `$balances`), as
/// the transaction left them: the balances an operation answers with need
/// no read of their own.
pub(crate) const BALANCES_AFTER: &str = "(<array<record>> $state_ids).*;";

/// A balance a ledger write moved, as its transaction left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceAfter {
    /// Whose balance.
    pub customer_id: String,
    /// Of which kind.
    pub kind: PointsKind,
    /// The balance after the write.
    pub balance: i64,
}

/// What appending ledger entries writes: the entries, grouped, and the move
/// of each balance they touch.
#[derive(Debug, Clone, Default)]
pub(crate) struct LedgerWrite {
    /// The `ledger_write` records (`$ledger`), see [`ledger_documents`].
    pub records: Vec<Value>,
    /// `{customer_id, kind, delta}` per balance, in first-seen order (`$balances`).
    pub balances: Vec<Value>,
    /// Each entry's id, in the order of the entries written.
    pub entry_ids: Vec<String>,
    /// The `points.changed` webhook events of the entries, for the
    /// endpoints subscribed (`$ledger_webhooks`, see
    /// [`crate::resources::webhooks::emit`]); most often none.
    pub webhooks: Vec<Value>,
}

impl<'c> StoreQuery<'c> {
    /// Binds what [`APPEND_LEDGER`] reads of `written`: `$ledger`,
    /// `$balances` and `$ledger_webhooks`.
    pub(crate) fn bind_ledger(self, written: &LedgerWrite) -> Self {
        self.bind(("ledger", written.records.clone()))
            .bind(("balances", written.balances.clone()))
            .bind((LEDGER_WEBHOOKS, written.webhooks.clone()))
    }
}

/// The fields every entry of a stored write shares with the others (they key
/// the write), kept once on the write.
const SHARED_FIELDS: [&str; 3] = ["customer_id", "kind", "cart_id"];

/// The fields the entries of a stored write usually share: kept once on the
/// write when every entry has the same, on each entry otherwise. A cart's
/// dozen entries carry their instant and reason once (a fifth of the bytes a
/// cart binds to its transaction, BENCHMARKS.md).
pub(crate) const USUALLY_SHARED_FIELDS: [&str; 2] = ["created_at", "reason"];

/// The id of the entry at `index` of a stored write whose entries' ids begin
/// with `prefix`: entries are stored without their ids, which follow from
/// their write's first (`entry_id`) and their place in it.
pub(crate) fn entry_id(prefix: &str, index: usize) -> String {
    format!("{prefix}{index:03x}")
}

/// The prefix of the entries' ids of the write whose first entry is `first`.
pub(crate) fn entry_id_prefix(first: &str) -> &str {
    first.get(..first.len().saturating_sub(3)).unwrap_or(first)
}

/// The ledger entries of `company` as stored, and the balance moves they make.
///
/// The entries one write appends for one Customer's balance of one kind and
/// one cart are stored as one `ledger_write` record: a cart's dozen entries
/// cost one record and its index entries instead of a dozen of each. Each
/// entry has a new time-ordered id, `pt_` + a stamp of `clock` + random + its
/// index, so the entries of one record are contiguous in id order and
/// listing records by their first entry's id (`entry_id`) lists entries by
/// time; an entry's id is not stored, it follows from `entry_id` and its
/// place ([`entry_id`]). A record also keeps its cart (`cart_id`) and the
/// earliest and latest
/// expiry of its credits (`expires_from`, `expires_until`), which is what
/// cancellations and expiry look for.
pub(crate) fn ledger_documents(
    clock: &StampClock,
    company: &str,
    ledger: &[LedgerEntry],
) -> LedgerWrite {
    let mut groups: Vec<(&LedgerEntry, Vec<usize>)> = Vec::new();
    for (index, entry) in ledger.iter().enumerate() {
        match groups.iter_mut().find(|(key, _)| {
            key.customer_id == entry.customer_id
                && key.kind == entry.kind
                && key.cart_id == entry.cart_id
        }) {
            Some((_, members)) => members.push(index),
            None => groups.push((entry, vec![index])),
        }
    }
    let mut entry_ids = vec![String::new(); ledger.len()];
    let records = groups
        .into_iter()
        .map(|(key, indices)| {
            let prefix = clock.id("pt");
            for (place, index) in indices.iter().enumerate() {
                entry_ids[*index] = entry_id(&prefix, place);
            }
            let members: Vec<&LedgerEntry> = indices.iter().map(|index| &ledger[*index]).collect();
            write_document(company, &prefix, key, &members)
        })
        .collect();
    let balances = balance_moves(ledger)
        .into_iter()
        .map(|(customer_id, kind, delta)| {
            json!({"customer_id": customer_id, "kind": kind, "delta": delta})
        })
        .collect();
    LedgerWrite {
        records,
        balances,
        entry_ids,
        webhooks: Vec::new(),
    }
}

/// Each balance `ledger` moves (its Customer and kind) with the sum of its
/// entries, in the order first met: the moves of [`LedgerWrite::balances`].
pub(crate) fn balance_moves(ledger: &[LedgerEntry]) -> Vec<(&str, PointsKind, i64)> {
    let mut moves: Vec<(&str, PointsKind, i64)> = Vec::new();
    for entry in ledger {
        match moves
            .iter_mut()
            .find(|(customer, kind, _)| *customer == entry.customer_id && *kind == entry.kind)
        {
            Some((_, _, delta)) => *delta += entry.points,
            None => moves.push((&entry.customer_id, entry.kind, entry.points)),
        }
    }
    moves
}

/// The `ledger_write` record holding `members`, which share `key`'s
/// Customer, kind and cart.
fn write_document(
    company: &str,
    prefix: &str,
    key: &LedgerEntry,
    members: &[&LedgerEntry],
) -> Value {
    let first_id = entry_id(prefix, 0);
    let credits_expire = members
        .iter()
        .filter(|entry| entry.points > 0)
        .filter_map(|entry| entry.expires_at);
    let (expires_from, expires_until) = credits_expire.fold((None, None), |(from, until), at| {
        (
            Some(from.map_or(at, |from: Timestamp| from.min(at))),
            Some(until.map_or(at, |until: Timestamp| until.max(at))),
        )
    });
    let mut entries: Vec<Value> = members
        .iter()
        .map(|entry| {
            let mut value = json!(entry);
            if let Some(object) = value.as_object_mut() {
                for field in SHARED_FIELDS {
                    object.remove(field);
                }
                object.retain(|_, field| !field.is_null());
            }
            value
        })
        .collect();
    let mut shared = serde_json::Map::new();
    for field in USUALLY_SHARED_FIELDS {
        let first = entries.first().and_then(|entry| entry.get(field)).cloned();
        if let Some(value) = first
            && entries.iter().all(|entry| entry.get(field) == Some(&value))
        {
            for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
                entry.remove(field);
            }
            shared.insert(field.to_string(), value);
        }
    }
    let mut document = json!({
        // `id` names the record INSERT creates; `entry_id` is what is read.
        "id": first_id,
        "entry_id": first_id,
        "company": company,
        "customer_id": key.customer_id,
        "kind": key.kind,
        "entries": entries,
    });
    let optional = [
        ("cart_id", key.cart_id.clone()),
        ("expires_from", expires_from.map(|at| at.to_string())),
        ("expires_until", expires_until.map(|at| at.to_string())),
    ];
    for (field, value) in optional {
        if let Some(value) = value {
            document[field] = Value::String(value);
        }
    }
    if let Some(object) = document.as_object_mut() {
        object.extend(shared);
    }
    document
}

impl Store {
    /// What appending `ledger`, entries of `company`, writes
    /// ([`ledger_documents`]), with the entries' `points.changed` events
    /// for the endpoints subscribed.
    pub(crate) fn ledger_write(&self, company: &str, ledger: &[LedgerEntry]) -> LedgerWrite {
        let mut written = ledger_documents(&self.memory.ledger_clock, company, ledger);
        written.webhooks = self
            .memory
            .webhooks
            .points_changes(company, ledger, &written.entry_ids);
        written
    }

    /// A Customer's balance of `kind`.
    pub async fn balance(
        &self,
        company: &str,
        customer_id: &str,
        kind: PointsKind,
    ) -> ApiResult<i64> {
        let balance: Option<i64> = first(
            self.db
                .query("RETURN type::record('customer_state', [$company, $customer]).*[$kind]")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("kind", kind.name())),
        )
        .await?;
        Ok(balance.unwrap_or(0))
    }

    /// A Customer's points balance.
    pub async fn points_balance(&self, company: &str, customer_id: &str) -> ApiResult<i64> {
        self.balance(company, customer_id, PointsKind::Points).await
    }

    /// Appends `ledger` in one transaction, refusing with
    /// `customer_not_enough_score` (and writing nothing) when a debit would
    /// take a balance below zero, with `concurrent_modification` when a
    /// balance of `expected` (Customer, kind, balance) is no longer what it
    /// says, and, when the entries redeem for the cart `for_cart`, with
    /// `cart_already_cancelled` when it was cancelled. Gives each balance
    /// the entries moved as the same transaction left it.
    pub async fn append_ledger(
        &self,
        company: &str,
        ledger: &[LedgerEntry],
        for_cart: Option<&str>,
        expected: &[(&str, PointsKind, i64)],
    ) -> ApiResult<Vec<BalanceAfter>> {
        let query = format!(
            "BEGIN TRANSACTION;
             IF $cart_id {{
                 LET $cart = type::record('cart', [$company, $cart_id]);
                 IF ($cart.cancelled_by) {{
                     THROW '{REFUSED}{cancelled}|cart ' + $cart_id + ' was cancelled';
                 }};
                 UPDATE $cart SET redeemed_at = time::now() RETURN NONE;
             }};
             FOR $expect IN $expected {{
                 LET $have = type::record('customer_state', [$company, $expect.customer_id]).*[$expect.kind] ?? 0;
                 IF $have != $expect.balance {{
                     THROW '{REFUSED}{moved}|the balance of Customer ' + $expect.customer_id + ' moved meanwhile';
                 }};
             }};
             {GUARD_DEBITS}
             {APPEND_LEDGER}
             {WRITE_ANSWER}
             {BALANCES_AFTER}
             COMMIT TRANSACTION;",
            moved = ErrorCode::ConcurrentModification.code(),
            cancelled = ErrorCode::CartAlreadyCancelled.code(),
        );
        let expected: Vec<Value> = expected
            .iter()
            .map(|(customer_id, kind, balance)| {
                serde_json::json!({"customer_id": customer_id, "kind": kind.name(), "balance": balance})
            })
            .collect();
        self.append_moving_on(company, ledger, &query, |query| {
            query
                .bind(("expected", expected.clone()))
                .bind(("cart_id", for_cart.map(str::to_string)))
        })
        .await
    }

    /// Appends `entry` if the balance it moves is still `seen`; otherwise
    /// refuses with `concurrent_modification` and writes nothing.
    pub async fn append_if_balance(
        &self,
        company: &str,
        entry: &LedgerEntry,
        seen: i64,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $entry = $ledger[0];
             LET $have = type::record('customer_state', [$company, $entry.customer_id]).*[$entry.kind] ?? 0;
             IF $have != $seen {{
                 THROW '{REFUSED}{changed}|the balance changed meanwhile';
             }};
             {GUARD_DEBITS}
             {APPEND_LEDGER}
             {BALANCES_AFTER}
             COMMIT TRANSACTION;",
            changed = ErrorCode::ConcurrentModification.code()
        );
        let ledger = std::slice::from_ref(entry);
        self.append_moving_on(company, ledger, &query, |query| query.bind(("seen", seen)))
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests;
