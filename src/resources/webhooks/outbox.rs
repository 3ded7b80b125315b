//! The outbox: one record per event and endpoint waiting to be delivered,
//! written with the change it reports and keyed `[company, endpoint,
//! event]`, so that the delivery worker ([`super::deliver`]) reads an
//! endpoint's waiting deliveries in event order as a range of ids, with no
//! index to keep and nothing to sort, however many were delivered before.
//! A delivery leaves the outbox for the deliveries' record
//! ([`super::history`]) once it is delivered or given up.

use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiResult;
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

    /// Its delivery to the endpoint `endpoint_id` of `company`, as a record
    /// of the outbox, due at once: no more than a first try needs (what
    /// tries add is absent until then).
    pub fn delivery_row(&self, company: &str, endpoint_id: &str) -> Value {
        json!({
            "id": [company, endpoint_id, self.id],
            "type": self.event_type,
            "order_key": self.order_key,
            "body": self.body,
            "created_at": self.created_at,
        })
    }
}

/// Where a `points.changed` body holds the balance its transaction stored
/// beside it (`balance_after`), put in by [`with_balance`].
pub(crate) const BALANCE_SLOT: &str = "\"balance_after\":null";

/// `body` with the balance `balance` in its [`BALANCE_SLOT`].
pub(crate) fn with_balance(body: &str, balance: i64) -> String {
    body.replacen(BALANCE_SLOT, &format!("\"balance_after\":{balance}"), 1)
}

/// A delivery waiting in the outbox, as the worker reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingDelivery {
    /// The event.
    pub event_id: String,
    /// The event's type.
    pub event_type: String,
    /// The key its order is kept within.
    pub order_key: String,
    /// What every try sends.
    pub body: String,
    /// When the event happened.
    pub created_at: Timestamp,
    /// Tries made.
    pub attempts: i64,
    /// Tries stop 24 hours after this (the event, or its last "send again").
    pub tries_since: Timestamp,
    /// When it is due.
    pub next_attempt_at: Timestamp,
}

/// What waits in the outbox for one endpoint, as the metrics read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointBacklog {
    /// The endpoint's Company.
    pub company: String,
    /// The endpoint.
    pub endpoint: String,
    /// Deliveries waiting (up to the cap the read was given).
    pub pending: i64,
    /// Since when the first of them is tried; `None` when none waits.
    pub waiting_since: Option<Timestamp>,
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

impl Attempted {
    /// Where the delivery stands after this try, as stored.
    fn state(&self) -> &'static str {
        match (self.delivered, self.next_attempt_at) {
            (true, _) => "delivered",
            (false, Some(_)) => "pending",
            (false, None) => "failed",
        }
    }
}

/// SurrealQL writing the outbox records of `$webhook_deliveries` (from
/// [`crate::resources::webhooks::emit::Subscriptions::rows`]) in the
/// transaction of the change they report; nothing when there are none.
pub(crate) const WRITE_WEBHOOKS: &str = "
    IF $webhook_deliveries {
        INSERT INTO webhook_outbox $webhook_deliveries RETURN NONE;
    };";

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// outbox records the batch's events wrote ([`crate::resources::webhooks::emit`]).
pub(crate) const STORE_WEBHOOK_DELIVERIES: BatchPart =
    insert_rows!("webhook_deliveries" into "webhook_outbox");

/// The ids of the deliveries of `$company`'s endpoint `$endpoint`, from the
/// first: a range of the outbox's or the deliveries' record.
pub(crate) fn endpoint_range(table: &str) -> String {
    // No event id is empty, and an object sorts after every string.
    format!("{table}:[$company, $endpoint, '']..[$company, $endpoint, {{}}]")
}

/// A field of a stored delivery read as a timestamp.
pub(crate) fn timestamp(row: &Value, field: &str) -> Option<Timestamp> {
    row.get(field)?.as_str()?.parse().ok()
}

/// A record of the outbox read back for the worker; tries not made yet
/// are absent.
fn pending_from(row: &Value) -> Option<PendingDelivery> {
    let text = |field: &str| row.get(field)?.as_str().map(str::to_string);
    let created_at = timestamp(row, "created_at")?;
    let body = text("body")?;
    Some(PendingDelivery {
        event_id: text("event_id")?,
        event_type: text("type")?,
        order_key: text("order_key")?,
        body: match row.get("balance_after").and_then(Value::as_i64) {
            Some(balance) => with_balance(&body, balance),
            None => body,
        },
        attempts: row.get("attempts").and_then(Value::as_i64).unwrap_or(0),
        tries_since: timestamp(row, "tries_since").unwrap_or(created_at),
        next_attempt_at: timestamp(row, "next_attempt_at").unwrap_or(created_at),
        created_at,
    })
}

/// The record of `delivery` once `attempted` settled it (delivered, or
/// given up), for the deliveries' record of `company`'s `endpoint`.
fn settled_row(
    company: &str,
    endpoint: &str,
    delivery: &PendingDelivery,
    attempted: &Attempted,
) -> Value {
    let mut row = json!({
        "id": [company, endpoint, delivery.event_id],
        "type": delivery.event_type,
        "order_key": delivery.order_key,
        "body": delivery.body,
        "created_at": delivery.created_at,
        "state": attempted.state(),
        "attempts": delivery.attempts + 1,
        "last_attempt_at": attempted.at,
    });
    if let Some(status) = attempted.status {
        row["last_status"] = json!(status);
    }
    if let Some(error) = &attempted.error {
        row["last_error"] = json!(error);
    }
    if attempted.delivered {
        row["delivered_at"] = json!(attempted.at);
    }
    row
}

/// What `attempted` changes of `delivery`, still waiting, in the outbox:
/// absent fields become NONE.
fn retried_row(delivery: &PendingDelivery, attempted: &Attempted) -> Value {
    let mut row = json!({
        "event": delivery.event_id,
        "attempts": delivery.attempts + 1,
        "at": attempted.at,
        "next": attempted.next_attempt_at,
        "tries_since": delivery.tries_since,
    });
    if let Some(status) = attempted.status {
        row["status"] = json!(status);
    }
    if let Some(error) = &attempted.error {
        row["error"] = json!(error);
    }
    row
}

impl Store {
    /// Puts `rows` (made by [`OutgoingEvent::delivery_row`]) in the outbox.
    pub async fn insert_webhook_deliveries(&self, rows: Vec<Value>) -> ApiResult<()> {
        execute(
            self.db
                .query_keeping_customers("INSERT INTO webhook_outbox $rows RETURN NONE")
                .bind(("rows", rows)),
        )
        .await
    }

    /// The oldest `limit` deliveries waiting for the endpoint `endpoint` of
    /// `company`, in the order of their events.
    pub async fn pending_webhook_deliveries(
        &self,
        company: &str,
        endpoint: &str,
        limit: usize,
    ) -> ApiResult<Vec<PendingDelivery>> {
        let query = format!(
            "SELECT record::id(id)[2] AS event_id, * OMIT id FROM {} LIMIT $limit",
            endpoint_range("webhook_outbox")
        );
        let rows: Vec<Value> = first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("endpoint", endpoint.to_string()))
                .bind(("limit", limit as i64)),
        )
        .await?;
        Ok(rows.iter().filter_map(pending_from).collect())
    }

    /// What waits in the outbox for each endpoint: how many deliveries (at
    /// most `cap`, so that a scrape of a receiver down for days reads a
    /// bounded slice) and since when the first of them is tried (its
    /// event, or its last "send again").
    pub async fn webhook_outbox_backlog(&self, cap: usize) -> ApiResult<Vec<EndpointBacklog>> {
        let mut backlogs = Vec::new();
        for (company, endpoint) in self.webhook_endpoint_keys().await? {
            let range = endpoint_range("webhook_outbox");
            let query = format!(
                "RETURN {{
                     first: (SELECT created_at, tries_since FROM {range} LIMIT 1)[0],
                     pending: array::len(SELECT VALUE id FROM {range} LIMIT $cap),
                 }}"
            );
            let row: Option<Value> = first(
                self.db
                    .query(query)
                    .bind(("company", company.clone()))
                    .bind(("endpoint", endpoint.clone()))
                    .bind(("cap", cap as i64)),
            )
            .await?;
            let row = row.unwrap_or_default();
            let first = &row["first"];
            backlogs.push(EndpointBacklog {
                pending: row["pending"].as_i64().unwrap_or(0),
                waiting_since: timestamp(first, "tries_since")
                    .or_else(|| timestamp(first, "created_at")),
                company,
                endpoint,
            });
        }
        Ok(backlogs)
    }

    /// Records each of `tried` (a delivery to the endpoint `endpoint` of
    /// `company` and what its try came to), in one transaction: a delivery
    /// delivered or given up leaves the outbox for the deliveries' record,
    /// one to be tried again is told when. Nothing is recorded when the
    /// endpoint was deleted meanwhile (with its deliveries).
    pub async fn record_webhook_attempts(
        &self,
        company: &str,
        endpoint: &str,
        tried: &[(PendingDelivery, Attempted)],
    ) -> ApiResult<()> {
        if tried.is_empty() {
            return Ok(());
        }
        let (retried, settled): (Vec<_>, Vec<_>) = tried
            .iter()
            .partition(|(_, attempted)| attempted.state() == "pending");
        let settled: Vec<Value> = settled
            .iter()
            .map(|(delivery, attempted)| settled_row(company, endpoint, delivery, attempted))
            .collect();
        let retried: Vec<Value> = retried
            .iter()
            .map(|(delivery, attempted)| retried_row(delivery, attempted))
            .collect();
        // The outbox holds no Customer's state: the Customers kept in memory
        // stay (the worker records a round many times a second).
        self.transact(|db| {
            db.query_keeping_customers(
                "BEGIN TRANSACTION;
                 IF record::exists(type::record('webhook_endpoint', [$company, $endpoint])) {
                     IF $settled {
                         DELETE $settled.map(|$row| type::record('webhook_outbox', $row.id)) RETURN NONE;
                         INSERT IGNORE INTO webhook_delivery $settled RETURN NONE;
                     };
                     FOR $row IN $retried {
                         UPDATE type::record('webhook_outbox', [$company, $endpoint, $row.event])
                             SET attempts = $row.attempts, last_attempt_at = $row.at,
                                 last_status = $row.status, last_error = $row.error,
                                 next_attempt_at = $row.next, tries_since = $row.tries_since
                             RETURN NONE;
                     };
                 };
                 COMMIT TRANSACTION;",
            )
            .bind(("company", company.to_string()))
            .bind(("endpoint", endpoint.to_string()))
            .bind(("settled", settled.clone()))
            .bind(("retried", retried.clone()))
        })
        .await?;
        Ok(())
    }
}
