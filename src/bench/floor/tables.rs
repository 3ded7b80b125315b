//! The tables each [`FloorLayout`] writes, the statement writing each
//! table's rows of a batch, the service's secondary indexes on them, and the
//! text and bindings of one transaction of the floor
//! ([`crate::bench::floor`]).

use serde_json::{Map, Value};

use crate::bench::floor::records::CartRecords;
use crate::bench::floor::records::FloorLayout;

/// The statement moving a unit of a prize's stock shard, on either layout.
const MOVE_STOCK_SHARDS: (&str, &str) = (
    "iw_given",
    "INSERT INTO iw_given $iw_given ON DUPLICATE KEY UPDATE given += 1 RETURN NONE;",
);

/// The statement moving a month's day buckets of a Customer's purchases,
/// on either layout.
const PURCHASE_MONTHS: (&str, &str) = (
    "purchase_month",
    "INSERT INTO purchase_month $purchase_month ON DUPLICATE KEY UPDATE
         days = $input.days RETURN NONE;",
);

/// The tables a cart writes today, in the order the floor's transaction
/// writes them, each with the statement writing a batch's rows (bound as
/// the table's name). Tables a cart adds to are `INSERT`ed; those it moves
/// (balances, totals, day buckets, participation counts, stock shards) are
/// upserted by `INSERT ... ON DUPLICATE KEY UPDATE`, as the group commit
/// moves them.
pub const TODAY_TABLES: [(&str, &str); 7] = [
    ("cart", "INSERT INTO cart $cart RETURN NONE;"),
    PURCHASE_MONTHS,
    (
        "ledger_write",
        "INSERT INTO ledger_write $ledger_write RETURN NONE;",
    ),
    (
        "customer_state",
        "INSERT INTO customer_state $customer_state ON DUPLICATE KEY UPDATE
             lifetime_spend += $input.lifetime_spend, cart_count += 1,
             last_purchase = $input.last_purchase, points += $input.points,
             wallet += $input.wallet, rules = $input.rules RETURN NONE;",
    ),
    ("iw_draws", "INSERT INTO iw_draws $iw_draws RETURN NONE;"),
    MOVE_STOCK_SHARDS,
    (
        "discount_transaction",
        "INSERT INTO discount_transaction $discount_transaction RETURN NONE;",
    ),
];

/// The tables a cart writes on the one-document layout: its event (refused
/// if its id exists), its code's key (refused if the code was recorded),
/// its Customer's state written whole as the service holds it after the
/// event (by one upsert moving its version), the month's day buckets of
/// its purchases, and the stock shards of prizes won, as today.
pub const ONE_DOCUMENT_TABLES: [(&str, &str); 5] = [
    ("event", "INSERT INTO event $event RETURN NONE;"),
    (
        "event_code",
        "INSERT INTO event_code $event_code RETURN NONE;",
    ),
    (
        "customer_state",
        "INSERT INTO customer_state $customer_state ON DUPLICATE KEY UPDATE
             version += 1, lifetime_spend = $input.lifetime_spend,
             cart_count = $input.cart_count, last_purchase = $input.last_purchase,
             balances = $input.balances, draws = $input.draws RETURN NONE;",
    ),
    PURCHASE_MONTHS,
    MOVE_STOCK_SHARDS,
];

/// The tables of `layout`, each with the statement writing its rows.
pub fn floor_tables(layout: FloorLayout) -> &'static [(&'static str, &'static str)] {
    match layout {
        FloorLayout::Today => &TODAY_TABLES,
        FloorLayout::OneDocument => &ONE_DOCUMENT_TABLES,
    }
}

/// The service's secondary indexes on the tables of `layout`, as its schema
/// defines them: (table, definition).
pub fn floor_indexes(layout: FloorLayout) -> Vec<(&'static str, &'static str)> {
    let tables = floor_tables(layout);
    crate::storage::schema::schema_parts()
        .into_iter()
        .flat_map(|(_, text)| text.lines())
        .map(str::trim)
        .filter(|line| line.starts_with("DEFINE INDEX"))
        .filter_map(|line| {
            let table = line.split_whitespace().skip_while(|w| *w != "ON").nth(1)?;
            let (table, _) = tables.iter().find(|(name, _)| *name == table)?;
            Some((*table, line))
        })
        .collect()
}

/// One transaction's rows of `layout`, by table, in its tables' order.
pub(super) fn batch_bindings(
    layout: FloorLayout,
    carts: impl IntoIterator<Item = CartRecords>,
) -> Map<String, Value> {
    let names = floor_tables(layout);
    let mut tables: Vec<Vec<Value>> = vec![Vec::new(); names.len()];
    for cart in carts {
        for (table, row) in cart.into_rows() {
            if let Some(i) = names.iter().position(|(name, _)| *name == table) {
                tables[i].push(row);
            }
        }
    }
    names
        .iter()
        .zip(tables)
        .map(|((name, _), rows)| (name.to_string(), Value::Array(rows)))
        .collect()
}

/// The floor's transaction on `layout`: every table's statement, always the
/// same text.
pub(super) fn batch_text(layout: FloorLayout) -> String {
    let mut text = String::from("BEGIN TRANSACTION;\n");
    for (_, statement) in floor_tables(layout) {
        text.push_str(statement);
        text.push('\n');
    }
    text.push_str("COMMIT TRANSACTION;");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_writes_the_service_tables_with_their_own_indexes() {
        let indexes = floor_indexes(FloorLayout::Today);
        let tables: Vec<&str> = indexes.iter().map(|(table, _)| *table).collect();
        for table in ["cart", "ledger_write", "iw_draws", "discount_transaction"] {
            assert!(tables.contains(&table), "{table} in {indexes:?}");
        }
        assert!(
            indexes
                .iter()
                .all(|(table, line)| line.contains(&format!(" ON {table} "))),
            "{indexes:?}"
        );
        // The text of a transaction does not depend on its rows.
        assert_eq!(
            batch_text(FloorLayout::Today),
            batch_text(FloorLayout::Today)
        );
        assert!(batch_text(FloorLayout::Today).starts_with("BEGIN TRANSACTION;"));
    }

    #[test]
    fn the_one_document_layout_has_no_index_but_the_stock_shards_own() {
        let indexes = floor_indexes(FloorLayout::OneDocument);
        assert!(
            indexes.iter().all(|(table, _)| *table == "iw_given"),
            "{indexes:?}"
        );
        let text = batch_text(FloorLayout::OneDocument);
        for table in [
            "event",
            "event_code",
            "customer_state",
            "purchase_month",
            "iw_given",
        ] {
            assert!(
                text.contains(&format!("INSERT INTO {table} ${table}")),
                "{text}"
            );
        }
    }
}
