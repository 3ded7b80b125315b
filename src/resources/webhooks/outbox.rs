//! The outbox of deliveries: one record per event and endpoint, written
//! with the change it reports, read by the delivery worker
//! ([`super::deliver`]) and shown to operators.

use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::webhooks::model::WebhookDelivery;
use crate::storage::Store;
use crate::storage::event_transaction::BatchPart;
use crate::storage::event_transaction::insert_rows;
use crate::storage::execute;
use crate::storage::first;

/// An event as it goes out: its id, type, the key its deliveries keep the
/// order of (its Customer's id) and the body every try sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingEvent {
    /// `evt_...`, time-ordered.
    pub id: String,
    /// Its type.
    pub event_type: String,
    /// Deliveries of one key to one endpoint go in the order of their ids.
    pub order_key: String,
    /// When it happened.
    pub created_at: Timestamp,
    /// `{"id", "type", "company", "created_at", "data"}`, as sent.
    pub body: String,
}

impl OutgoingEvent {
    /// The event `id` of `type` of `company` at `at`, about `data` (in the
    /// shape the API answers for it), kept in order with the other events
    /// of `customer` when it has one.
    pub fn new(
        id: String,
        company: &str,
        event_type: &str,
        customer: Option<&str>,
        data: Value,
        at: Timestamp,
    ) -> OutgoingEvent {
        let body = json!({
            "id": id,
            "type": event_type,
            "company": company,
            "created_at": at,
            "data": data,
        })
        .to_string();
        OutgoingEvent {
            order_key: customer.map_or_else(|| id.clone(), str::to_string),
            id,
            event_type: event_type.to_string(),
            created_at: at,
            body,
        }
    }

    /// Its delivery to the endpoint `endpoint_id` of `company`, as a row of
    /// the outbox, due at once.
    pub fn delivery_row(&self, company: &str, endpoint_id: &str) -> Value {
        json!({
            "id": [company, endpoint_id, self.id],
            "company": company,
            "endpoint_id": endpoint_id,
            "event_id": self.id,
            "type": self.event_type,
            "order_key": self.order_key,
            "body": self.body,
            "state": "pending",
            "attempts": 0,
            "created_at": self.created_at,
            "tries_since": self.created_at,
            "next_attempt_at": self.created_at,
        })
    }
}

/// A delivery waiting for a try, as the worker reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingDelivery {
    /// Its Company.
    pub company: String,
    /// The endpoint.
    pub endpoint_id: String,
    /// The event.
    pub event_id: String,
    /// The event's type.
    pub event_type: String,
    /// The key its order is kept within.
    pub order_key: String,
    /// What every try sends.
    pub body: String,
    /// Tries made.
    pub attempts: i64,
    /// Tries stop 24 hours after this.
    pub tries_since: Timestamp,
    /// When it is due.
    pub next_attempt_at: Timestamp,
}

/// What one try of a delivery came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempted {
    /// When it was made.
    pub at: Timestamp,
    /// The receiver's status, when it answered.
    pub status: Option<u16>,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// Delivered (a 2xx).
    pub delivered: bool,
    /// When to try again; `None` when it is delivered or given up.
    pub next_attempt_at: Option<Timestamp>,
}

/// SurrealQL writing the outbox rows of `$webhook_deliveries` (from
/// [`crate::resources::webhooks::emit::Subscriptions::rows`]) in the
/// transaction of the change they report; nothing when there are none.
pub(crate) const WRITE_WEBHOOKS: &str = "
    IF $webhook_deliveries {
        INSERT INTO webhook_delivery $webhook_deliveries RETURN NONE;
    };";

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// outbox rows the batch's events wrote ([`crate::resources::webhooks::emit`]).
pub(crate) const STORE_WEBHOOK_DELIVERIES: BatchPart =
    insert_rows!("webhook_deliveries" into "webhook_delivery");

/// A field of a stored delivery read as a timestamp.
fn timestamp(row: &Value, field: &str) -> Option<Timestamp> {
    row.get(field)?.as_str()?.parse().ok()
}

/// A stored delivery read back for the worker.
fn pending_from(row: &Value) -> Option<PendingDelivery> {
    let text = |field: &str| row.get(field)?.as_str().map(str::to_string);
    Some(PendingDelivery {
        company: text("company")?,
        endpoint_id: text("endpoint_id")?,
        event_id: text("event_id")?,
        event_type: text("type")?,
        order_key: text("order_key")?,
        body: text("body")?,
        attempts: row.get("attempts")?.as_i64()?,
        tries_since: timestamp(row, "tries_since")?,
        next_attempt_at: timestamp(row, "next_attempt_at")?,
    })
}

/// A stored delivery as operators see it.
fn delivery_from(mut row: Value) -> ApiResult<WebhookDelivery> {
    if let Some(object) = row.as_object_mut() {
        for field in [
            "id",
            "company",
            "endpoint_id",
            "order_key",
            "body",
            "tries_since",
        ] {
            object.remove(field);
        }
        object.retain(|_, value| !value.is_null());
    }
    serde_json::from_value(row)
        .map_err(|e| ApiError::internal(format!("stored webhook delivery unreadable: {e}")))
}

/// The record of the delivery of `event` to `endpoint` of `company`.
const DELIVERY: &str = "type::record('webhook_delivery', [$company, $endpoint, $event])";

impl Store {
    /// Puts `rows` (made by [`OutgoingEvent::delivery_row`]) in the outbox.
    pub async fn insert_webhook_deliveries(&self, rows: Vec<Value>) -> ApiResult<()> {
        execute(
            self.db
                .query("INSERT INTO webhook_delivery $rows RETURN NONE")
                .bind(("rows", rows)),
        )
        .await
    }

    /// The oldest `limit` pending deliveries, in the order of their events.
    pub async fn pending_webhook_deliveries(
        &self,
        limit: usize,
    ) -> ApiResult<Vec<PendingDelivery>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT * FROM webhook_delivery WHERE state = 'pending' ORDER BY event_id LIMIT $limit")
                .bind(("limit", limit as i64)),
        )
        .await?;
        Ok(rows.iter().filter_map(pending_from).collect())
    }

    /// Records each of `tried` (a delivery and what its try came to) while
    /// the delivery is still pending (a try that lost a race changes
    /// nothing), in one transaction.
    pub async fn record_webhook_attempts(
        &self,
        tried: &[(PendingDelivery, Attempted)],
    ) -> ApiResult<()> {
        if tried.is_empty() {
            return Ok(());
        }
        let rows: Vec<Value> = tried
            .iter()
            .map(|(delivery, attempted)| {
                let state = match (attempted.delivered, attempted.next_attempt_at) {
                    (true, _) => "delivered",
                    (false, Some(_)) => "pending",
                    (false, None) => "failed",
                };
                let mut row = json!({
                    "key": [delivery.company, delivery.endpoint_id, delivery.event_id],
                    "state": state,
                    "at": attempted.at,
                });
                // What is absent is NONE, as the optional fields take it.
                let optional = [
                    ("status", attempted.status.map(|status| json!(status))),
                    ("error", attempted.error.as_ref().map(|error| json!(error))),
                    ("next", attempted.next_attempt_at.map(|at| json!(at))),
                    (
                        "delivered",
                        attempted.delivered.then(|| json!(attempted.at)),
                    ),
                ];
                for (field, value) in optional {
                    if let Some(value) = value {
                        row[field] = value;
                    }
                }
                row
            })
            .collect();
        execute(
            self.db
                .query(
                    "BEGIN TRANSACTION;
                     FOR $row IN $rows {
                         UPDATE type::record('webhook_delivery', $row.key)
                             SET state = $row.state, attempts += 1, last_attempt_at = $row.at,
                                 last_status = $row.status, last_error = $row.error,
                                 next_attempt_at = $row.next, delivered_at = $row.delivered
                             WHERE state = 'pending' RETURN NONE;
                     };
                     COMMIT TRANSACTION;",
                )
                .bind(("rows", rows)),
        )
        .await
    }

    /// The latest `limit` deliveries to the endpoint `endpoint` of
    /// `company`, newest first.
    pub async fn webhook_deliveries(
        &self,
        company: &str,
        endpoint: &str,
        limit: usize,
    ) -> ApiResult<Vec<WebhookDelivery>> {
        let rows: Vec<Value> = first(
            self.db
                .query(
                    "SELECT * FROM webhook_delivery WHERE company = $company AND endpoint_id = $endpoint
                     ORDER BY event_id DESC LIMIT $limit",
                )
                .bind(("company", company.to_string()))
                .bind(("endpoint", endpoint.to_string()))
                .bind(("limit", limit as i64)),
        )
        .await?;
        rows.into_iter().map(delivery_from).collect()
    }

    /// The delivery of `event` to `endpoint` of `company`.
    pub async fn webhook_delivery(
        &self,
        company: &str,
        endpoint: &str,
        event: &str,
    ) -> ApiResult<Option<WebhookDelivery>> {
        let row: Option<Value> = first(
            self.db
                .query(format!("RETURN {DELIVERY}.*"))
                .bind(("company", company.to_string()))
                .bind(("endpoint", endpoint.to_string()))
                .bind(("event", event.to_string())),
        )
        .await?;
        row.map(delivery_from).transpose()
    }

    /// Sends the delivery of `event` to `endpoint` of `company` again from
    /// `now`, whatever it came to; false when there is none.
    pub async fn resend_webhook_delivery(
        &self,
        company: &str,
        endpoint: &str,
        event: &str,
        now: Timestamp,
    ) -> ApiResult<bool> {
        let query = format!(
            "UPDATE {DELIVERY} SET state = 'pending', tries_since = $now, next_attempt_at = $now,
                 delivered_at = NONE
             RETURN VALUE true"
        );
        let updated: Vec<Value> = first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("endpoint", endpoint.to_string()))
                .bind(("event", event.to_string()))
                .bind(("now", now.to_string())),
        )
        .await?;
        Ok(!updated.is_empty())
    }
}
