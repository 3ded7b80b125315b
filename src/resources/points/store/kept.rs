//! The ledger's writes and the Customers kept in memory
//! ([`crate::resources::customers::cache`]): a write moves the Customers whose
//! points it moves on by them and leaves every other Customer kept, and a
//! redemption starts from the balance kept.

use serde_json::{Value, json};

use crate::error::ApiResult;
use crate::resources::customers::recorded::RecordedChange;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::resources::points::store::ledger::BalanceAfter;
use crate::resources::points::store::ledger::balance_moves;
use crate::storage::Store;
use crate::storage::connection::StoreQuery;
use crate::storage::record_text::record_value;
use crate::storage::store_error;

/// Each Customer whose balance `ledger` moves, with how far it moves its
/// points (not its wallet), in the order first met.
fn points_moved(ledger: &[LedgerEntry]) -> Vec<(&str, i64)> {
    let mut moved: Vec<(&str, i64)> = Vec::new();
    for entry in ledger {
        let points = if entry.kind == PointsKind::Points {
            entry.points
        } else {
            0
        };
        match moved
            .iter_mut()
            .find(|(customer, _)| *customer == entry.customer_id)
        {
            Some((_, sum)) => *sum += points,
            None => moved.push((&entry.customer_id, points)),
        }
    }
    moved
}

impl Store {
    /// Runs `text`, a transaction appending `ledger` (bound as `$ledger` and
    /// `$balances`, with `$company`, `$state_ids` and what `bind` adds) and
    /// ending with [`super::ledger::BALANCES_AFTER`], gives the balances it
    /// moved as it left them, and moves each Customer whose points it moved
    /// on by them. The entries change nothing kept of their Customers but
    /// the points balance, so every other Customer kept stays kept: a write
    /// that forgot them all would make each redemption, or each minute's
    /// expiry, cost every till its next read.
    pub(super) async fn append_moving_on<'a>(
        &'a self,
        company: &str,
        ledger: &[LedgerEntry],
        text: &'a str,
        bind: impl Fn(StoreQuery<'a>) -> StoreQuery<'a>,
    ) -> ApiResult<Vec<BalanceAfter>> {
        let written = self.ledger_write(company, ledger);
        let moved: Vec<(&str, PointsKind)> = balance_moves(ledger)
            .into_iter()
            .map(|(customer, kind, _)| (customer, kind))
            .collect();
        let state_ids: Vec<Value> = moved
            .iter()
            .map(|(customer, _)| record_value("customer_state", &json!([company, customer])))
            .collect();
        let sent = self.memory.customers.mark();
        let recorded = self
            .transact(|db| {
                bind(
                    db.query_keeping_customers(text)
                        .bind(("company", company.to_string()))
                        .bind_ledger(&written)
                        .bind(("state_ids", state_ids.clone())),
                )
            })
            .await;
        self.move_on(company, ledger, sent, recorded.is_ok());
        let mut response = recorded?;
        // The statement before the `COMMIT` (`BALANCES_AFTER`).
        let last = response.num_statements().saturating_sub(2);
        let states: Vec<Option<Value>> = response.take(last).map_err(store_error)?;
        Ok(moved
            .into_iter()
            .zip(states)
            .map(|((customer_id, kind), state)| BalanceAfter {
                balance: state
                    .and_then(|state| state[kind.name()].as_i64())
                    .unwrap_or(0),
                customer_id: customer_id.to_string(),
                kind,
            })
            .collect())
    }

    /// Moves each Customer whose balance `ledger` moved on by its points,
    /// when the write marked `sent` committed; forgets them when it failed
    /// (it may have committed all the same: read again).
    fn move_on(&self, company: &str, ledger: &[LedgerEntry], sent: u64, committed: bool) {
        for (customer, points) in points_moved(ledger) {
            if committed {
                let change = RecordedChange {
                    points,
                    ..RecordedChange::default()
                };
                self.memory
                    .customers
                    .advance(company, customer, sent, &change);
            } else {
                self.memory.customers.forget(company, customer);
            }
        }
    }

    /// The points balance of `customer_id` as the Customers kept in memory
    /// hold it (moved on by every write of this process), when one is kept
    /// with its facts.
    pub fn kept_points_balance(&self, company: &str, customer_id: &str) -> Option<i64> {
        let kept = self.memory.customers.by_id(company, customer_id)?;
        Some(kept.facts?.facts.points_balance)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::common::time::Timestamp;
    use crate::resources::points::ledger_entry::LedgerEntry;
    use crate::resources::points::model::PointsKind;
    use crate::storage::Store;

    #[tokio::test]
    async fn a_ledger_write_moves_its_customer_on_and_leaves_the_others_kept() {
        use crate::pipeline::store::{FactsOf, FactsRead};
        use crate::resources::customers::model::{Customer, SearchBy};
        use crate::resources::points::store::ledger_reads::ExpiryWatermark;

        let store = Store::connect("mem://", None).await.unwrap();
        for (id, code) in [("cus_a", "A1"), ("cus_b", "B1")] {
            let customer: Customer = serde_json::from_value(json!({
                "id": id, "code": code, "active": true, "loyalty_member": true,
                "consents": {}, "cards": [], "attributes": {},
                "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z",
            }))
            .unwrap();
            store.insert_customer("c", &customer).await.unwrap();
        }
        // Read after both are written: a write that names no Customer (as
        // `insert_customer` does) makes every Customer kept before it stale.
        for code in ["A1", "B1"] {
            let read = FactsRead {
                of: FactsOf::Lookup(SearchBy::Code, code),
                history_since: None,
                queries: &[],
                printed_once: false,
            };
            store.read_facts("c", read).await.unwrap();
        }
        let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        let credit = [
            LedgerEntry::new("cus_a", PointsKind::Points, 30, "adjustment", at),
            LedgerEntry::new("cus_a", PointsKind::Wallet, 5, "adjustment", at),
        ];
        store.append_ledger("c", &credit, None, &[]).await.unwrap();
        let debit = LedgerEntry::new("cus_a", PointsKind::Points, -4, "expiry", at);
        store.append_if_balance("c", &debit, 30).await.unwrap();
        store
            .set_expiry_watermark(&ExpiryWatermark {
                until: Some(at),
                last_entry: None,
            })
            .await
            .unwrap();
        assert_eq!(store.kept_points_balance("c", "cus_a"), Some(26));
        assert_eq!(
            store
                .balance("c", "cus_a", PointsKind::Points)
                .await
                .unwrap(),
            26
        );
        assert_eq!(
            store.kept_points_balance("c", "cus_b"),
            Some(0),
            "still kept"
        );
        // A refused write forgets its Customer: it is read again.
        let refused = LedgerEntry::new("cus_a", PointsKind::Points, -1, "expiry", at);
        assert!(store.append_if_balance("c", &refused, 99).await.is_err());
        assert_eq!(store.kept_points_balance("c", "cus_a"), None);
        assert_eq!(store.kept_points_balance("c", "cus_b"), Some(0));
    }
}
