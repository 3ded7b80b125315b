//! The outbox: a group of events ([`super::groups`]) waits to be delivered
//! to an endpoint as one record, written with the change its events report
//! and keyed `[company, endpoint, group]`. The delivery worker
//! ([`super::deliver`]) reads an endpoint's waiting deliveries in event
//! order as a range of ids, with no index to keep and nothing to sort, from
//! where its last round left them (the first group still waiting): not from
//! the endpoint's first key, which would step over every group deleted
//! since the store last compacted. Delivered or given up, events leave
//! the outbox for their group in the deliveries' record ([`super::history`]);
//! what a round writes is made in [`super::round_write`].
//!
//! One record a group, not one an event: each record costs the store a write
//! and a delete of its own, and a cart makes a dozen events.

use serde_json::{Map, Value};

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::webhooks::round_write::{LAST_TRY, RoundWrite};
use crate::storage::Store;
use crate::storage::event_transaction::BatchPart;
use crate::storage::event_transaction::insert_rows;
use crate::storage::execute;
use crate::storage::first;

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
    /// The group it waits in.
    pub group: String,
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
    /// What its last try set (`last_attempt_at`, `last_status`,
    /// `last_error`); empty before the first.
    pub last_try: Map<String, Value>,
}

/// The deliveries a round read, and whether it read as many groups as it
/// asked (more may wait after them).
#[derive(Debug, Clone, Default)]
pub struct WaitingPage {
    /// The deliveries, in the order of their events.
    pub deliveries: Vec<PendingDelivery>,
    /// As many groups as asked were read.
    pub full: bool,
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
    pub(super) fn state(&self) -> &'static str {
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

/// The ids of the groups of `$company`'s endpoint `$endpoint`, from the
/// first: a range of the outbox's or the deliveries' record.
pub(crate) fn endpoint_range(table: &str) -> String {
    // No group id is empty, and an object sorts after every string.
    format!("{table}:[$company, $endpoint, '']..[$company, $endpoint, {{}}]")
}

/// A field of a stored delivery read as a timestamp.
pub(crate) fn timestamp(row: &Value, field: &str) -> Option<Timestamp> {
    row.get(field)?.as_str()?.parse().ok()
}

/// The entry `event` of the group `group` (keyed `order_key`) read back
/// for the worker; tries not made yet are absent.
fn pending_from(group: &str, order_key: &str, event: &Value) -> Option<PendingDelivery> {
    let text = |field: &str| event.get(field)?.as_str().map(str::to_string);
    let created_at = timestamp(event, "created_at")?;
    let body = text("body")?;
    let last_try = LAST_TRY
        .iter()
        .filter_map(|field| Some((field.to_string(), event.get(*field)?.clone())))
        .filter(|(_, value)| !value.is_null())
        .collect();
    Some(PendingDelivery {
        group: group.to_string(),
        event_id: text("event_id")?,
        event_type: text("type")?,
        order_key: order_key.to_string(),
        body: match event.get("balance_after").and_then(Value::as_i64) {
            Some(balance) => with_balance(&body, balance),
            None => body,
        },
        attempts: event.get("attempts").and_then(Value::as_i64).unwrap_or(0),
        tries_since: timestamp(event, "tries_since").unwrap_or(created_at),
        next_attempt_at: timestamp(event, "next_attempt_at").unwrap_or(created_at),
        last_try,
        created_at,
    })
}

/// A group of the outbox (`group`, `order_key`, `events`) read back for
/// the worker, its events in order.
fn pending_from_group(row: &Value) -> Vec<PendingDelivery> {
    let (Some(group), Some(order_key), Some(events)) = (
        row.get("group").and_then(Value::as_str),
        row.get("order_key").and_then(Value::as_str),
        row.get("events").and_then(Value::as_array),
    ) else {
        return Vec::new();
    };
    events
        .iter()
        .filter_map(|event| pending_from(group, order_key, event))
        .collect()
}

impl Store {
    /// Puts `rows` (made by [`super::groups::EventGroup::row`]) in the outbox.
    pub async fn insert_webhook_deliveries(&self, rows: Vec<Value>) -> ApiResult<()> {
        execute(
            self.db
                .query_keeping_customers("INSERT INTO webhook_outbox $rows RETURN NONE")
                .bind(("rows", rows)),
        )
        .await
    }

    /// The deliveries waiting for the endpoint `endpoint` of `company` in
    /// its oldest `groups` groups from the group `from` on (`""`: from the
    /// first), in the order of their events.
    pub async fn pending_webhook_deliveries(
        &self,
        company: &str,
        endpoint: &str,
        from: &str,
        groups: usize,
    ) -> ApiResult<WaitingPage> {
        // From `from`, not from the endpoint's first key: the groups
        // delivered before it are deleted, and a range read from the start
        // steps over every one of them the store still keeps.
        let query = "SELECT record::id(id)[2] AS group, order_key, events
             FROM webhook_outbox:[$company, $endpoint, $from]..[$company, $endpoint, {}]
             LIMIT $limit";
        let rows: Vec<Value> = first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("endpoint", endpoint.to_string()))
                .bind(("from", from.to_string()))
                .bind(("limit", groups as i64)),
        )
        .await?;
        Ok(WaitingPage {
            full: rows.len() >= groups,
            deliveries: rows.iter().flat_map(pending_from_group).collect(),
        })
    }

    /// What waits in the outbox for each endpoint: how many deliveries (in
    /// at most `cap` groups, so that a scrape of a receiver down for days
    /// reads a bounded slice) and since when the first of them is tried
    /// (its event, or its last "send again").
    pub async fn webhook_outbox_backlog(&self, cap: usize) -> ApiResult<Vec<EndpointBacklog>> {
        let mut backlogs = Vec::new();
        for (company, endpoint) in self.webhook_endpoint_keys().await? {
            let range = endpoint_range("webhook_outbox");
            let query = format!(
                "RETURN {{
                     first: (SELECT VALUE events[0] FROM {range} LIMIT 1)[0],
                     pending: math::sum(SELECT VALUE array::len(events) FROM {range} LIMIT $cap),
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
    /// `company` and what its try came to) of the round that read `read`,
    /// in one transaction: a delivery delivered or given up leaves the
    /// outbox for its group in the deliveries' record, one to be tried again
    /// is told when, and a group left with nothing waiting goes. Only the
    /// worker writes a group of the outbox (a "send again" of a settled
    /// event makes a group of its own), so the groups are written as the
    /// round read them, less what it settled. Nothing is recorded when the
    /// endpoint was deleted meanwhile (with its deliveries).
    pub async fn record_webhook_attempts(
        &self,
        company: &str,
        endpoint: &str,
        read: &[PendingDelivery],
        tried: &[(PendingDelivery, Attempted)],
    ) -> ApiResult<()> {
        if tried.is_empty() {
            return Ok(());
        }
        let write = RoundWrite::of(read, tried);
        let kept = RoundWrite::rows(&write.kept, company, endpoint);
        let recorded = RoundWrite::rows(&write.recorded, company, endpoint);
        // The outbox holds no Customer's state: the Customers kept in memory
        // stay (the worker records a round many times a second).
        self.transact(|db| {
            db.query_keeping_customers(
                "BEGIN TRANSACTION;
                 IF record::exists(type::record('webhook_endpoint', [$company, $endpoint])) {
                     IF $emptied {
                         DELETE $emptied.map(|$group| type::record('webhook_outbox', [$company, $endpoint, $group]))
                             RETURN NONE;
                     };
                     IF $kept {
                         INSERT INTO webhook_outbox $kept
                             ON DUPLICATE KEY UPDATE events = $input.events
                             RETURN NONE;
                     };
                     IF $recorded {
                         INSERT INTO webhook_delivery $recorded
                             ON DUPLICATE KEY UPDATE events = array::concat(events ?? [], $input.events)
                             RETURN NONE;
                     };
                 };
                 COMMIT TRANSACTION;",
            )
            .bind(("company", company.to_string()))
            .bind(("endpoint", endpoint.to_string()))
            .bind(("emptied", write.emptied.clone()))
            .bind(("kept", kept.clone()))
            .bind(("recorded", recorded.clone()))
        })
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::resources::webhooks::groups::EventGroup;
    use crate::resources::webhooks::model::{DeliveryState, WebhookEndpoint};
    use crate::resources::webhooks::store::StoredEndpoint;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    /// A store with the endpoint `e` of `c` and one group of three events
    /// of the Customer `x` waiting for it.
    async fn store_with_a_group() -> (Store, Vec<String>) {
        let store = Store::connect("mem://", None).await.unwrap();
        let endpoint = WebhookEndpoint {
            id: "e".into(),
            company: "c".into(),
            url: "http://127.0.0.1:9/".into(),
            events: vec!["*".into()],
            description: None,
            enabled: true,
            created_at: at("2026-12-01T10:00:00Z"),
            updated_at: at("2026-12-01T10:00:00Z"),
        };
        let secret = "s".to_string();
        store
            .insert_webhook_endpoint(&StoredEndpoint { endpoint, secret })
            .await
            .unwrap();
        let events = (0..3)
            .map(|n| {
                (
                    "points.changed",
                    json!({ "n": n }),
                    at("2026-12-01T10:00:00Z"),
                )
            })
            .collect();
        let group = EventGroup::numbered(
            "evt_19ad3c8e2f40a1b7c3e9d2f01".into(),
            || unreachable!("one group"),
            "c",
            Some("x"),
            events,
        )
        .remove(0);
        let ids = group.events.iter().map(|e| e.id.clone()).collect();
        let row = group.row("c", "e", |_| true).unwrap();
        store.insert_webhook_deliveries(vec![row]).await.unwrap();
        (store, ids)
    }

    fn tried(
        delivery: &PendingDelivery,
        delivered: bool,
        now: &str,
    ) -> (PendingDelivery, Attempted) {
        let attempted = Attempted {
            at: at(now),
            status: Some(if delivered { 204 } else { 503 }),
            error: (!delivered).then(|| "answered 503".to_string()),
            delivered,
            next_attempt_at: (!delivered).then(|| at("2026-12-01T10:00:09Z")),
        };
        (delivery.clone(), attempted)
    }

    #[tokio::test]
    async fn a_group_leaves_the_outbox_event_by_event_as_its_events_are_delivered() {
        let (store, ids) = store_with_a_group().await;
        let waiting = store
            .pending_webhook_deliveries("c", "e", "", 10)
            .await
            .unwrap()
            .deliveries;
        let sent: Vec<&str> = waiting.iter().map(|d| d.event_id.as_str()).collect();
        assert_eq!(sent, ids);

        // The first delivered, the second refused: the third waits behind it.
        let round = [
            tried(&waiting[0], true, "2026-12-01T10:00:01Z"),
            tried(&waiting[1], false, "2026-12-01T10:00:02Z"),
        ];
        store
            .record_webhook_attempts("c", "e", &waiting, &round)
            .await
            .unwrap();
        let left = store
            .pending_webhook_deliveries("c", "e", "", 10)
            .await
            .unwrap()
            .deliveries;
        let left_ids: Vec<&str> = left.iter().map(|d| d.event_id.as_str()).collect();
        assert_eq!(left_ids, [ids[1].as_str(), ids[2].as_str()]);
        assert_eq!((left[0].attempts, left[1].attempts), (1, 0));
        assert_eq!(left[0].next_attempt_at, at("2026-12-01T10:00:09Z"));
        let listed = store.webhook_deliveries("c", "e", 10).await.unwrap();
        let states: Vec<(&str, DeliveryState, i64)> = listed
            .iter()
            .map(|d| (d.event_id.as_str(), d.state, d.attempts))
            .collect();
        assert_eq!(
            states,
            [
                (ids[2].as_str(), DeliveryState::Pending, 0),
                (ids[1].as_str(), DeliveryState::Pending, 1),
                (ids[0].as_str(), DeliveryState::Delivered, 1),
            ]
        );
        assert_eq!(listed[1].last_status, Some(503));

        // Both delivered: the group is gone from the outbox, whole in the record.
        let round = [
            tried(&left[0], true, "2026-12-01T10:00:10Z"),
            tried(&left[1], true, "2026-12-01T10:00:11Z"),
        ];
        store
            .record_webhook_attempts("c", "e", &left, &round)
            .await
            .unwrap();
        assert!(
            store
                .pending_webhook_deliveries("c", "e", "", 10)
                .await
                .unwrap()
                .deliveries
                .is_empty()
        );
        let listed = store.webhook_deliveries("c", "e", 10).await.unwrap();
        assert!(listed.iter().all(|d| d.state == DeliveryState::Delivered));
        assert_eq!(listed.len(), 3);
        assert_eq!(listed[1].attempts, 2, "the refused one counts both tries");
        let outbox_rows: Vec<Value> = first(store.db.query("SELECT * FROM webhook_outbox"))
            .await
            .unwrap();
        assert!(outbox_rows.is_empty(), "{outbox_rows:?}");

        // Sent again, the middle one goes back to its group, in its place.
        assert!(
            store
                .resend_webhook_delivery("c", "e", &ids[1], at("2026-12-01T11:00:00Z"))
                .await
                .unwrap()
        );
        let again = store
            .pending_webhook_deliveries("c", "e", "", 10)
            .await
            .unwrap()
            .deliveries;
        assert_eq!(again.len(), 1);
        assert_eq!(
            (again[0].event_id.as_str(), again[0].attempts),
            (ids[1].as_str(), 2)
        );
        assert_eq!(again[0].tries_since, at("2026-12-01T11:00:00Z"));
        let one = store
            .webhook_delivery("c", "e", &ids[1])
            .await
            .unwrap()
            .unwrap();
        assert_eq!(one.state, DeliveryState::Pending);
        let listed = store.webhook_deliveries("c", "e", 10).await.unwrap();
        assert_eq!(listed.len(), 3, "each event once, waiting or settled");
        assert!(
            !store
                .resend_webhook_delivery(
                    "c",
                    "e",
                    "evt_19ad3c8e2f40a1b7c3e9d2f01_0009",
                    at("2026-12-01T11:00:00Z")
                )
                .await
                .unwrap()
        );
    }
}
