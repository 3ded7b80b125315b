//! What this process keeps in memory of the store's records between
//! requests, each area's in a handle of its own, so a read or a write
//! skips the store where it safely can: the Customers read lately
//! (`customers`), the units given of limited prizes (`stock_view`), and
//! the order of the ledger's entry ids (`ledger_clock`).

use std::sync::Arc;

use crate::resources::customers::cache::CustomerCache;
use crate::resources::instant_wins::store::stock_view::StockView;
use crate::resources::points::store::ledger::LedgerClock;

/// The store's records as this process keeps them; clones share them.
#[derive(Clone, Debug)]
pub struct Memory {
    /// The Customers this process read lately (embedded stores only).
    pub(crate) customers: Arc<CustomerCache>,
    /// The units given of limited prizes, as far as this process knows.
    pub(crate) stock_view: Arc<StockView>,
    /// Issues the ledger's entry ids in the order this process writes them.
    pub(crate) ledger_clock: Arc<LedgerClock>,
}
