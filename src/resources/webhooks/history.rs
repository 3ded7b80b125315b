//! The deliveries operators see: those still in the outbox
//! ([`super::outbox`]) and the settled ones (delivered, or given up after
//! 24 hours), each kept with its body so that it can be sent again. Both
//! are keyed `[company, endpoint, event]`: an endpoint's latest deliveries
//! are the ends of two ranges of ids, read backwards.

use serde_json::Value;

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::webhooks::model::WebhookDelivery;
use crate::resources::webhooks::outbox::endpoint_range;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::store_error;

/// The fields of a stored delivery operators are not shown.
const NOT_SHOWN: [&str; 5] = ["id", "order_key", "body", "balance_after", "tries_since"];

/// A stored delivery (`event_id` read off its id) as operators see it; one
/// still in the outbox is pending.
fn delivery_from(mut row: Value) -> ApiResult<WebhookDelivery> {
    if let Some(object) = row.as_object_mut() {
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
    serde_json::from_value(row)
        .map_err(|e| ApiError::internal(format!("stored webhook delivery unreadable: {e}")))
}

/// The delivery of `$event` to `$endpoint` of `$company` in `table`.
fn delivery_record(table: &str) -> String {
    format!("type::record('{table}', [$company, $endpoint, $event])")
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
        let latest = |table: &str| {
            format!(
                "SELECT record::id(id)[2] AS event_id, * FROM {} ORDER BY id DESC LIMIT $limit;",
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
        let mut deliveries = waiting
            .into_iter()
            .chain(settled)
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
            "RETURN {}.* ?? {}.*",
            delivery_record("webhook_outbox"),
            delivery_record("webhook_delivery")
        );
        let row: Option<Value> = first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("endpoint", endpoint.to_string()))
                .bind(("event", event.to_string())),
        )
        .await?;
        let row = row.filter(Value::is_object).map(|mut row| {
            row["event_id"] = Value::from(event);
            row
        });
        row.map(delivery_from).transpose()
    }

    /// Sends the delivery of `event` to `endpoint` of `company` again from
    /// `now`, whatever it came to: one waiting is due now and tried for 24
    /// hours from now; one settled goes back to the outbox, with its tries
    /// counted. False when there is none.
    pub async fn resend_webhook_delivery(
        &self,
        company: &str,
        endpoint: &str,
        event: &str,
        now: Timestamp,
    ) -> ApiResult<bool> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $waiting = {waiting};
             LET $settled = {settled};
             LET $found = record::exists($waiting) OR record::exists($settled);
             IF record::exists($waiting) {{
                 UPDATE $waiting SET tries_since = $now, next_attempt_at = $now RETURN NONE;
             }} ELSE IF record::exists($settled) {{
                 LET $row = $settled.*;
                 DELETE $settled RETURN NONE;
                 INSERT INTO webhook_outbox {{
                     id: [$company, $endpoint, $event],
                     type: $row.type,
                     order_key: $row.order_key,
                     body: $row.body,
                     created_at: $row.created_at,
                     attempts: $row.attempts,
                     last_attempt_at: $row.last_attempt_at,
                     last_status: $row.last_status,
                     last_error: $row.last_error,
                     tries_since: $now,
                     next_attempt_at: $now,
                 }} RETURN NONE;
             }};
             $found;
             COMMIT TRANSACTION;",
            waiting = delivery_record("webhook_outbox"),
            settled = delivery_record("webhook_delivery"),
        );
        let mut response = self
            .transact(|db| {
                db.query_keeping_customers(query.as_str())
                    .bind(("company", company.to_string()))
                    .bind(("endpoint", endpoint.to_string()))
                    .bind(("event", event.to_string()))
                    .bind(("now", now.to_string()))
            })
            .await?;
        let index = response.num_statements().saturating_sub(2);
        let found: Option<bool> = response.take(index).map_err(store_error)?;
        Ok(found.unwrap_or(false))
    }

    /// Deletes up to `limit` settled deliveries of the endpoint `endpoint`
    /// of `company` whose events were made before `before` (an event id,
    /// or the start of one: ids sort by time); how many it deleted.
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

    /// A settled delivery of `event` to the endpoint `endpoint` of `c`.
    fn settled(endpoint: &str, event: &str) -> Value {
        json!({
            "id": ["c", endpoint, event],
            "type": "webhook.test",
            "order_key": event,
            "body": "{}",
            "created_at": "2026-11-01T00:00:00Z",
            "state": "delivered",
            "attempts": 1,
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
}
