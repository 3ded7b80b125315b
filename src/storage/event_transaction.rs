//! What the transaction recording a batch of events writes for each: its
//! cart or Custom Event, the Voucher uses and discounts of a cart, the
//! Vouchers its campaigns issue, its Challenge progress, its ledger entries
//! and its Instant Win draws. Each resource writes its own part; this module
//! puts them in order, once, for the group commit
//! ([`crate::storage::group_commit`]) to run over a batch.
//!
//! SurrealDB plans every statement each time it runs it, and a statement in
//! a `FOR` loop once per turn: planning, not writing, was most of a cart's
//! cost when each event ran its own two dozen statements. So the parts every
//! event has (the cart, its totals, discounts, ledger and balances, the
//! draws' audit and deliveries) are a few statements over rows of the whole
//! batch (`INSERT` of many records, balances and totals moved by
//! `ON DUPLICATE KEY UPDATE`), and the text holds only the parts some event
//! of the batch needs. What is rare (Voucher uses, issued Vouchers,
//! Challenges, limits, an Idempotency-Key's answer) still runs event by
//! event, in a loop over the events that have it.

use std::sync::Mutex;

use serde_json::{Map, Value, json};

use crate::common::amount::Amount;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::pipeline::contribution::EventPart;
use crate::pipeline::kinds::CONTRIBUTIONS;
use crate::resources::carts::store::CART_IDS;
use crate::resources::carts::store::STORE_CARTS;
use crate::resources::carts::store::STORE_PURCHASE_DAYS;
use crate::resources::carts::store::cart_rows;
use crate::resources::customers::recorded::RecordedChange;
use crate::resources::customers::recorded::RecordedPurchase;
use crate::resources::customers::state::MOVE_CUSTOMER_STATES;
use crate::resources::customers::state::state_moves;
use crate::resources::events::store::STORE_EVENTS;
use crate::resources::events::store::event_row;
use crate::resources::points::store::ledger_batch::APPEND_LEDGER_ROWS;
use crate::resources::webhooks::emit::LEDGER_WEBHOOKS;
use crate::resources::webhooks::emit::STORE_LEDGER_WEBHOOKS;
use crate::resources::webhooks::emit::WEBHOOK_DELIVERIES;
use crate::resources::webhooks::outbox::STORE_WEBHOOK_DELIVERIES;
use crate::storage::record_text::record_value;

/// One event to record, as the pipeline hands it to the group commit:
/// `company`, `customer`, `ledger` and `balances` (see
/// [`crate::resources::points::store::ledger::ledger_documents`]), one of
/// `cart` (the stored cart, with its `total`, `date` and the `day` it
/// counts on in its Customer's history) or `event` (the stored Custom
/// Event), the other null, `now`, each kind's documents where it has them
/// (under their fields: the draws, a cart's Voucher uses and discounts, a
/// kind's [`crate::pipeline::contribution::EventPart`]; absent or null
/// otherwise), and the answer of its request when it carries an
/// Idempotency-Key (`answer`, [`crate::http::idempotency::answer::written_answer`]),
/// written in the same transaction.
pub(crate) type EventWrite = Value;

/// A part of the batch's transaction: statements over the rows bound to
/// `binding` (which names the part: no two parts share one), left out of
/// the text when the batch has none.
#[derive(Debug)]
pub(crate) struct BatchPart {
    /// The variable the statements read the rows from.
    pub binding: &'static str,
    /// The statements, in SurrealQL.
    pub statements: &'static str,
}

/// A [`BatchPart`] inserting its rows (bound to `binding`) into `table`:
/// one `INSERT` for the whole batch.
macro_rules! insert_rows {
    ($binding:literal into $table:literal) => {
        $crate::storage::event_transaction::BatchPart {
            binding: $binding,
            statements: concat!(
                "\n    INSERT INTO ",
                $table,
                " $",
                $binding,
                " RETURN NONE;"
            ),
        }
    };
}

pub(crate) use insert_rows;

impl BatchPart {
    /// A part whose rows only other parts' statements read (no statements
    /// of its own).
    pub(crate) const fn read_by_others(binding: &'static str) -> Self {
        BatchPart {
            binding,
            statements: "",
        }
    }
}

/// `document` (an object; `None` for anything else, such as the null of
/// an event without it) as a row of `company` for an `INSERT`, its record
/// keyed by `[company, document[key]]`.
pub(crate) fn keyed_row(company: &str, document: &Value, key: &str) -> Option<Value> {
    let Value::Object(fields) = document else {
        return None;
    };
    let mut row = fields.clone();
    let id = json!([company, fields.get(key).unwrap_or(&Value::Null)]);
    row.insert("id".into(), id);
    Some(Value::Object(row))
}

/// The events, one by one, whose rare parts run in a loop of their own.
const RARE: &str = "rare";

/// The parts an event runs on its own ([`RARE`]), each skipped at run time
/// where the event does not need it: the parts it carries (a cart's Voucher
/// uses, what its discounts take from their limits:
/// [`crate::pipeline::contribution::Contribution::carried_parts`]), each
/// kind's part
/// ([`crate::pipeline::contribution::EventPart`], in the order of
/// [`CONTRIBUTIONS`]), and last the answer of its request.
fn rare_statements() -> String {
    let run = |parts: &mut dyn Iterator<Item = &'static EventPart>| -> String {
        parts
            .map(|part| {
                format!(
                    "IF $write.{field} {{
                         LET $part = $write.{field};
                         {statements}
                     }};\n",
                    field = part.field,
                    statements = (part.statements)(),
                )
            })
            .collect()
    };
    let carried = run(&mut carried_parts());
    let kinds = run(&mut kind_parts());
    format!(
        "FOR $write IN ${RARE} {{
             LET $company = $write.company;
             LET $customer = $write.customer;
             LET $now = $write.now;
             {carried}
             {kinds}
             LET $answer = $write.answer;
             {WRITE_ANSWER}
         }};"
    )
}

/// The parts of the kinds that have one.
fn kind_parts() -> impl Iterator<Item = &'static EventPart> {
    CONTRIBUTIONS.iter().filter_map(|kind| kind.event_part())
}

/// The parts whose documents the events carry themselves.
fn carried_parts() -> impl Iterator<Item = &'static EventPart> {
    CONTRIBUTIONS.iter().flat_map(|kind| kind.carried_parts())
}

/// Whether `write` has a part that runs event by event.
fn is_rare(write: &EventWrite) -> bool {
    let present = |value: &Value| match value {
        Value::Null => false,
        Value::Array(items) => !items.is_empty(),
        _ => true,
    };
    carried_parts()
        .chain(kind_parts())
        .any(|part| present(&write[part.field]))
        || present(&write["answer"])
}

/// What `writes` move of the balance a `points.changed` event `event` of
/// `company` reports (its Customer's state and its kind).
fn balance_moved(writes: &[EventWrite], company: &Value, event: &Value) -> i64 {
    writes
        .iter()
        .filter(|write| write["company"] == *company)
        .flat_map(|write| write["balances"].as_array().map_or(&[][..], Vec::as_slice))
        .filter(|balance| {
            balance["customer_id"] == event["state"][1] && balance["kind"] == event["kind"]
        })
        .filter_map(|balance| balance["delta"].as_i64())
        .sum()
}

/// The fields of an [`EventWrite`] whose change to its Customer's kept
/// state [`recorded_change`] knows (or that change none of it), besides
/// those the kinds know ([`crate::pipeline::contribution::Contribution::known_fields`]):
/// any other field present (Voucher uses, issued Vouchers, Challenges,
/// points budgets, or a part added later) makes the Customer read again.
const KNOWN_FIELDS: [&str; 13] = [
    "company",
    "customer",
    "now",
    "cart",
    "event",
    "total",
    "date",
    "ledger",
    "balances",
    "answer",
    WEBHOOK_DELIVERIES,
    LEDGER_WEBHOOKS,
    WRITTEN_FOR,
];

/// The name of the field of an [`EventWrite`] naming its Customer, whatever
/// the event (set by the group commit).
pub(crate) const WRITTEN_FOR: &str = "written_for";

/// What `write`, an event of `customer` that committed, changed in the
/// Customer's state this process keeps ([`RecordedChange`]); `None` when it
/// changed more than that (a field not in [`KNOWN_FIELDS`] nor known to a
/// kind, what a kind says its Customer's kept state does not hold, another
/// Customer's balance), and the Customer is read again.
pub(crate) fn recorded_change(write: &EventWrite, customer: &str) -> Option<RecordedChange> {
    let present = |value: &Value| match value {
        Value::Null => false,
        Value::Array(items) => !items.is_empty(),
        _ => true,
    };
    let known = |field: &str| {
        KNOWN_FIELDS.contains(&field)
            || CONTRIBUTIONS
                .iter()
                .any(|kind| kind.known_fields().contains(&field))
    };
    let unknown = write
        .as_object()?
        .iter()
        .any(|(field, value)| !known(field) && present(value));
    if unknown {
        return None;
    }
    let mut change = RecordedChange::default();
    for kind in CONTRIBUTIONS {
        if !kind.recorded_change(write, &mut change) {
            return None;
        }
    }
    let mut points = 0;
    for balance in write["balances"].as_array().map_or(&[][..], Vec::as_slice) {
        if balance["customer_id"].as_str() != Some(customer) {
            return None;
        }
        if balance["kind"] == "points" {
            points += balance["delta"].as_i64()?;
        }
    }
    let purchase = match &write["cart"] {
        Value::Object(_) => Some(RecordedPurchase {
            at: write["date"]
                .as_str()?
                .parse::<Timestamp>()
                .ok()?
                .as_datetime(),
            day: write["cart"]["day"].as_str()?.parse().ok()?,
            total: Amount::from_stored(&write["total"]).ok()?.0,
        }),
        _ => None,
    };
    change.purchase = purchase;
    change.points = points;
    Some(change)
}

/// The transaction recording a batch of events: its text and what it binds.
#[derive(Debug, Default)]
pub(crate) struct BatchTransaction {
    parts: Vec<(&'static BatchPart, Vec<Value>)>,
    rare: Vec<Value>,
    rare_text: Option<String>,
}

impl BatchTransaction {
    /// The transaction recording `writes`. It is all or nothing, and no
    /// part reads what another writes but to check a counter: the checks
    /// come before the Customers' states move ([`MOVE_CUSTOMER_STATES`]),
    /// the last part.
    pub(crate) fn of(writes: &[EventWrite]) -> BatchTransaction {
        let mut batch = BatchTransaction::default();
        let mut states = Vec::new();
        let mut points_changes = Vec::new();
        for (index, write) in writes.iter().enumerate() {
            let company = write["company"].as_str().unwrap_or_default();
            if is_rare(write) {
                batch.rare.push(write.clone());
            }
            if let Some((cart, day)) = cart_rows(company, write) {
                batch.push(&CART_IDS, record_value("cart", &cart["id"]));
                batch.push(&STORE_CARTS, cart);
                batch.push(&STORE_PURCHASE_DAYS, day);
            }
            if let Some(event) = event_row(company, &write["event"]) {
                batch.push(&STORE_EVENTS, event);
            }
            if let Some(Value::Array(ledger)) = write.get("ledger") {
                for record in ledger {
                    batch.push(&APPEND_LEDGER_ROWS, record.clone());
                }
            }
            for kind in CONTRIBUTIONS {
                kind.batch_rows(company, write, &mut |part, row| batch.push(part, row));
            }
            if let Some(Value::Array(rows)) = write.get(WEBHOOK_DELIVERIES) {
                for row in rows {
                    batch.push(&STORE_WEBHOOK_DELIVERIES, row.clone());
                }
            }
            if let Some(Value::Array(changes)) = write.get(LEDGER_WEBHOOKS) {
                points_changes.extend(changes.iter().map(|change| (index, change.clone())));
            }
            states.extend(state_moves(company, write));
        }
        // Last, after every check of a counter they move.
        for state in states {
            batch.push(&MOVE_CUSTOMER_STATES, state);
        }
        // After the balances they report have moved, less what the batch's
        // later events moved of them.
        for (index, mut change) in points_changes {
            let company = change["company"].clone();
            if let Some(events) = change["events"].as_array_mut() {
                for event in events {
                    let later = balance_moved(&writes[index + 1..], &company, event);
                    event["later"] = json!(event["later"].as_i64().unwrap_or(0) + later);
                }
            }
            batch.push(&STORE_LEDGER_WEBHOOKS, change);
        }
        if !batch.rare.is_empty() {
            batch.rare_text = Some(rare_statements());
        }
        batch
    }

    /// Adds `row` to `part`.
    fn push(&mut self, part: &'static BatchPart, row: Value) {
        match self
            .parts
            .iter_mut()
            .find(|(known, _)| known.binding == part.binding)
        {
            Some((_, rows)) => rows.push(row),
            None => self.parts.push((part, vec![row])),
        }
    }

    /// Why the batch cannot be recorded as one transaction, when it cannot:
    /// it is then refused whole and recorded event by event, where each
    /// event gets the answer it would have had alone.
    pub(crate) fn refused_whole(&self) -> Option<ApiError> {
        if self.repeats_a_cart() {
            return Some(ApiError::new(
                ErrorCode::CartAlreadyExists,
                "a cart code is twice in one batch",
            ));
        }
        CONTRIBUTIONS
            .iter()
            .filter_map(|kind| kind.once_per_batch())
            .find(|once| self.repeats_an_id(once.part))
            .map(|once| ApiError::new(once.refusal, once.why))
    }

    /// Whether two carts of the batch have the same code: one `INSERT`
    /// cannot refuse the second the way a cart recorded before is refused.
    fn repeats_a_cart(&self) -> bool {
        self.repeats_an_id(&STORE_CARTS)
    }

    /// Whether two rows of `part` have the same record id (a row's `id`, or
    /// the row itself where the part binds ids).
    fn repeats_an_id(&self, part: &BatchPart) -> bool {
        let Some((_, rows)) = self
            .parts
            .iter()
            .find(|(known, _)| known.binding == part.binding)
        else {
            return false;
        };
        let mut ids: Vec<String> = rows
            .iter()
            .map(|row| row.get("id").unwrap_or(row).to_string())
            .collect();
        ids.sort_unstable();
        ids.windows(2).any(|pair| pair[0] == pair[1])
    }

    /// The transaction's SurrealQL: the parts with rows, in order.
    pub(crate) fn text(&self) -> String {
        let mut text = String::from("BEGIN TRANSACTION;\n");
        if let Some(rare) = &self.rare_text {
            text.push_str(rare);
            text.push('\n');
        }
        for (part, _) in &self.parts {
            text.push_str(part.statements);
            text.push('\n');
        }
        text.push_str("COMMIT TRANSACTION;");
        text
    }

    /// The text and the variables it reads (an object of them by name),
    /// the rows moved rather than copied.
    pub(crate) fn into_query(self) -> (String, Value) {
        let text = self.text();
        let mut bindings: Map<String, Value> = self
            .parts
            .into_iter()
            .map(|(part, rows)| (part.binding.to_string(), Value::Array(rows)))
            .collect();
        if !self.rare.is_empty() {
            bindings.insert(RARE.to_string(), Value::Array(self.rare));
        }
        (text, Value::Object(bindings))
    }
}

/// The variables of a batch's transaction for each attempt at it: the first
/// takes them as they were built; a retry (after a conflict, rare) builds
/// them again from the batch's writes, which give the same rows. Copying a
/// batch's rows for every attempt cost 2 % of a cart's CPU.
pub(crate) struct BatchBindings<'w> {
    unsent: Mutex<Option<Value>>,
    writes: &'w [EventWrite],
}

impl<'w> BatchBindings<'w> {
    /// `bindings`, built from `writes` by [`BatchTransaction::into_query`].
    pub(crate) fn new(bindings: Value, writes: &'w [EventWrite]) -> BatchBindings<'w> {
        BatchBindings {
            unsent: Mutex::new(Some(bindings)),
            writes,
        }
    }

    /// The variables of the next attempt.
    pub(crate) fn for_attempt(&self) -> Value {
        let unsent = self.unsent.lock().ok().and_then(|mut unsent| unsent.take());
        unsent.unwrap_or_else(|| BatchTransaction::of(self.writes).into_query().1)
    }
}

#[cfg(test)]
mod tests;
