//! The points ledger: append-only entries, each moving one Customer's balance
//! of one kind (points or wallet). Balances are cached per Customer and kind
//! by the transaction that appends, so a balance always equals the sum of its
//! entries; reversals are new entries, never edits.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{REFUSED, Store, first};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::model::Timestamp;
use crate::model::points::{PointsKind, PointsTransaction};

/// One append-only entry of the points ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// The Customer credited (positive) or debited (negative).
    pub customer_id: String,
    /// The balance it moves.
    #[serde(default)]
    pub kind: PointsKind,
    /// Amount.
    pub points: i64,
    /// Why: `cart`, `custom_event`, `trigger:TYPE`, `instant_win`,
    /// `redemption`, `transfer`, `cancellation`, `merge` or `unmerge`.
    pub reason: String,
    /// The campaign that earned them.
    pub rule_id: Option<i64>,
    /// The cart that earned or redeemed them.
    pub cart_id: Option<String>,
    /// The Instant Win draw whose prize they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_id: Option<String>,
    /// The redemption or transfer the entry belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// Transfers: the other Customer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterpart_id: Option<String>,
    /// Who asked for it (`X-Author-Email`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_email: Option<String>,
    /// A note from the caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Credits: when what is left of them expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
    /// When.
    pub created_at: Timestamp,
}

/// How far points expiry has run: credits expiring up to `until` and written
/// up to `last_entry` were handled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpiryWatermark {
    /// The instant the last run expired up to.
    pub until: Option<Timestamp>,
    /// The newest entry when the last run started.
    pub last_entry: Option<String>,
}

impl LedgerEntry {
    /// An entry of `points` of `kind` for `customer_id`, with no references.
    pub fn new(
        customer_id: &str,
        kind: PointsKind,
        points: i64,
        reason: &str,
        created_at: Timestamp,
    ) -> Self {
        LedgerEntry {
            customer_id: customer_id.to_string(),
            kind,
            points,
            reason: reason.to_string(),
            rule_id: None,
            cart_id: None,
            draw_id: None,
            operation_id: None,
            counterpart_id: None,
            author_email: None,
            description: None,
            expires_at: None,
            created_at,
        }
    }
}

/// SurrealQL appending every entry of `$ledger` and moving each balance of
/// `$balances` (both from [`ledger_documents`]) inside the caller's
/// transaction. The moves are summed in Rust: summing them in SurrealQL cost
/// more than writing the entries.
pub(super) const APPEND_LEDGER: &str = "
    IF $ledger {
        INSERT INTO points_ledger $ledger RETURN NONE;
    };
    FOR $balance IN $balances {
        UPSERT type::record('points_balance', [$company, $balance.customer_id, $balance.kind])
            SET company = $company, customer_id = $balance.customer_id, kind = $balance.kind,
                balance = (balance ?? 0) + $balance.delta
            RETURN NONE;
    };";

/// SurrealQL refusing with `customer_not_enough_score` when `$balances`
/// would take a balance below zero (a balance's entries count together, so
/// points given back offset points taken back); runs before
/// [`APPEND_LEDGER`] in the same transaction, so concurrent debits of one
/// balance conflict on its record and the retried one sees the other's effect.
pub(super) const GUARD_DEBITS: &str = "
    FOR $balance IN $balances[WHERE delta < 0] {
        LET $have = (SELECT VALUE balance FROM ONLY type::record('points_balance', [$company, $balance.customer_id, $balance.kind])) ?? 0;
        IF $have + $balance.delta < 0 {
            THROW 'REFUSED|customer_not_enough_score|Customer ' + $balance.customer_id + ' has ' + <string> $have + ' ' + $balance.kind + ', not ' + <string> (0 - $balance.delta);
        };
    };";

/// What appending ledger entries writes: the entries and the move of each
/// balance they touch.
#[derive(Debug, Clone, Default)]
pub(super) struct LedgerWrite {
    /// The entries as stored (`$ledger`).
    pub entries: Vec<Value>,
    /// `{customer_id, kind, delta}` per balance, in first-seen order (`$balances`).
    pub balances: Vec<Value>,
}

/// The ledger entries of `company` as stored, each with a new time-ordered
/// id, so listing by id lists by time, and the balance moves they make.
pub(super) fn ledger_documents(company: &str, ledger: &[LedgerEntry]) -> LedgerWrite {
    let millis = chrono::Utc::now().timestamp_millis().max(0) as u64;
    let entries: Vec<Value> = ledger
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let mut value = json!(entry);
            value["company"] = Value::String(company.to_string());
            let entry_id = format!(
                "pt_{millis:012x}{index:03x}{}",
                crate::secrets::random_hex(5)
            );
            // `id` names the record INSERT creates; `entry_id` is what is read.
            value["id"] = Value::String(entry_id.clone());
            value["entry_id"] = Value::String(entry_id);
            value
        })
        .collect();
    let mut balances: Vec<Value> = Vec::new();
    for entry in &entries {
        let (customer, kind) = (&entry["customer_id"], &entry["kind"]);
        let points = entry["points"].as_i64().unwrap_or(0);
        match balances
            .iter_mut()
            .find(|b| b["customer_id"] == *customer && b["kind"] == *kind)
        {
            Some(balance) => {
                balance["delta"] = json!(balance["delta"].as_i64().unwrap_or(0) + points);
            }
            None => balances.push(json!({"customer_id": customer, "kind": kind, "delta": points})),
        }
    }
    LedgerWrite { entries, balances }
}

/// A stored entry as a transaction: its `entry_id` becomes its `id`.
fn transaction_from(mut row: Value) -> ApiResult<PointsTransaction> {
    if let Some(object) = row.as_object_mut()
        && let Some(id) = object.remove("entry_id")
    {
        object.insert("id".into(), id);
    }
    serde_json::from_value(row)
        .map_err(|e| ApiError::internal(format!("stored ledger entry unreadable: {e}")))
}

impl Store {
    /// A Customer's balance of `kind`.
    pub async fn balance(
        &self,
        company: &str,
        customer_id: &str,
        kind: PointsKind,
    ) -> ApiResult<i64> {
        let balance: Option<i64> = first(
            self.db
                .query("SELECT VALUE balance FROM ONLY type::record('points_balance', [$company, $customer, $kind])")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("kind", kind.name())),
        )
        .await?;
        Ok(balance.unwrap_or(0))
    }

    /// A Customer's points balance.
    pub async fn points_balance(&self, company: &str, customer_id: &str) -> ApiResult<i64> {
        self.balance(company, customer_id, PointsKind::Points).await
    }

    /// Appends `ledger` in one transaction, refusing with
    /// `customer_not_enough_score` (and writing nothing) when a debit would
    /// take a balance below zero.
    pub async fn append_ledger(&self, company: &str, ledger: &[LedgerEntry]) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             {GUARD_DEBITS}
             {APPEND_LEDGER}
             COMMIT TRANSACTION;"
        );
        let entries = ledger_documents(company, ledger);
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("ledger", entries.entries.clone()))
                .bind(("balances", entries.balances.clone()))
        })
        .await?;
        Ok(())
    }

    /// Appends `ledger`, which redeems for the cart `cart_id`, unless the cart
    /// was cancelled (`cart_already_cancelled`) or a debit would take a balance
    /// below zero.
    pub async fn append_cart_redemption(
        &self,
        company: &str,
        cart_id: &str,
        ledger: &[LedgerEntry],
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $cart = type::record('cart', [$company, $cart_id]);
             IF (SELECT VALUE cancelled_by FROM ONLY $cart) {{
                 THROW '{REFUSED}{cancelled}|cart ' + $cart_id + ' was cancelled';
             }};
             UPDATE $cart SET redeemed_at = time::now() RETURN NONE;
             {GUARD_DEBITS}
             {APPEND_LEDGER}
             COMMIT TRANSACTION;",
            cancelled = ErrorCode::CartAlreadyCancelled.code()
        );
        let entries = ledger_documents(company, ledger);
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("cart_id", cart_id.to_string()))
                .bind(("ledger", entries.entries.clone()))
                .bind(("balances", entries.balances.clone()))
        })
        .await?;
        Ok(())
    }

    /// Ledger entries of a Customer, newest first, optionally of one kind,
    /// after the entry `starting_after`, at most `limit`.
    pub async fn ledger_entries(
        &self,
        company: &str,
        customer_id: &str,
        kind: Option<PointsKind>,
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<PointsTransaction>> {
        let mut conditions = vec!["company = $company", "customer_id = $customer"];
        if kind.is_some() {
            conditions.push("kind = $kind");
        }
        if starting_after.is_some() {
            conditions.push("entry_id < $after");
        }
        let query = format!(
            "SELECT * OMIT id, company FROM points_ledger WHERE {} ORDER BY entry_id DESC LIMIT $limit",
            conditions.join(" AND ")
        );
        let rows: Vec<Value> = first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("kind", kind.map(PointsKind::name).unwrap_or_default()))
                .bind(("after", starting_after.unwrap_or_default().to_string()))
                .bind(("limit", limit as i64)),
        )
        .await?;
        rows.into_iter()
            .map(|mut row| {
                if let Some(object) = row.as_object_mut()
                    && let Some(id) = object.remove("entry_id")
                {
                    object.insert("id".into(), id);
                }
                serde_json::from_value(row)
                    .map_err(|e| ApiError::internal(format!("stored ledger entry unreadable: {e}")))
            })
            .collect()
    }

    /// Every ledger entry of a Customer's balance of `kind`, oldest first.
    pub async fn ledger_history(
        &self,
        company: &str,
        customer_id: &str,
        kind: PointsKind,
    ) -> ApiResult<Vec<PointsTransaction>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT * OMIT id, company FROM points_ledger WHERE company = $company AND customer_id = $customer AND kind = $kind ORDER BY entry_id")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("kind", kind.name())),
        )
        .await?;
        rows.into_iter().map(transaction_from).collect()
    }

    /// Appends `entry` if the balance it moves is still `seen`; otherwise
    /// refuses with `concurrent_modification` and writes nothing.
    pub async fn append_if_balance(
        &self,
        company: &str,
        entry: &LedgerEntry,
        seen: i64,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $entry = $ledger[0];
             LET $have = (SELECT VALUE balance FROM ONLY type::record('points_balance', [$company, $entry.customer_id, $entry.kind])) ?? 0;
             IF $have != $seen {{
                 THROW '{REFUSED}{changed}|the balance changed meanwhile';
             }};
             {GUARD_DEBITS}
             {APPEND_LEDGER}
             COMMIT TRANSACTION;",
            changed = ErrorCode::ConcurrentModification.code()
        );
        let entries = ledger_documents(company, std::slice::from_ref(entry));
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("ledger", entries.entries.clone()))
                .bind(("balances", entries.balances.clone()))
                .bind(("seen", seen))
        })
        .await?;
        Ok(())
    }

    /// The balances (Company, Customer, kind) with credits expiring by
    /// `until` that the last run (`since`) did not see: expiring after its
    /// instant, or written after its last entry.
    pub async fn expiring_balances(
        &self,
        since: &ExpiryWatermark,
        until: Timestamp,
    ) -> ApiResult<Vec<(String, String, PointsKind)>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT company, customer_id, kind FROM points_ledger WHERE expires_at != NONE AND expires_at <= $until AND points > 0 AND (expires_at > $since OR entry_id > $last_entry) GROUP BY company, customer_id, kind")
                .bind(("since", since.until.map(|t| t.to_string()).unwrap_or_default()))
                .bind(("last_entry", since.last_entry.clone().unwrap_or_default()))
                .bind(("until", until.to_string())),
        )
        .await?;
        Ok(rows
            .iter()
            .filter_map(|row| {
                let kind = serde_json::from_value(row["kind"].clone()).ok()?;
                Some((
                    row["company"].as_str()?.to_string(),
                    row["customer_id"].as_str()?.to_string(),
                    kind,
                ))
            })
            .collect())
    }

    /// How far expiry has run.
    pub async fn expiry_watermark(&self) -> ApiResult<ExpiryWatermark> {
        let row: Option<Value> =
            first(self.db.query("SELECT * FROM ONLY expiry_run:watermark")).await?;
        Ok(ExpiryWatermark {
            until: row
                .as_ref()
                .and_then(|r| r["until"].as_str())
                .and_then(|u| u.parse().ok()),
            last_entry: row
                .as_ref()
                .and_then(|r| r["last_entry"].as_str())
                .map(str::to_string),
        })
    }

    /// The newest ledger entry's id (entries are written in id order).
    pub async fn newest_entry_id(&self) -> ApiResult<Option<String>> {
        let ids: Vec<String> = first(
            self.db
                .query("SELECT VALUE entry_id FROM points_ledger ORDER BY entry_id DESC LIMIT 1"),
        )
        .await?;
        Ok(ids.into_iter().next())
    }

    /// Records how far expiry ran (never moving it backwards).
    pub async fn set_expiry_watermark(&self, watermark: &ExpiryWatermark) -> ApiResult<()> {
        super::execute(
            self.db
                .query(
                    "UPSERT expiry_run:watermark SET
                         until = IF until == NONE OR until < $until { $until } ELSE { until },
                         last_entry = IF last_entry == NONE OR last_entry < $last_entry { $last_entry } ELSE { last_entry }
                     RETURN NONE",
                )
                .bind(("until", watermark.until.map(|t| t.to_string()).unwrap_or_default()))
                .bind(("last_entry", watermark.last_entry.clone().unwrap_or_default())),
        )
        .await
    }

    /// The sum of a Customer's ledger entries of `kind`, computed from the
    /// entries themselves (to check the cached balance).
    pub async fn ledger_sum(
        &self,
        company: &str,
        customer_id: &str,
        kind: PointsKind,
    ) -> ApiResult<i64> {
        let sum: Option<i64> = first(
            self.db
                .query("RETURN math::sum((SELECT VALUE points FROM points_ledger WHERE company = $company AND customer_id = $customer AND kind = $kind))")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("kind", kind.name())),
        )
        .await?;
        Ok(sum.unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entries_of_one_balance_move_it_together() {
        let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        let ledger = [
            LedgerEntry::new("x", PointsKind::Points, 30, "cart", at),
            LedgerEntry::new("x", PointsKind::Wallet, 5, "cart", at),
            LedgerEntry::new("y", PointsKind::Points, -4, "transfer", at),
            LedgerEntry::new("x", PointsKind::Points, -10, "cancellation", at),
        ];
        let write = ledger_documents("c", &ledger);
        assert_eq!(write.entries.len(), 4);
        assert_eq!(
            write.balances,
            vec![
                json!({"customer_id": "x", "kind": "points", "delta": 20}),
                json!({"customer_id": "x", "kind": "wallet", "delta": 5}),
                json!({"customer_id": "y", "kind": "points", "delta": -4}),
            ]
        );
        assert!(ledger_documents("c", &[]).balances.is_empty());
    }

    #[tokio::test]
    async fn entries_and_balances_from_before_kinds_are_migrated_once() {
        let store = Store::connect("mem://", None).await.unwrap();
        super::super::execute(store.db.query(
            "CREATE points_ledger CONTENT { company: 'c', customer_id: 'x', points: 5, reason: 'cart', rule_id: 1, cart_id: 'T1', created_at: '2026-01-01T00:00:00Z' };
             CREATE type::record('points_balance', ['c', 'x']) CONTENT { company: 'c', customer_id: 'x', balance: 5 };
             DELETE migration:ledger_kinds;",
        ))
        .await
        .unwrap();
        store.apply_schema().await.unwrap();
        store.apply_schema().await.unwrap();
        assert_eq!(
            store.balance("c", "x", PointsKind::Points).await.unwrap(),
            5
        );
        assert_eq!(
            store
                .ledger_sum("c", "x", PointsKind::Points)
                .await
                .unwrap(),
            5
        );
        let entries = store
            .ledger_entries("c", "x", Some(PointsKind::Points), None, 10)
            .await
            .unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].points, 5);
        assert!(!entries[0].id.is_empty());
    }
}
