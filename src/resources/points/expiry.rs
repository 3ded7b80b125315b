//! Points expiry: credits expire first-in-first-out. Replaying a Customer's
//! ledger (oldest first) gives what is left of each credit ("lot"): every
//! debit uses the oldest lots first, and an expiry entry uses exactly the
//! lots that had expired when it was written, so running expiry again finds
//! nothing more to expire.

use std::collections::BTreeMap;

use crate::common::retry::{CHANGED, Tries};
use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::customers::service::CustomerRef;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsTransaction;
use crate::resources::points::store::ledger_reads::ExpiryWatermark;
use crate::services::Services;

/// What is left of one credit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lot {
    /// The credit's ledger entry.
    pub entry_id: String,
    /// When what is left of it expires; `None`: never.
    pub expires_at: Option<Timestamp>,
    /// Points left.
    pub left: i64,
}

/// The lots left after replaying `entries` (oldest first).
pub fn lots(entries: &[PointsTransaction]) -> Vec<Lot> {
    let mut lots: Vec<Lot> = Vec::new();
    for entry in entries {
        if entry.points > 0 {
            lots.push(Lot {
                entry_id: entry.id.clone(),
                expires_at: entry.expires_at,
                left: entry.points,
            });
            continue;
        }
        let mut debit = -entry.points;
        let expiry = entry.reason == "expiry";
        for lot in lots.iter_mut() {
            if debit == 0 {
                break;
            }
            if expiry && lot.expires_at.is_none_or(|at| at > entry.created_at) {
                continue;
            }
            let take = debit.min(lot.left);
            lot.left -= take;
            debit -= take;
        }
    }
    lots.retain(|lot| lot.left > 0);
    lots
}

/// Points of `lots` expired at `now`.
pub fn expired(lots: &[Lot], now: Timestamp) -> i64 {
    lots.iter()
        .filter(|lot| lot.expires_at.is_some_and(|at| at <= now))
        .map(|lot| lot.left)
        .sum()
}

/// Points of `lots` still to expire after `now`, by expiry instant.
pub fn upcoming(lots: &[Lot], now: Timestamp) -> Vec<(Timestamp, i64)> {
    let mut by_instant: BTreeMap<Timestamp, i64> = BTreeMap::new();
    for lot in lots {
        if let Some(at) = lot.expires_at.filter(|at| *at > now) {
            *by_instant.entry(at).or_default() += lot.left;
        }
    }
    by_instant.into_iter().collect()
}

/// How often a Customer's expiry is planned again when their balance moved
/// while it was being planned.
const EXPIRY_ATTEMPTS: u32 = 5;

impl Services {
    /// Expires, for every Customer, the points whose expiry passed by `now`;
    /// returns how many entries it wrote. Safe to run any number of times.
    pub async fn expire_points(&self, now: Timestamp) -> ApiResult<usize> {
        let since = self.store.expiry_watermark().await?;
        // Read before looking for candidates: an entry written during the run
        // is seen by the next one.
        let last_entry = self.store.newest_entry_id().await?;
        let candidates = self.store.expiring_balances(&since, now).await?;
        let mut written = 0;
        for (company, customer_id, kind) in candidates {
            written += usize::from(
                self.expire_balance(&company, &customer_id, kind, now)
                    .await?,
            );
        }
        self.store
            .set_expiry_watermark(&ExpiryWatermark {
                until: Some(now),
                last_entry,
            })
            .await?;
        Ok(written)
    }

    /// Expires one balance; whether an entry was written.
    async fn expire_balance(
        &self,
        company: &str,
        customer_id: &str,
        kind: PointsKind,
        now: Timestamp,
    ) -> ApiResult<bool> {
        let mut tries = Tries::at_most(EXPIRY_ATTEMPTS);
        loop {
            let entries = self
                .store
                .ledger_history(company, customer_id, kind)
                .await?;
            let balance = self.store.balance(company, customer_id, kind).await?;
            let amount = expired(&lots(&entries), now).min(balance);
            if amount <= 0 {
                return Ok(false);
            }
            let entry = LedgerEntry::new(customer_id, kind, -amount, "expiry", now);
            let appended = self.store.append_if_balance(company, &entry, balance).await;
            if tries.again(&appended, CHANGED) {
                continue;
            }
            appended?;
            tracing::info!(
                company,
                customer = customer_id,
                kind = kind.name(),
                points = amount,
                "points expired"
            );
            return Ok(true);
        }
    }

    /// A Customer's points still to expire, by instant, soonest first.
    pub async fn points_expiring(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        kind: PointsKind,
    ) -> ApiResult<(String, Vec<(Timestamp, i64)>)> {
        let customer = self.find_customer(company, customer).await?.customer;
        let entries = self
            .store
            .ledger_history(company, &customer.id, kind)
            .await?;
        Ok((customer.id, upcoming(&lots(&entries), self.now())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn at(day: u32) -> Timestamp {
        format!("2026-01-{day:02}T00:00:00Z").parse().unwrap()
    }

    fn entry(
        n: usize,
        points: i64,
        reason: &str,
        day: u32,
        expires: Option<u32>,
    ) -> PointsTransaction {
        PointsTransaction {
            id: format!("e{n:03}"),
            customer_id: "c".into(),
            kind: PointsKind::Points,
            points,
            reason: reason.into(),
            rule_id: None,
            cart_id: None,
            draw_id: None,
            operation_id: None,
            counterpart_id: None,
            author_email: None,
            description: None,
            expires_at: expires.map(at),
            created_at: at(day),
        }
    }

    #[test]
    fn debits_use_the_oldest_credits_first() {
        let entries = [
            entry(1, 100, "cart", 1, Some(10)),
            entry(2, 50, "cart", 2, Some(20)),
            entry(3, -120, "redemption", 3, None),
        ];
        let left = lots(&entries);
        assert_eq!(left.len(), 1);
        assert_eq!((left[0].entry_id.as_str(), left[0].left), ("e002", 30));
        assert_eq!(expired(&left, at(15)), 0, "the first lot was spent");
        assert_eq!(expired(&left, at(20)), 30);
        assert_eq!(upcoming(&left, at(15)), [(at(20), 30)]);
    }

    #[test]
    fn an_expiry_uses_only_the_expired_lots() {
        let entries = [
            entry(1, 100, "adjustment", 1, None),
            entry(2, 40, "cart", 2, Some(5)),
            entry(3, -40, "expiry", 6, None),
        ];
        let left = lots(&entries);
        assert_eq!(expired(&left, at(30)), 0, "expired once, never again");
        assert_eq!(
            left.iter().map(|l| l.left).sum::<i64>(),
            100,
            "the never-expiring lot is whole"
        );
    }

    proptest! {
        #[test]
        fn expiring_what_expired_leaves_nothing_expired(
            moves in prop::collection::vec((-60i64..100, prop::option::of(1u32..28)), 1..30),
            now in 1u32..28,
        ) {
            let mut entries = Vec::new();
            let mut balance = 0;
            for (n, (points, expires)) in moves.into_iter().enumerate() {
                let day = 1;
                let points = if points < 0 { -(-points).min(balance) } else { points };
                if points == 0 { continue; }
                balance += points;
                let expires = if points > 0 { expires } else { None };
                entries.push(entry(n, points, if points > 0 { "cart" } else { "redemption" }, day, expires));
            }
            let amount = expired(&lots(&entries), at(now)).min(balance);
            prop_assert!(amount >= 0 && amount <= balance);
            if amount > 0 {
                entries.push(entry(999, -amount, "expiry", now, None));
            }
            let after = lots(&entries);
            prop_assert_eq!(expired(&after, at(now)), 0);
            prop_assert_eq!(after.iter().map(|l| l.left).sum::<i64>(), balance - amount);
        }
    }
}
