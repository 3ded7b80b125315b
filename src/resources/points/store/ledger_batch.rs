//! The ledger's part of the group commit
//! ([`crate::storage::event_transaction`]): the records of every event of a
//! batch, one statement for the whole batch. (The balances they move are
//! fields of their Customers' states, moved with the rest of each state:
//! [`crate::resources::customers::state::MOVE_CUSTOMER_STATES`].)

use crate::storage::event_transaction::BatchPart;
use crate::storage::event_transaction::insert_rows;

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// ledger records of every event of the batch (`$ledger_rows`, each
/// event's [`crate::resources::points::store::ledger::LedgerWrite::records`]).
pub(crate) const APPEND_LEDGER_ROWS: BatchPart = insert_rows!("ledger_rows" into "ledger_write");
