//! Repository of Custom Events and of the points triggers earn.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::events::model::CustomEvent;
use crate::resources::points::store::ledger::LedgerEntry;
use crate::resources::points::store::ledger::ledger_documents;
use crate::storage::Store;
use crate::storage::first;

fn from_document(mut document: Value) -> ApiResult<CustomEvent> {
    if let Some(object) = document.as_object_mut() {
        object.remove("id");
        object.remove("company");
        if let Some(id) = object.remove("eid") {
            object.insert("id".into(), id);
        }
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored event unreadable: {e}")))
}

impl Store {
    /// Records a Custom Event (when given) of `customer_id`, its ledger
    /// entries and its Instant Win draws in one transaction, possibly shared
    /// with other events ([`crate::storage::group_commit`]).
    pub async fn insert_event(
        &self,
        company: &str,
        customer_id: &str,
        event: Option<&CustomEvent>,
        ledger: &[LedgerEntry],
        draw_write: &Value,
    ) -> ApiResult<()> {
        let doc = match event {
            Some(event) => {
                let mut doc = serde_json::to_value(event).map_err(ApiError::internal)?;
                if let Some(object) = doc.as_object_mut() {
                    let id = object.remove("id").unwrap_or(Value::Null);
                    object.insert("eid".into(), id);
                    object.insert("company".into(), Value::String(company.to_string()));
                }
                doc
            }
            None => Value::Null,
        };
        let written = ledger_documents(&self.ledger_clock, company, ledger);
        self.record_event(
            customer_id,
            json!({
                "company": company,
                "customer": Value::Null,
                "cart": Value::Null,
                "event": doc,
                "ledger": written.records,
                "balances": written.balances,
                "draw_write": draw_write,
            }),
        )
        .await
    }

    /// The Custom Event `id` of `company`.
    pub async fn custom_event(&self, company: &str, id: &str) -> ApiResult<Option<CustomEvent>> {
        let document: Option<Value> = first(
            self.db
                .query("SELECT * FROM ONLY type::record('custom_event', [$company, $id])")
                .bind(("company", company.to_string()))
                .bind(("id", id.to_string())),
        )
        .await?;
        document.map(from_document).transpose()
    }

    /// Custom Events of `company`, optionally of one Customer and type, in id order.
    pub async fn custom_events(
        &self,
        company: &str,
        customer_id: Option<&str>,
        kind: Option<&str>,
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<CustomEvent>> {
        let mut conditions = vec!["company = $company"];
        if customer_id.is_some() {
            conditions.push("customer_id = $customer");
        }
        if kind.is_some() {
            conditions.push("type = $kind");
        }
        if starting_after.is_some() {
            conditions.push("eid > $after");
        }
        let query = format!(
            "SELECT * FROM custom_event WHERE {} ORDER BY eid LIMIT $limit",
            conditions.join(" AND ")
        );
        let documents: Vec<Value> = first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.unwrap_or_default().to_string()))
                .bind(("kind", kind.unwrap_or_default().to_string()))
                .bind(("after", starting_after.unwrap_or_default().to_string()))
                .bind(("limit", limit as i64)),
        )
        .await?;
        documents.into_iter().map(from_document).collect()
    }
}
