//! What a recorded event changed in the state of its Customer that this
//! process keeps in memory ([`crate::resources::customers::cache`]): a cart's
//! purchase (history and totals), the points balance, the Instant Win
//! participations counted. An event that changed anything else (Vouchers,
//! Challenges, limits, game participations) has no [`RecordedChange`], and
//! its Customer is read again.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::common::money::sum_exactly;
use crate::resources::customers::cache::CachedCustomer;

/// What one committed event changed in its Customer's kept state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordedChange {
    /// A cart's purchase: its date and total, as conditions see them.
    pub purchase: Option<(DateTime<Utc>, f64)>,
    /// How far the Customer's points balance moved.
    pub points: i64,
    /// The participation counts the event's draws left (`iw_counts.rules`),
    /// when it drew.
    pub draw_counts: Option<Value>,
}

impl RecordedChange {
    /// Moves `entry` on by this change, as a read after the write would find
    /// it: what the entry did not read stays unread.
    pub(crate) fn apply(&self, entry: &mut CachedCustomer) {
        if let Some(cached) = &mut entry.facts {
            let facts = &mut cached.facts;
            if let Some((date, total)) = self.purchase {
                let totals = &mut facts.totals;
                totals.lifetime_spend = sum_exactly([totals.lifetime_spend, total]);
                totals.cart_count += 1;
                totals.last_purchase = totals.last_purchase.max(Some(date));
                // The history holds what was read from `since` on, oldest
                // first, as the store orders it.
                if cached
                    .since
                    .is_some_and(|since| date >= since.as_datetime())
                {
                    let at = facts.purchases.partition_point(|(read, _)| *read <= date);
                    facts.purchases.insert(at, (date, total));
                }
            }
            facts.points_balance += self.points;
        }
        if let (Some(draws), Some(counts)) = (&mut entry.draws, &self.draw_counts) {
            draws.counts = Some(counts.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::time::Timestamp;
    use crate::pipeline::store::CustomerFacts;
    use crate::resources::customers::cache::CachedFacts;
    use crate::resources::customers::model::Customer;
    use crate::resources::customers::store::StoredCustomer;
    use crate::resources::instant_wins::store::draw_state::CustomerDraws;
    use serde_json::json;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse::<Timestamp>().unwrap().as_datetime()
    }

    fn entry(since: &str, purchases: &[(&str, f64)], draws: bool) -> CachedCustomer {
        let customer: Customer = serde_json::from_value(json!({
            "id": "cus_1", "code": "A1", "active": true, "loyalty_member": true,
            "consents": {}, "cards": [], "attributes": {},
            "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z",
        }))
        .unwrap();
        let purchases: Vec<(DateTime<Utc>, f64)> = purchases
            .iter()
            .map(|(date, total)| (at(date), *total))
            .collect();
        let facts = CustomerFacts {
            totals: crate::resources::carts::model::PurchaseTotals::of(&purchases),
            purchases,
            points_balance: 40,
            ..CustomerFacts::default()
        };
        let cached = CachedFacts {
            since: Some(since.parse().unwrap()),
            facts,
        };
        let stored = StoredCustomer {
            customer,
            revision: 1,
        };
        CachedCustomer::read(stored, Some(cached), None)
            .with_draws(draws.then(CustomerDraws::default))
    }

    #[test]
    fn a_purchase_moves_the_totals_exactly_and_takes_its_place_in_the_history() {
        let mut kept = entry(
            "2026-10-01T00:00:00Z",
            &[("2026-10-05T10:00:00Z", 0.1), ("2026-11-20T10:00:00Z", 5.0)],
            true,
        );
        RecordedChange {
            purchase: Some((at("2026-11-01T10:00:00Z"), 0.2)),
            points: 12,
            draw_counts: Some(json!({"7": {"2026-11-01": 1}})),
        }
        .apply(&mut kept);
        let facts = &kept.facts.as_ref().unwrap().facts;
        let dates: Vec<DateTime<Utc>> = facts.purchases.iter().map(|(d, _)| *d).collect();
        assert_eq!(
            dates,
            [
                at("2026-10-05T10:00:00Z"),
                at("2026-11-01T10:00:00Z"),
                at("2026-11-20T10:00:00Z")
            ]
        );
        // 0.1 + 5.0 + 0.2 summed as decimals, as the store sums them.
        assert_eq!(facts.totals.lifetime_spend, 5.3);
        assert_eq!(facts.totals.cart_count, 3);
        assert_eq!(facts.totals.last_purchase, Some(at("2026-11-20T10:00:00Z")));
        assert_eq!(facts.points_balance, 52);
        assert_eq!(
            kept.draws.unwrap().counts,
            Some(json!({"7": {"2026-11-01": 1}}))
        );
    }

    #[test]
    fn a_purchase_before_the_history_read_counts_in_the_totals_only() {
        let mut kept = entry("2026-11-01T00:00:00Z", &[], false);
        let change = RecordedChange {
            purchase: Some((at("2026-10-30T10:00:00Z"), 3.0)),
            ..RecordedChange::default()
        };
        change.apply(&mut kept);
        let facts = &kept.facts.as_ref().unwrap().facts;
        assert!(facts.purchases.is_empty());
        assert_eq!(facts.totals.cart_count, 1);
        assert_eq!(facts.totals.last_purchase, Some(at("2026-10-30T10:00:00Z")));
        // No draw records were read: none are made up.
        assert!(kept.draws.is_none());
    }

    #[test]
    fn a_write_moves_on_only_an_entry_kept_before_it_was_sent() {
        use crate::resources::customers::cache::CustomerCache;
        use crate::storage::connection::WriteEpoch;
        let epoch = std::sync::Arc::new(WriteEpoch::default());
        let cache = CustomerCache::new(1_000, epoch.clone());
        let keep = |id: &str| {
            let mut kept = entry("2026-10-01T00:00:00Z", &[], false);
            kept.stored.customer.id = id.to_string();
            cache.keep("c", None, &cache.ticket(), kept);
        };
        let cart = RecordedChange {
            purchase: Some((at("2026-11-01T10:00:00Z"), 2.5)),
            ..RecordedChange::default()
        };
        let carts = |id: &str| {
            cache
                .by_id("c", id)
                .map(|kept| kept.facts.unwrap().facts.totals.cart_count)
        };
        // Kept, then a write marked and committed: moved on, still served.
        keep("cus_1");
        let sent = cache.mark();
        let racing = cache.ticket();
        cache.advance("c", "cus_1", sent, &cart);
        assert_eq!(carts("cus_1"), Some(1));
        // A read that ran beside the write is not kept over it.
        let mut old = entry("2026-10-01T00:00:00Z", &[], false);
        old.stored.customer.id = "cus_1".into();
        cache.keep("c", None, &racing, old);
        assert_eq!(carts("cus_1"), Some(1));
        // Kept after the write was sent: it may hold the write already.
        let sent = cache.mark();
        keep("cus_2");
        cache.advance("c", "cus_2", sent, &cart);
        assert_eq!(carts("cus_2"), None, "kept after the mark");
        // An entry another write made stale is not moved on.
        keep("cus_3");
        let sent = cache.mark();
        epoch.moved();
        cache.advance("c", "cus_3", sent, &cart);
        keep("cus_4");
        assert_eq!(carts("cus_3"), None, "stale");
        assert_eq!(carts("cus_4"), Some(0));
    }
}
