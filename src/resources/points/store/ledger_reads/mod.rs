//! Reading the points ledger: a Customer's entries (listed, or replayed for
//! expiry), a cart's entries (for its cancellation), the balances with
//! credits expiring, and the sum that checks a cached balance.
//!
//! Entries are stored a write at a time ([`crate::resources::points::store::ledger::ledger_documents`]):
//! each `ledger_write` record holds the entries one write appended to one
//! balance for one cart. Reads select records and flatten their entries; the
//! entries of a record are contiguous in id order, so records ordered by their
//! first entry's id give the entries in order.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::exports::model::Period;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsTransaction;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::first_rows;
use crate::storage::page_query::PageQuery;

use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::store::ledger::entry_id;
use crate::resources::points::store::ledger::entry_id_prefix;

/// How far points expiry has run: credits expiring up to `until` and written
/// up to `last_entry` were handled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpiryWatermark {
    /// The instant the last run expired up to.
    pub until: Option<Timestamp>,
    /// The first entry of the newest stored write when the last run started.
    pub last_entry: Option<String>,
}

/// Selects stored writes with the fields their entries are read from
/// ([`entries_of`]); the query's conditions follow.
macro_rules! select_writes {
    () => {
        "SELECT customer_id, kind, cart_id, created_at, reason, entries, entry_id FROM ledger_write"
    };
}

/// The entries of one stored write, in order, each given back the fields it
/// shares with the others (Customer, kind, cart, and the instant and reason
/// when all have the same) and its id (writes stored before kept each
/// entry's fields and id on the entry, which then stand).
fn entries_of<T: DeserializeOwned>(write: Value) -> ApiResult<Vec<T>> {
    let unreadable =
        |detail: String| ApiError::internal(format!("stored ledger entry unreadable: {detail}"));
    let Value::Object(mut write) = write else {
        return Err(unreadable(format!("not an object: {write}")));
    };
    let Some(Value::Array(entries)) = write.remove("entries") else {
        return Err(unreadable("a stored write without entries".into()));
    };
    let first_id = write.remove("entry_id");
    let prefix = first_id
        .as_ref()
        .and_then(Value::as_str)
        .map(entry_id_prefix)
        .ok_or_else(|| unreadable("a stored write without its first entry's id".into()))?;
    let shared: Vec<(String, Value)> = write
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .collect();
    entries
        .into_iter()
        .enumerate()
        .map(|(index, mut entry)| {
            if let Some(object) = entry.as_object_mut() {
                for (field, value) in &shared {
                    if !object.contains_key(field) {
                        object.insert(field.clone(), value.clone());
                    }
                }
                if !object.contains_key("id") {
                    object.insert("id".into(), Value::String(entry_id(prefix, index)));
                }
            }
            serde_json::from_value(entry).map_err(|e| unreadable(e.to_string()))
        })
        .collect()
}

/// The entries of `writes`, in the order given.
fn flatten<T: DeserializeOwned>(writes: Vec<Value>) -> ApiResult<Vec<T>> {
    let mut entries = Vec::new();
    for write in writes {
        entries.extend(entries_of(write)?);
    }
    Ok(entries)
}

impl Store {
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
        // A write whose first entry is older than the cursor holds every
        // entry older than it that a newer write does not; every write holds
        // at least one entry, so `limit` writes are enough.
        let writes = PageQuery::new(select_writes!(), "entry_id")
            .newest_first()
            .filter("customer_id = $customer", "customer", customer_id)
            .filter_if("kind = $kind", "kind", kind.map(PointsKind::name))
            .fetch(self, company, starting_after, limit)
            .await?;
        let mut entries = Vec::with_capacity(limit);
        for write in writes {
            let mut newest_first: Vec<PointsTransaction> = entries_of(write)?;
            newest_first.reverse();
            entries.extend(
                newest_first
                    .into_iter()
                    .filter(|entry| starting_after.is_none_or(|after| entry.id.as_str() < after)),
            );
            if entries.len() >= limit {
                break;
            }
        }
        entries.truncate(limit);
        Ok(entries)
    }

    /// The ledger entries of `company` written in `period`, oldest first,
    /// from the stored writes after the write `after` (at most `limit`
    /// writes read), and the write to read on from (`None` after the last).
    pub async fn ledger_export(
        &self,
        company: &str,
        period: Period,
        after: Option<&str>,
        limit: usize,
    ) -> ApiResult<(Vec<PointsTransaction>, Option<String>)> {
        // A range of the writes' ids (their first entries'), in order,
        // read without an index however long the ledger. A record id's key
        // cannot be a parameter: the cursor, an id this export read, is
        // written into the text once it is checked to be one.
        let range = match after {
            None => "..".to_string(),
            Some(after) if after.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                format!("⟨{after}⟩>..")
            }
            Some(after) => {
                return Err(ApiError::invalid(format!(
                    "`{after}` is not a ledger entry's id"
                )));
            }
        };
        let writes: Vec<Value> = first(
            self.db
                .query(format!(
                    "{}:{range} WHERE company = $company LIMIT $limit",
                    select_writes!()
                ))
                .bind(("company", company.to_string()))
                .bind(("limit", limit as i64)),
        )
        .await?;
        let next = (writes.len() == limit)
            .then(|| {
                writes
                    .last()
                    .and_then(|w| w["entry_id"].as_str())
                    .map(str::to_string)
            })
            .flatten();
        let mut entries = Vec::new();
        for write in writes {
            let written: Vec<PointsTransaction> = entries_of(write)?;
            entries.extend(
                written
                    .into_iter()
                    .filter(|entry| period.holds(entry.created_at)),
            );
        }
        Ok((entries, next))
    }

    /// Every ledger entry of a Customer's balance of `kind`, oldest first.
    pub async fn ledger_history(
        &self,
        company: &str,
        customer_id: &str,
        kind: PointsKind,
    ) -> ApiResult<Vec<PointsTransaction>> {
        let writes: Vec<Value> = first(
            self.db
                .query(concat!(select_writes!(), " WHERE company = $company AND customer_id = $customer AND kind = $kind ORDER BY entry_id"))
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("kind", kind.name())),
        )
        .await?;
        flatten(writes)
    }

    /// The ledger entries written for the cart `cart_id` (what it earned and
    /// redeemed), by campaign.
    pub async fn cart_ledger(&self, company: &str, cart_id: &str) -> ApiResult<Vec<LedgerEntry>> {
        let writes: Vec<Value> = first(
            self.db
                .query(concat!(
                    select_writes!(),
                    " WHERE company = $company AND cart_id = $cart ORDER BY entry_id"
                ))
                .bind(("company", company.to_string()))
                .bind(("cart", cart_id.to_string())),
        )
        .await?;
        let mut entries: Vec<LedgerEntry> = flatten(writes)?;
        // Stable: entries of one campaign stay in the order written.
        entries.sort_by_key(|entry| entry.rule_id);
        Ok(entries)
    }

    /// The balances (Company, Customer, kind) with credits expiring by
    /// `until` that the last run (`since`) did not see: expiring after its
    /// instant, or written after its last entry. A write whose credits expire
    /// both before `since` and after `until` is found too; replaying its
    /// balance then finds nothing to expire.
    pub async fn expiring_balances(
        &self,
        since: &ExpiryWatermark,
        until: Timestamp,
    ) -> ApiResult<Vec<(String, String, PointsKind)>> {
        first_rows(self.db
                .query("SELECT company, customer_id, kind FROM ledger_write WHERE expires_from != NONE AND expires_from <= $until AND (expires_until > $since OR entry_id > $last_entry) GROUP BY company, customer_id, kind")
                .bind(("since", since.until.map(|t| t.to_string()).unwrap_or_default()))
                .bind(("last_entry", since.last_entry.clone().unwrap_or_default()))
                .bind(("until", until.to_string())), &["company", "customer_id", "kind"]).await
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

    /// The first entry id of the newest stored write: a write's record id is
    /// its `entry_id`, time-ordered, so this reads the table's last key.
    pub async fn newest_entry_id(&self) -> ApiResult<Option<String>> {
        let ids: Vec<String> = first(
            self.db
                .query("SELECT VALUE entry_id FROM ledger_write ORDER BY id DESC LIMIT 1"),
        )
        .await?;
        Ok(ids.into_iter().next())
    }

    /// Records how far expiry ran (never moving it backwards). It writes no
    /// Customer's state: the Customers kept in memory stay kept (expiry runs
    /// every minute, and each run would otherwise make every till read its
    /// Customer again).
    pub async fn set_expiry_watermark(&self, watermark: &ExpiryWatermark) -> ApiResult<()> {
        crate::storage::execute(
            self.db
                .query_keeping_customers(
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

    /// The sum of a Customer's ledger entries of `kind`, added up from the
    /// entries themselves (to check the cached balance).
    pub async fn ledger_sum(
        &self,
        company: &str,
        customer_id: &str,
        kind: PointsKind,
    ) -> ApiResult<i64> {
        let sum: Option<i64> = first(
            self.db
                .query("RETURN math::sum((SELECT VALUE math::sum(entries.points) FROM ledger_write WHERE company = $company AND customer_id = $customer AND kind = $kind))")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("kind", kind.name())),
        )
        .await?;
        Ok(sum.unwrap_or(0))
    }
}

#[cfg(test)]
mod tests;
