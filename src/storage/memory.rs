//! What this process keeps in memory of the store's records between
//! requests, each area's in a handle of its own, so a read or a write
//! skips the store where it safely can: the Customers read lately
//! (`customers`), the order of the ledger's entry ids (`ledger_clock`),
//! what each campaign kind keeps (`kinds`: e.g. the units given of limited
//! Instant Win prizes) and the webhook endpoints' subscriptions
//! (`webhooks`).

use std::any::Any;
use std::sync::Arc;

use crate::common::stamps::StampClock;
use crate::pipeline::kinds::CONTRIBUTIONS;
use crate::resources::customers::cache::CustomerCache;
use crate::resources::webhooks::emit::Subscriptions;

/// The store's records as this process keeps them; clones share them.
#[derive(Clone, Debug)]
pub struct Memory {
    /// The Customers this process read lately (embedded stores only).
    pub(crate) customers: Arc<CustomerCache>,
    /// Issues the ledger's entry ids in the order this process writes them.
    pub(crate) ledger_clock: Arc<StampClock>,
    /// What the campaign kinds keep.
    pub(crate) kinds: KindsMemory,
    /// The enabled webhook endpoints of each Company and what they
    /// subscribe to: what a write reads to know whom its events go to.
    pub(crate) webhooks: Arc<Subscriptions>,
}

/// What the campaign kinds keep in memory, each its own value
/// ([`crate::pipeline::contribution::Contribution::kept_in_memory`]),
/// found by its type.
#[derive(Clone)]
pub(crate) struct KindsMemory(Arc<[Arc<dyn Any + Send + Sync>]>);

impl KindsMemory {
    /// A fresh value of every kind that keeps one.
    pub(crate) fn new() -> KindsMemory {
        KindsMemory(
            CONTRIBUTIONS
                .iter()
                .filter_map(|kind| kind.kept_in_memory())
                .collect(),
        )
    }

    /// The value of type `T` a kind keeps, when one does.
    pub(crate) fn get<T: Any>(&self) -> Option<&T> {
        self.0.iter().find_map(|kept| kept.downcast_ref::<T>())
    }
}

impl std::fmt::Debug for KindsMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KindsMemory({} kept)", self.0.len())
    }
}
