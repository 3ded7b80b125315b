//! Events going out: the enabled endpoints' subscriptions, kept in memory
//! (read again every second by every process, and at once after a change
//! here), and the outbox rows of an event for the endpoints subscribed to
//! its type, written in the transaction of the change it reports. A
//! Company without endpoints writes nothing more.

use std::collections::HashMap;
use std::sync::RwLock;

use serde_json::Value;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::pipeline::occurrence::Occurrence;
use crate::resources::webhooks::events::EVERY_EVENT;
use crate::resources::webhooks::outbox::OutgoingEvent;
use crate::services::Services;
use crate::storage::Store;
use crate::storage::first;

/// The field of an event's write holding its outbox rows.
pub(crate) const WEBHOOK_DELIVERIES: &str = "webhook_deliveries";

/// An enabled endpoint and the event types it receives.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Subscription {
    endpoint_id: String,
    events: Vec<String>,
}

/// Every Company's enabled endpoints, as last read.
#[derive(Debug, Default)]
pub struct Subscriptions {
    by_company: RwLock<HashMap<String, Vec<Subscription>>>,
}

impl Subscriptions {
    /// The endpoints of `company` receiving events of `event_type`.
    fn endpoints(&self, company: &str, event_type: &str) -> Vec<String> {
        let Ok(by_company) = self.by_company.read() else {
            return Vec::new();
        };
        by_company
            .get(company)
            .map_or_else(Vec::new, |subscriptions| {
                subscriptions
                    .iter()
                    .filter(|s| s.events.iter().any(|e| e == EVERY_EVENT || e == event_type))
                    .map(|s| s.endpoint_id.clone())
                    .collect()
            })
    }

    /// Whether `company` has an enabled endpoint at all.
    fn any(&self, company: &str) -> bool {
        self.by_company
            .read()
            .is_ok_and(|by_company| by_company.contains_key(company))
    }

    fn replace(&self, read: HashMap<String, Vec<Subscription>>) {
        if let Ok(mut by_company) = self.by_company.write() {
            *by_company = read;
        }
    }
}

impl Store {
    /// Every enabled endpoint's subscriptions, by Company.
    async fn webhook_subscriptions(&self) -> ApiResult<HashMap<String, Vec<Subscription>>> {
        let rows: Vec<Value> = first(self.db.query(
            "SELECT company, endpoint_id, events FROM webhook_endpoint WHERE enabled = true",
        ))
        .await?;
        let mut by_company: HashMap<String, Vec<Subscription>> = HashMap::new();
        for row in rows {
            let (Some(company), Some(endpoint_id), Some(events)) = (
                row["company"].as_str(),
                row["endpoint_id"].as_str(),
                row["events"].as_array(),
            ) else {
                continue;
            };
            by_company
                .entry(company.to_string())
                .or_default()
                .push(Subscription {
                    endpoint_id: endpoint_id.to_string(),
                    events: events
                        .iter()
                        .filter_map(|e| e.as_str().map(str::to_string))
                        .collect(),
                });
        }
        Ok(by_company)
    }
}

impl Services {
    /// Reads the enabled endpoints' subscriptions again.
    pub(crate) async fn refresh_webhook_subscriptions(&self) -> ApiResult<()> {
        let read = self.store.webhook_subscriptions().await?;
        self.webhooks.subscriptions.replace(read);
        Ok(())
    }

    /// The outbox rows of an event of `event_type` of `company` at `at`
    /// about `data`, one per endpoint subscribed to it, kept in order with
    /// the other events of `customer`; none when no endpoint is.
    pub(crate) fn webhook_rows(
        &self,
        company: &str,
        event_type: &str,
        customer: Option<&str>,
        data: Value,
        at: Timestamp,
    ) -> Vec<Value> {
        let endpoints = self.webhooks.subscriptions.endpoints(company, event_type);
        if endpoints.is_empty() {
            return Vec::new();
        }
        let event = OutgoingEvent::new(company, event_type, customer, data, at);
        endpoints
            .iter()
            .map(|endpoint| event.delivery_row(company, endpoint))
            .collect()
    }
}

impl Services {
    /// The outbox rows of the webhook event `occurrence` reports, written
    /// at `at` for `customer_id` of `company`, as a field of its write;
    /// none when it reports none or no endpoint receives it.
    pub(crate) fn occurrence_webhooks<O: Occurrence>(
        &self,
        company: &str,
        customer_id: &str,
        occurrence: &O,
        at: Timestamp,
    ) -> Option<(&'static str, Value)> {
        // Most Companies have no endpoint: their events are not described.
        if !self.webhooks.subscriptions.any(company) {
            return None;
        }
        let (event_type, data) = occurrence.webhook_event()?;
        let rows = self.webhook_rows(company, event_type, Some(customer_id), data, at);
        (!rows.is_empty()).then_some((WEBHOOK_DELIVERIES, Value::Array(rows)))
    }
}
