//! Repository of Custom Events and of the points triggers earn.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::http::idempotency::answer::written_answer;
use crate::pipeline::occurrence::Earned;
use crate::resources::events::model::CustomEvent;
use crate::storage::Store;
use crate::storage::event_transaction::BatchPart;
use crate::storage::event_transaction::insert_rows;
use crate::storage::event_transaction::keyed_row;
use crate::storage::first;
use crate::storage::page_query::PageQuery;

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

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// Custom Events of the batch (`$events`, made by [`event_row`]).
pub(crate) const STORE_EVENTS: BatchPart = insert_rows!("events" into "custom_event");

/// The row [`STORE_EVENTS`] writes for `event` (the stored Custom Event of
/// an event's write, or null) of `company`.
pub(crate) fn event_row(company: &str, event: &Value) -> Option<Value> {
    keyed_row(company, event, "eid")
}

impl Store {
    /// Records a Custom Event (when given) of `customer_id` and what its
    /// campaigns earned (points, Instant Win draws, Vouchers) in one
    /// transaction, possibly shared
    /// with other events ([`crate::storage::group_commit`]).
    pub async fn insert_event(
        &self,
        company: &str,
        customer_id: &str,
        event: Option<&CustomEvent>,
        earned: &Earned<'_>,
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
        let written = self.ledger_write(company, earned.ledger);
        let mut write = json!({
            "company": company,
            "customer": Value::Null,
            "cart": Value::Null,
            "event": doc,
            "ledger": written.records,
            "balances": written.balances,
            "ledger_webhooks": written.webhooks,
            "draw_write": earned.draw_write,
            "answer": written_answer(),
        });
        earned.put_parts(&mut write);
        self.record_event(customer_id, write).await
    }

    /// The Custom Event `id` of `company`.
    pub async fn custom_event(&self, company: &str, id: &str) -> ApiResult<Option<CustomEvent>> {
        let document: Option<Value> = first(
            self.db
                .query("RETURN type::record('custom_event', [$company, $id]).*")
                .bind(("company", company.to_string()))
                .bind(("id", id.to_string())),
        )
        .await?;
        document.map(from_document).transpose()
    }

    /// Up to `limit` Custom Events of `company` after the one `after`, in
    /// id order (an export's pages: [`Store::records_after`]).
    pub async fn custom_events_after(
        &self,
        company: &str,
        after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<CustomEvent>> {
        let documents = self
            .records_after("custom_event", company, after, limit)
            .await?;
        documents.into_iter().map(from_document).collect()
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
        let documents = PageQuery::new("SELECT * FROM custom_event", "eid")
            .filter_if("customer_id = $customer", "customer", customer_id)
            .filter_if("type = $kind", "kind", kind)
            .fetch(self, company, starting_after, limit)
            .await?;
        documents.into_iter().map(from_document).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: &str, customer: &str) -> CustomEvent {
        serde_json::from_value(json!({
            "id": id, "customer_id": customer, "type": "visit", "data": {},
            "date": "2026-05-04T09:30:00Z", "points_earned": 0,
            "created_at": "2026-05-04T09:30:00Z",
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn events_of_one_millisecond_page_in_id_order_each_once() {
        let store = Store::connect("mem://", None).await.unwrap();
        let earned = Earned::only(&[]);
        // Ids are the millisecond, then random digits: three of one
        // millisecond, one of the next, another Customer's between them.
        let written = [
            ("evt_019de4a3c000ffffff000000", "x"),
            ("evt_019de4a3c0000000aa000000", "x"),
            ("evt_019de4a3c0017777bb000000", "x"),
            ("evt_019de4a3c00080000c000000", "y"),
            ("evt_019de4a3c0008000cc000000", "x"),
        ];
        for (id, customer) in written {
            store
                .insert_event("c", customer, Some(&event(id, customer)), &earned)
                .await
                .unwrap();
        }
        let mut paged = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = store
                .custom_events("c", Some("x"), None, after.as_deref(), 1)
                .await
                .unwrap();
            let Some(last) = page.last() else {
                break;
            };
            after = Some(last.id.clone());
            paged.extend(page.into_iter().map(|event| event.id));
        }
        assert_eq!(
            paged,
            [
                "evt_019de4a3c0000000aa000000",
                "evt_019de4a3c0008000cc000000",
                "evt_019de4a3c000ffffff000000",
                "evt_019de4a3c0017777bb000000",
            ]
        );
    }
}
