//! The ledger's part of the group commit
//! ([`crate::storage::event_transaction`]): the records and balance moves of
//! every event of a batch, a statement each for the whole batch.

use serde_json::{Value, json};

use crate::storage::event_transaction::BatchPart;

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// ledger records of every event of the batch (`$ledger_rows`, each
/// event's [`crate::resources::points::store::ledger::LedgerWrite::records`]).
pub(crate) const APPEND_LEDGER_ROWS: BatchPart = BatchPart {
    binding: "ledger_rows",
    statements: "
    INSERT INTO ledger_write $ledger_rows RETURN NONE;",
};

/// Part of the group commit: the move of every balance the batch's entries
/// touch (`$balance_rows`, made by [`balance_rows`]), one statement for the
/// batch; rows of one balance add up in turn.
pub(crate) const MOVE_BALANCE_ROWS: BatchPart = BatchPart {
    binding: "balance_rows",
    statements: "
    INSERT INTO points_balance $balance_rows ON DUPLICATE KEY UPDATE
        balance = (balance ?? 0) + $input.balance
        RETURN NONE;",
};

/// The rows [`MOVE_BALANCE_ROWS`] writes for `balances` (an event's
/// [`crate::resources::points::store::ledger::LedgerWrite::balances`]) of `company`: each balance's record as it is
/// when new, whose `balance` is the move.
pub(crate) fn balance_rows(company: &str, balances: &Value) -> Vec<Value> {
    let Value::Array(balances) = balances else {
        return Vec::new();
    };
    balances
        .iter()
        .map(|balance| {
            json!({
                "id": [company, balance["customer_id"], balance["kind"]],
                "company": company,
                "customer_id": balance["customer_id"],
                "kind": balance["kind"],
                "balance": balance["delta"],
            })
        })
        .collect()
}
