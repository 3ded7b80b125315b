//! The deliveries operators see: those still in the outbox
//! ([`super::outbox`]) and the settled ones (delivered, or given up after
//! 24 hours), each kept with its body so that it can be sent again. Both
//! hold groups of events keyed `[company, endpoint, group]`, and a group's
//! events sort with it: an endpoint's latest deliveries are in the last
//! groups of two ranges of ids, read backwards, and one event's in the
//! group its id names ([`super::groups::group_of`]) or, sent again, in one
//! of its own keyed by its id.

use serde_json::Value;

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::webhooks::groups::group_of;
use crate::resources::webhooks::model::WebhookDelivery;
use crate::resources::webhooks::outbox::endpoint_range;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::store_error;

/// The fields of a stored delivery operators are not shown.
const NOT_SHOWN: [&str; 3] = ["body", "balance_after", "tries_since"];

/// A stored event's delivery as operators see it; one still in the outbox
/// is pending.
fn delivery_from(mut entry: Value) -> ApiResult<WebhookDelivery> {
    if let Some(object) = entry.as_object_mut() {
        for field in NOT_SHOWN {
            object.remove(field);
        }
        object.retain(|_, value| !value.is_null());
        object
            .entry("state")
            .or_insert_with(|| Value::from("pending"));
        object.entry("attempts").or_insert_with(|| Value::from(0));
        if object.get("state").and_then(Value::as_str) == Some("pending")
            && !object.contains_key("next_attempt_at")
            && let Some(created_at) = object.get("created_at").cloned()
        {
            object.insert("next_attempt_at".into(), created_at);
        }
    }
    serde_json::from_value(entry)
        .map_err(|e| ApiError::internal(format!("stored webhook delivery unreadable: {e}")))
}

/// The events of the groups `groups` (each `{events}`), in order.
fn events_of(groups: Vec<Value>) -> impl Iterator<Item = Value> {
    groups
        .into_iter()
        .flat_map(|mut group| match group["events"].take() {
            Value::Array(events) => events,
            _ => Vec::new(),
        })
}

/// The group keyed `key` (a parameter) of `$endpoint` of `$company` in
/// `table`.
fn group_record(table: &str, key: &str) -> String {
    format!("type::record('{table}', [$company, $endpoint, {key}])")
}

impl Store {
    /// The latest `limit` deliveries to the endpoint `endpoint` of
    /// `company`, newest first, waiting or settled.
    pub async fn webhook_deliveries(
        &self,
        company: &str,
        endpoint: &str,
        limit: usize,
    ) -> ApiResult<Vec<WebhookDelivery>> {
        // A group holds one event or more: the last `limit` hold the latest.
        let latest = |table: &str| {
            format!(
                "SELECT events FROM {} ORDER BY id DESC LIMIT $limit;",
                endpoint_range(table)
            )
        };
        let query = format!("{}{}", latest("webhook_outbox"), latest("webhook_delivery"));
        let mut response = self
            .db
            .query(query)
            .bind(("company", company.to_string()))
            .bind(("endpoint", endpoint.to_string()))
            .bind(("limit", limit as i64))
            .await
            .and_then(|response| response.check())
            .map_err(store_error)?;
        let waiting: Vec<Value> = response.take(0).map_err(store_error)?;
        let settled: Vec<Value> = response.take(1).map_err(store_error)?;
        let mut deliveries = events_of(waiting)
            .chain(events_of(settled))
            .map(delivery_from)
            .collect::<ApiResult<Vec<_>>>()?;
        deliveries.sort_by(|a, b| b.event_id.cmp(&a.event_id));
        deliveries.truncate(limit);
        Ok(deliveries)
    }

    /// The delivery of `event` to `endpoint` of `company`, waiting or
    /// settled.
    pub async fn webhook_delivery(
        &self,
        company: &str,
        endpoint: &str,
        event: &str,
    ) -> ApiResult<Option<WebhookDelivery>> {
        let query = format!(
            "RETURN {{ waiting: {}.*, waiting_own: {}.*, settled: {}.*, settled_own: {}.* }}",
            group_record("webhook_outbox", "$group"),
            group_record("webhook_outbox", "$event"),
            group_record("webhook_delivery", "$group"),
            group_record("webhook_delivery", "$event"),
        );
        let found: Option<Value> = first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("endpoint", endpoint.to_string()))
                .bind(("group", group_of(event).to_string()))
                .bind(("event", event.to_string())),
        )
        .await?;
        let groups: Vec<Value> = match found {
            Some(Value::Object(found)) => found.into_values().collect(),
            _ => Vec::new(),
        };
        events_of(groups.into_iter().filter(Value::is_object).collect())
            .find(|entry| entry["event_id"] == event)
            .map(delivery_from)
            .transpose()
    }

    /// Sends the delivery of `event` to `endpoint` of `company` again from
    /// `now`, whatever it came to: one waiting is due now and tried for 24
    /// hours from now; one settled goes back to the outbox as a group of
    /// its own (keyed by its id, so that it sorts right after its group and
    /// the delivery worker alone writes the groups it reads), with its
    /// tries counted. False when there is none.
    pub async fn resend_webhook_delivery(
        &self,
        company: &str,
        endpoint: &str,
        event: &str,
        now: Timestamp,
    ) -> ApiResult<bool> {
        let holds = "|$record| array::len(($record.*.events ?? []).filter(|$entry| $entry.event_id = $event)) > 0";
        let query = format!(
            "BEGIN TRANSACTION;
             LET $waiting = [{waiting}, {waiting_own}].filter({holds})[0];
             LET $settled = [{settled}, {settled_own}].filter({holds})[0];
             LET $done = IF $settled {{
                 $settled.*.events.filter(|$entry| $entry.event_id = $event)[0]
             }} ELSE {{ NONE }};
             IF $waiting {{
                 UPDATE $waiting SET events = events.map(|$entry| IF $entry.event_id = $event {{
                     object::extend($entry, {{ tries_since: $now, next_attempt_at: $now }})
                 }} ELSE {{ $entry }}) RETURN NONE;
             }} ELSE IF $done {{
                 CREATE {waiting_own} CONTENT {{
                     order_key: $settled.*.order_key,
                     events: [{{
                         event_id: $event,
                         type: $done.type,
                         body: $done.body,
                         created_at: $done.created_at,
                         attempts: $done.attempts,
                         last_attempt_at: $done.last_attempt_at,
                         last_status: $done.last_status,
                         last_error: $done.last_error,
                         tries_since: $now,
                         next_attempt_at: $now,
                     }}],
                 }} RETURN NONE;
                 UPDATE $settled SET events = events.filter(|$entry| $entry.event_id != $event) RETURN NONE;
                 DELETE $settled WHERE !events RETURN NONE;
             }};
             $waiting != NONE OR $done != NONE;
             COMMIT TRANSACTION;",
            waiting = group_record("webhook_outbox", "$group"),
            waiting_own = group_record("webhook_outbox", "$event"),
            settled = group_record("webhook_delivery", "$group"),
            settled_own = group_record("webhook_delivery", "$event"),
        );
        let mut response = self
            .transact(|db| {
                db.query_keeping_customers(query.as_str())
                    .bind(("company", company.to_string()))
                    .bind(("endpoint", endpoint.to_string()))
                    .bind(("group", group_of(event).to_string()))
                    .bind(("event", event.to_string()))
                    .bind(("now", now.to_string()))
            })
            .await?;
        let index = response.num_statements().saturating_sub(2);
        let found: Option<bool> = response.take(index).map_err(store_error)?;
        Ok(found.unwrap_or(false))
    }

    /// Deletes up to `limit` groups of settled deliveries of the endpoint
    /// `endpoint` of `company` whose events were made before `before` (an
    /// event id, or the start of one: ids sort by time); how many it
    /// deleted.
    pub async fn prune_webhook_deliveries(
        &self,
        company: &str,
        endpoint: &str,
        before: &str,
        limit: usize,
    ) -> ApiResult<usize> {
        let query = "LET $old = SELECT VALUE id FROM webhook_delivery:[$company, $endpoint, '']..[$company, $endpoint, $before] LIMIT $limit;
             DELETE $old RETURN NONE;
             RETURN array::len($old);";
        let mut response = self
            .db
            .query_keeping_customers(query)
            .bind(("company", company.to_string()))
            .bind(("endpoint", endpoint.to_string()))
            .bind(("before", before.to_string()))
            .bind(("limit", limit as i64))
            .await
            .and_then(|response| response.check())
            .map_err(store_error)?;
        let deleted: Option<i64> = response.take(2).map_err(store_error)?;
        Ok(deleted.unwrap_or(0).max(0) as usize)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::common::stamps::first_id_at;

    const DAY: i64 = 86_400_000;

    /// The group of a settled delivery of `event` to the endpoint
    /// `endpoint` of `c`.
    fn settled(endpoint: &str, event: &str) -> Value {
        json!({
            "id": ["c", endpoint, event],
            "order_key": event,
            "events": [{
                "event_id": event,
                "type": "webhook.test",
                "body": "{}",
                "created_at": "2026-11-01T00:00:00Z",
                "state": "delivered",
                "attempts": 1,
            }],
        })
    }

    /// An event id issued `ago` milliseconds ago.
    fn event_id(ago: i64, n: u64) -> String {
        let now = chrono::Utc::now().timestamp_millis();
        format!("{}{n:010x}", first_id_at("evt", now - ago))
    }

    #[tokio::test]
    async fn settled_deliveries_older_than_kept_are_deleted_a_slice_at_a_time() {
        let store = Store::connect("mem://", None).await.unwrap();
        let old: Vec<String> = (0..5).map(|n| event_id(8 * DAY, n)).collect();
        let recent = event_id(DAY, 9);
        let mut rows: Vec<Value> = old.iter().map(|event| settled("e", event)).collect();
        rows.push(settled("e", &recent));
        rows.push(settled("other", &old[0]));
        store
            .db
            .query("INSERT INTO webhook_delivery $rows")
            .bind(("rows", rows))
            .await
            .unwrap()
            .check()
            .unwrap();

        let before = first_id_at("evt", chrono::Utc::now().timestamp_millis() - 7 * DAY);
        let prune = || store.prune_webhook_deliveries("c", "e", &before, 3);
        assert_eq!(prune().await.unwrap(), 3);
        assert_eq!(prune().await.unwrap(), 2);
        assert_eq!(prune().await.unwrap(), 0);
        let left = store.webhook_deliveries("c", "e", 10).await.unwrap();
        let left: Vec<&str> = left.iter().map(|d| d.event_id.as_str()).collect();
        assert_eq!(left, [recent.as_str()]);
        let other = store.webhook_deliveries("c", "other", 10).await.unwrap();
        assert_eq!(other.len(), 1, "another endpoint's are its own");
    }

    #[tokio::test]
    async fn deliveries_stored_one_an_event_become_groups_of_their_one() {
        let store = Store::connect("mem://", None).await.unwrap();
        store
            .db
            .query(
                "DELETE migration:webhook_event_groups;
                 CREATE webhook_outbox:['c', 'e', 'evt_01'] CONTENT {
                     type: 'points.changed', order_key: 'x', body: '{\"balance_after\":null}',
                     balance_after: 40, created_at: '2026-11-30T10:00:00Z', attempts: 2,
                     tries_since: '2026-11-30T10:00:00Z', next_attempt_at: '2026-11-30T10:00:04Z',
                     last_attempt_at: '2026-11-30T10:00:02Z', last_status: 500, last_error: 'answered 500',
                 };
                 CREATE webhook_delivery:['c', 'e', 'evt_00'] CONTENT {
                     type: 'cart.recorded', order_key: 'x', body: '{}', created_at: '2026-11-30T09:00:00Z',
                     state: 'delivered', attempts: 1, last_attempt_at: '2026-11-30T09:00:01Z',
                     last_status: 204, delivered_at: '2026-11-30T09:00:01Z',
                 };",
            )
            .await
            .unwrap()
            .check()
            .unwrap();
        store
            .db
            .query(crate::storage::schema::schema())
            .await
            .unwrap()
            .check()
            .unwrap();

        let listed = store.webhook_deliveries("c", "e", 10).await.unwrap();
        let listed = serde_json::to_value(&listed).unwrap();
        assert_eq!(
            listed,
            json!([
                {
                    "event_id": "evt_01", "type": "points.changed", "state": "pending",
                    "attempts": 2, "created_at": "2026-11-30T10:00:00Z",
                    "next_attempt_at": "2026-11-30T10:00:04Z", "last_attempt_at": "2026-11-30T10:00:02Z",
                    "last_status": 500, "last_error": "answered 500",
                },
                {
                    "event_id": "evt_00", "type": "cart.recorded", "state": "delivered",
                    "attempts": 1, "created_at": "2026-11-30T09:00:00Z",
                    "last_attempt_at": "2026-11-30T09:00:01Z", "last_status": 204,
                    "delivered_at": "2026-11-30T09:00:01Z",
                },
            ])
        );
        let waiting = store
            .pending_webhook_deliveries("c", "e", "", 10)
            .await
            .unwrap()
            .deliveries;
        assert_eq!(waiting.len(), 1);
        assert_eq!(waiting[0].body, "{\"balance_after\":40}");
        assert_eq!(waiting[0].group, "evt_01");
        let settled = store.webhook_delivery("c", "e", "evt_00").await.unwrap();
        assert_eq!(settled.map(|d| d.attempts), Some(1));
    }
}
