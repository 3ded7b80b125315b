//! A Customer's state: its purchase totals, its balances and its Instant
//! Win participation counts, in one record per Customer (`customer_state`,
//! keyed `[company, customer]`, see `schema.surql`) that an event moves
//! with one upsert.
//!
//! They were three tables (`customer_stats`, `points_balance` with a record
//! per kind, `iw_counts`), each moved by a statement of its own. SurrealDB
//! costs about 90 µs per statement however few its rows, so a lone cart
//! paid three where it now pays one, and a Customer's first read takes its
//! totals and balance in one expression (BENCHMARKS.md, "The state
//! document").
//!
//! The group commit moves the states of a batch's Customers
//! ([`MOVE_CUSTOMER_STATES`], rows made by [`state_moves`]); a write of
//! its own (a redemption, an expiry, a merge, a cancellation) moves the
//! field it changes with `UPSERT`, a balance named by its kind
//! (`.*[$kind]`).

use serde_json::{Map, Value, json};

use crate::storage::event_transaction::BatchPart;

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// move of the state of every Customer the batch's events change
/// (`$state_moves`, made by [`state_moves`]), one statement for the batch.
/// Rows of one Customer add up in turn; a new record is the row itself.
/// It runs after every check of the batch: the check of the participation
/// counts reads the counts this writes
/// ([`crate::resources::instant_wins::store::draw_batch::COUNT_PARTICIPATIONS`]).
///
/// A cart's total comes as its exact decimal text, and the stored total is
/// that text until a second cart adds to it: both are cast.
pub(crate) const MOVE_CUSTOMER_STATES: BatchPart = BatchPart {
    binding: "state_moves",
    statements: "
    INSERT INTO customer_state $state_moves ON DUPLICATE KEY UPDATE
        lifetime_spend = <decimal> (lifetime_spend ?? 0) + <decimal> $input.lifetime_spend,
        cart_count = (cart_count ?? 0) + $input.cart_count,
        last_purchase = IF last_purchase == NONE OR last_purchase < $input.last_purchase { $input.last_purchase } ELSE { last_purchase },
        points = (points ?? 0) + $input.points,
        wallet = (wallet ?? 0) + $input.wallet,
        rules = $input.rules ?? rules
        RETURN NONE;",
};

/// The points kinds a state holds a balance of, each a field named by the
/// kind ([`crate::resources::points::model::PointsKind`]).
const BALANCE_KINDS: [&str; 2] = ["points", "wallet"];

/// The rows [`MOVE_CUSTOMER_STATES`] writes for `write` (an
/// [`crate::storage::event_transaction::EventWrite`]) of `company`: one per
/// Customer whose state it changes, holding what it adds (the cart's total,
/// one cart and its date; each balance's move) and, for the Customer that
/// drew, the participation counts its draws leave. An event that changes
/// no state (a Custom Event earning nothing) has none.
pub(crate) fn state_moves(company: &str, write: &Value) -> Vec<Value> {
    let mut moves: Vec<Map<String, Value>> = Vec::new();
    if write["cart"].is_object() {
        let row = move_of(&mut moves, company, &write["customer"]);
        row.insert("lifetime_spend".into(), write["total"].clone());
        row.insert("cart_count".into(), json!(1));
        row.insert("last_purchase".into(), write["date"].clone());
    }
    for balance in write["balances"].as_array().map_or(&[][..], Vec::as_slice) {
        let Some(kind) = BALANCE_KINDS.iter().find(|kind| balance["kind"] == **kind) else {
            continue;
        };
        let row = move_of(&mut moves, company, &balance["customer_id"]);
        let moved = row[*kind].as_i64().unwrap_or(0) + balance["delta"].as_i64().unwrap_or(0);
        row.insert((*kind).into(), json!(moved));
    }
    let draw = &write["draw_write"];
    if draw.is_object() {
        let row = move_of(&mut moves, company, &draw["customer_id"]);
        row.insert("rules".into(), draw["next"].clone());
    }
    moves.into_iter().map(Value::Object).collect()
}

/// The row of `moves` for `customer` of `company`, added (moving nothing
/// yet) when it is not there.
fn move_of<'m>(
    moves: &'m mut Vec<Map<String, Value>>,
    company: &str,
    customer: &Value,
) -> &'m mut Map<String, Value> {
    let at = match moves.iter().position(|row| &row["customer_id"] == customer) {
        Some(at) => at,
        None => {
            let mut row = Map::new();
            row.insert("id".into(), json!([company, customer]));
            row.insert("company".into(), json!(company));
            row.insert("customer_id".into(), customer.clone());
            row.insert("lifetime_spend".into(), json!("0"));
            row.insert("cart_count".into(), json!(0));
            for kind in BALANCE_KINDS {
                row.insert(kind.into(), json!(0));
            }
            moves.push(row);
            moves.len() - 1
        }
    };
    &mut moves[at]
}

#[cfg(test)]
mod tests;
