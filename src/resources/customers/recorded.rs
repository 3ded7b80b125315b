//! What a recorded event changed in the state of its Customer that this
//! process keeps in memory ([`crate::resources::customers::cache`]): a cart's
//! purchase (history and totals), the points balance, the Instant Win
//! participations counted. An event that changed anything else (Vouchers,
//! Challenges, limits, game participations) has no [`RecordedChange`], and
//! its Customer is read again.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::common::money::decimal_to_f64;
use crate::common::money::sum_exactly;
use crate::resources::customers::cache::CachedCustomer;

/// A recorded cart, as its Customer's totals and history count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordedPurchase {
    /// Its date.
    pub at: DateTime<Utc>,
    /// The calendar day it counts on in the history.
    pub day: NaiveDate,
    /// Its total.
    pub total: Decimal,
}

/// What one committed event changed in its Customer's kept state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordedChange {
    /// A cart's purchase.
    pub purchase: Option<RecordedPurchase>,
    /// How far the Customer's points balance moved.
    pub points: i64,
    /// The participation counts the event's draws left (its state's `rules`),
    /// when it drew.
    pub draw_counts: Option<Value>,
}

impl RecordedChange {
    /// Moves `entry` on by this change, as a read after the write would find
    /// it: what the entry did not read stays unread.
    pub(crate) fn apply(&self, entry: &mut CachedCustomer) {
        if let Some(cached) = &mut entry.facts {
            let facts = &mut cached.facts;
            if let Some(purchase) = self.purchase {
                let totals = &mut facts.totals;
                totals.lifetime_spend =
                    sum_exactly([totals.lifetime_spend, decimal_to_f64(purchase.total)]);
                totals.cart_count += 1;
                totals.last_purchase = totals.last_purchase.max(Some(purchase.at));
                // A day older than the history read is one no window
                // reaches: counting it changes no answer.
                if cached.since.is_some() {
                    std::sync::Arc::make_mut(&mut facts.history).add(
                        purchase.day,
                        purchase.total,
                        1,
                    );
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
    use crate::common::money::decimal_from_f64;
    use crate::common::time::Timestamp;
    use crate::pipeline::store::CustomerFacts;
    use crate::resources::carts::purchase_days::{PurchaseDay, PurchaseDays};
    use crate::resources::customers::cache::CachedFacts;
    use crate::resources::customers::model::Customer;
    use crate::resources::customers::store::StoredCustomer;
    use crate::resources::instant_wins::store::draw_state::CustomerDraws;
    use serde_json::json;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse::<Timestamp>().unwrap().as_datetime()
    }

    /// A cart of `date` and `total`, counted on its day in UTC.
    fn purchase(date: &str, total: &str) -> Option<RecordedPurchase> {
        Some(RecordedPurchase {
            at: at(date),
            day: at(date).date_naive(),
            total: total.parse().unwrap(),
        })
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
        let history = PurchaseDays::of(purchases.iter().map(|(date, total)| PurchaseDay {
            day: date.date_naive(),
            spent: decimal_from_f64(*total).unwrap(),
            carts: 1,
        }));
        let facts = CustomerFacts {
            totals: crate::resources::carts::purchase_days::PurchaseTotals::of(&purchases),
            history: std::sync::Arc::new(history),
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
            purchase: purchase("2026-11-01T10:00:00Z", "0.2"),
            points: 12,
            draw_counts: Some(json!({"7": {"2026-11-01": 1}})),
        }
        .apply(&mut kept);
        let facts = &kept.facts.as_ref().unwrap().facts;
        assert_eq!(
            facts.history.to_string(),
            "2026-10-05 0.1 1, 2026-11-01 0.2 1, 2026-11-20 5 1"
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
    fn a_purchase_counts_in_the_history_only_when_it_was_read() {
        let mut kept = entry("2026-11-01T00:00:00Z", &[], false);
        let change = RecordedChange {
            purchase: purchase("2026-11-02T10:00:00Z", "3"),
            ..RecordedChange::default()
        };
        let mut unread = kept.clone();
        unread.facts.as_mut().unwrap().since = None;
        change.apply(&mut unread);
        let facts = &unread.facts.as_ref().unwrap().facts;
        assert!(facts.history.days().is_empty());
        assert_eq!(facts.totals.cart_count, 1);
        change.apply(&mut kept);
        let facts = &kept.facts.as_ref().unwrap().facts;
        assert_eq!(facts.history.days().len(), 1);
        assert_eq!(facts.totals.cart_count, 1);
        assert_eq!(facts.totals.last_purchase, Some(at("2026-11-02T10:00:00Z")));
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
            purchase: purchase("2026-11-01T10:00:00Z", "2.5"),
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
