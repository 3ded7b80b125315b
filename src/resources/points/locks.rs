//! In-process locks on balances. Debits of one balance are serialised in this
//! process before they reach the store, so simultaneous redemptions and
//! transfers of one Customer queue briefly instead of colliding in the store
//! and retrying. The store's transaction guards still decide (they alone hold
//! when several processes share a remote store); the locks only spare work.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use tokio::sync::{Mutex, MutexGuard};

use crate::resources::points::model::PointsKind;

/// Number of lock stripes: balances hash onto them, so memory stays fixed
/// however many Customers there are.
const STRIPES: usize = 256;

/// Striped locks over (Company, Customer, kind).
#[derive(Debug)]
pub struct BalanceLocks {
    stripes: Vec<Mutex<()>>,
}

impl Default for BalanceLocks {
    fn default() -> Self {
        BalanceLocks {
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        }
    }
}

impl BalanceLocks {
    fn stripe(company: &str, customer: &str, kind: PointsKind) -> usize {
        let mut hasher = DefaultHasher::new();
        (company, customer, kind).hash(&mut hasher);
        (hasher.finish() % STRIPES as u64) as usize
    }

    /// Locks the balances of `customers` (of one Company and kind), always in
    /// stripe order, so two transfers in opposite directions cannot deadlock.
    pub async fn lock(
        &self,
        company: &str,
        customers: &[&str],
        kind: PointsKind,
    ) -> Vec<MutexGuard<'_, ()>> {
        let mut stripes: Vec<usize> = customers
            .iter()
            .map(|customer| Self::stripe(company, customer, kind))
            .collect();
        stripes.sort_unstable();
        stripes.dedup();
        let mut guards = Vec::with_capacity(stripes.len());
        for stripe in stripes {
            guards.push(self.stripes[stripe].lock().await);
        }
        guards
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opposite_transfers_lock_in_the_same_order() {
        let locks = std::sync::Arc::new(BalanceLocks::default());
        let mut tasks = tokio::task::JoinSet::new();
        for n in 0..50 {
            let locks = locks.clone();
            tasks.spawn(async move {
                let order = if n % 2 == 0 { ["x", "y"] } else { ["y", "x"] };
                let _held = locks.lock("c", &order, PointsKind::Points).await;
                tokio::task::yield_now().await;
            });
        }
        // A deadlock would never finish; the bound only turns it into a failure.
        let finished = tokio::time::timeout(std::time::Duration::from_secs(30), async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        assert!(finished.is_ok(), "opposite lock orders deadlocked");
        let same = locks.lock("c", &["x", "x"], PointsKind::Points).await;
        assert_eq!(same.len(), 1, "one stripe is locked once");
    }
}
