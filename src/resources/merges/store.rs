//! Several Customers changed in one transaction: merges and unmerges.

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::associations::model::Association;
use crate::resources::associations::model::pair_key;
use crate::resources::associations::store::MARK_ASSOCIATED;
use crate::resources::carts::store::RECOUNT_TOTALS;
use crate::resources::customers::model::Customer;
use crate::resources::customers::store::StoredCustomer;
use crate::resources::customers::store::document;
use crate::resources::merges::holdings::merge_parts;
use crate::resources::merges::model::MergeRecord;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::store::ledger::APPEND_LEDGER;
use crate::resources::webhooks::outbox::WRITE_WEBHOOKS;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::execute;
use crate::storage::first;

/// A Customer to write: a new one (`before` is `None`) or a replacement of the
/// version read as `before`.
#[derive(Debug, Clone)]
pub struct CustomerWrite<'a> {
    /// The version read, whose revision must still be current.
    pub before: Option<&'a StoredCustomer>,
    /// The version to store.
    pub after: &'a Customer,
}

/// An identifier claim changing owner.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimMove {
    /// `code`, `email`, `phone` or `card`.
    pub kind: String,
    /// The identifier.
    pub value: String,
    /// Its current owner.
    pub from: String,
    /// Its new owner.
    pub to: String,
}

/// Everything one merge or unmerge changes, applied in one transaction.
#[derive(Debug, Clone, Default)]
pub struct CustomerChanges<'a> {
    /// Customers to create or replace.
    pub customers: Vec<CustomerWrite<'a>>,
    /// Identifier claims to move.
    pub claim_moves: Vec<ClaimMove>,
    /// Associations (by pair) to delete.
    pub association_deletes: Vec<(String, String)>,
    /// Associations to create; the pair must be free.
    pub association_creates: Vec<Association>,
    /// `(customer id, number of associations it had when read)`: refuses if it changed.
    pub association_guards: Vec<(String, usize)>,
    /// A merge to record; refuses if the Customer is already merged.
    pub merge_create: Option<MergeRecord>,
    /// The merged Customer whose merge record is removed.
    pub merge_delete: Option<String>,
    /// Carts changing owner: (cart id, from, to).
    pub cart_moves: Vec<(String, String, String)>,
    /// Points ledger entries to append; each moves its Customer's balance.
    pub ledger: Vec<LedgerEntry>,
    /// Customers whose purchase totals are recomputed from their carts.
    pub restat: Vec<String>,
    /// What Customers hold changing owner: each kind's moves, in the order
    /// of [`merge_parts`].
    pub holdings: Vec<Vec<Value>>,
    /// The outbox rows of the webhook events the changes report.
    pub webhooks: Vec<Value>,
}

/// Each kind's moves of what Customers hold, `$holdings[i]` for the i-th of
/// [`merge_parts`].
fn holding_moves(stale: &str) -> String {
    merge_parts()
        .enumerate()
        .map(|(i, part)| {
            format!(
                "FOR $move IN $holdings[{i}] {{ {} }};\n",
                (part.statements)(stale)
            )
        })
        .collect()
}

fn from_document(mut document: Value) -> ApiResult<MergeRecord> {
    if let Some(object) = document.as_object_mut() {
        object.remove("id");
        object.remove("company");
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored merge unreadable: {e}")))
}

impl Store {
    /// Applies `changes` atomically. Refuses with `concurrent_modification` when
    /// anything read to plan them changed in between, so the caller re-plans.
    pub async fn apply_customer_changes(
        &self,
        company: &str,
        changes: &CustomerChanges<'_>,
    ) -> ApiResult<()> {
        let stale = format!(
            "THROW '{REFUSED}{}|a Customer changed while the request ran; retry';",
            ErrorCode::ConcurrentModification.code()
        );
        let mut writes = Vec::new();
        for write in &changes.customers {
            let revision = write.before.map_or(0, |b| b.revision);
            writes.push(json!({
                "id": write.after.id,
                // Revisions start at 1: 0 stands for "must not exist yet".
                "expected": write.before.map_or(0, |b| b.revision),
                "doc": document(company, write.after, revision + 1)?,
            }));
        }
        let deletes: Vec<Value> = changes
            .association_deletes
            .iter()
            .map(|(a, b)| {
                let (low, high) = pair_key(a, b);
                json!([low, high])
            })
            .collect();
        let mut creates = Vec::new();
        for association in &changes.association_creates {
            let (low, high) = pair_key(&association.customer_id, &association.associate_id);
            let mut doc = serde_json::to_value(association).map_err(ApiError::internal)?;
            doc["company"] = Value::String(company.to_string());
            creates.push(json!({"pair": [low, high], "doc": doc}));
        }
        let guards: Vec<Value> = changes
            .association_guards
            .iter()
            .map(|(id, count)| json!({"id": id, "count": count}))
            .collect();
        let merge_create = match &changes.merge_create {
            Some(record) => {
                let mut doc = serde_json::to_value(record).map_err(ApiError::internal)?;
                doc["company"] = Value::String(company.to_string());
                doc
            }
            None => Value::Null,
        };
        let query = format!(
            "BEGIN TRANSACTION;
             FOR $guard IN $guards {{
                 IF count(SELECT * FROM association WHERE company = $company AND (customer_id = $guard.id OR associate_id = $guard.id)) != $guard.count {{ {stale} }};
             }};
             FOR $write IN $writes {{
                 LET $key = type::record('customer', $write.id);
                 LET $current = (IF $key.company == $company {{ $key.revision }}) ?? 0;
                 IF $current != $write.expected {{ {stale} }};
                 IF $write.expected == 0 {{ CREATE $key CONTENT $write.doc RETURN NONE; }}
                 ELSE {{ UPDATE $key CONTENT $write.doc RETURN NONE; }};
             }};
             FOR $move IN $claim_moves {{
                 LET $key = type::record('customer_claim', [$company, $move.kind, $move.value]);
                 IF ($key.customer) != $move.from {{ {stale} }};
                 UPDATE $key SET customer = $move.to RETURN NONE;
             }};
             FOR $pair IN $deletes {{
                 DELETE type::record('association', [$company, $pair[0], $pair[1]]);
             }};
             FOR $create IN $creates {{
                 LET $key = type::record('association', [$company, $create.pair[0], $create.pair[1]]);
                 IF record::exists($key) {{ {stale} }};
                 CREATE $key CONTENT $create.doc RETURN NONE;
                 LET $low = $create.pair[0];
                 LET $high = $create.pair[1];
                 {MARK_ASSOCIATED}
             }};
             FOR $move IN $cart_moves {{
                 UPDATE type::record('cart', [$company, $move[0]]) SET customer_id = $move[2]
                     WHERE customer_id = $move[1] RETURN NONE;
             }};
             {holding_moves}
             {APPEND_LEDGER}
             FOR $customer IN $restat {{ {RECOUNT_TOTALS} }};
             IF $merge_create != NULL {{
                 LET $key = type::record('merge', [$company, $merge_create.merged_customer_id]);
                 IF record::exists($key) {{
                     THROW '{REFUSED}{inactive}|the Customer is already merged';
                 }};
                 CREATE $key CONTENT $merge_create RETURN NONE;
             }};
             IF $merge_delete != NULL {{
                 DELETE type::record('merge', [$company, $merge_delete]);
             }};
             {WRITE_WEBHOOKS}
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            inactive = ErrorCode::CustomerInactive.code(),
            holding_moves = holding_moves(&stale),
        );
        let claim_moves = serde_json::to_value(&changes.claim_moves).map_err(ApiError::internal)?;
        let cart_moves: Vec<Value> = changes
            .cart_moves
            .iter()
            .map(|(id, from, to)| json!([id, from, to]))
            .collect();
        let ledger = self.ledger_write(company, &changes.ledger);
        let holdings: Vec<Value> = merge_parts()
            .enumerate()
            .map(|(i, _)| Value::Array(changes.holdings.get(i).cloned().unwrap_or_default()))
            .collect();
        let merge_delete = changes
            .merge_delete
            .clone()
            .map_or(Value::Null, Value::String);
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("guards", guards.clone()))
                .bind(("writes", writes.clone()))
                .bind(("claim_moves", claim_moves.clone()))
                .bind(("deletes", deletes.clone()))
                .bind(("creates", creates.clone()))
                .bind(("merge_create", merge_create.clone()))
                .bind(("merge_delete", merge_delete.clone()))
                .bind(("cart_moves", cart_moves.clone()))
                .bind_ledger(&ledger)
                .bind(("restat", changes.restat.clone()))
                .bind(("holdings", holdings.clone()))
                .bind(("webhook_deliveries", changes.webhooks.clone()))
        })
        .await?;
        Ok(())
    }

    /// The record of the merge of `merged_id`, if it is merged.
    pub async fn merge_record(
        &self,
        company: &str,
        merged_id: &str,
    ) -> ApiResult<Option<MergeRecord>> {
        let document: Option<Value> = first(
            self.db
                .query("RETURN type::record('merge', [$company, $id]).*")
                .bind(("company", company.to_string()))
                .bind(("id", merged_id.to_string())),
        )
        .await?;
        document.map(from_document).transpose()
    }

    /// The Customers currently merged into `target_id`.
    pub async fn merged_into(&self, company: &str, target_id: &str) -> ApiResult<Vec<String>> {
        first(self
            .db
            .query("SELECT VALUE merged_customer_id FROM merge WHERE company = $company AND target_customer_id = $id")
            .bind(("company", company.to_string()))
            .bind(("id", target_id.to_string()))).await
    }

    /// Deletes every merge record naming `customer_id` on either side (its
    /// personal data, kept for undoing, goes with the Customer).
    pub async fn delete_merge_records_of(&self, company: &str, customer_id: &str) -> ApiResult<()> {
        execute(self.db
            .query(
                "DELETE merge WHERE company = $company AND (merged_customer_id = $id OR target_customer_id = $id)",
            )
            .bind(("company", company.to_string()))
            .bind(("id", customer_id.to_string()))).await?;
        Ok(())
    }
}
