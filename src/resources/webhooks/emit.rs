//! Events going out: the enabled endpoints' subscriptions, kept in the
//! store's memory (read again every second by every process, and at once
//! after a change here), and the outbox rows of an event for the endpoints
//! subscribed to its type, written in the transaction of the change it
//! reports. A Company without endpoints writes nothing more.
//!
//! The events one write makes of one Customer go to each endpoint as one
//! group ([`super::groups::EventGroup`]): a cart's own, then its
//! `points.changed`.
//!
//! A ledger entry's `points.changed` carries the balance it left, which
//! only its transaction knows (other writes move the balance meanwhile): its
//! groups are written by [`LEDGER_WEBHOOKS_TEXT`], which stores each
//! balance beside its event's body; the worker puts it in the body it sends
//! ([`super::outbox::with_balance`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, RwLock};

use serde_json::Value;

use poem_openapi::types::ToJSON;
use serde_json::json;

use crate::common::stamps::StampClock;
use crate::common::time::Timestamp;
use crate::engine::effect::Effect;
use crate::error::ApiResult;
use crate::pipeline::api::EffectBody;
use crate::pipeline::contributions::EvaluatedEvent;
use crate::pipeline::occurrence::Occurrence;
use crate::resources::customers::model::Customer;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::webhooks::events::EVERY_EVENT;
use crate::resources::webhooks::groups::EventGroup;
use crate::resources::webhooks::outbox::BALANCE_SLOT;
use crate::services::Services;
use crate::storage::Store;
use crate::storage::event_transaction::BatchPart;
use crate::storage::first;

/// The field of an event's write holding its outbox rows.
pub(crate) const WEBHOOK_DELIVERIES: &str = "webhook_deliveries";

/// The field of an event's write (and the parameter of a ledger append)
/// holding its ledger entries' `points.changed` events
/// ([`Subscriptions::points_changes`]).
pub(crate) const LEDGER_WEBHOOKS: &str = "ledger_webhooks";

/// SurrealQL writing the `points.changed` groups of `$ledger_webhooks` once
/// the balances they report have moved, in one statement: each event with
/// the balance its Customer's state (`state`) holds of its kind less what
/// later entries of the same transaction moved (`later`), as a number
/// beside the body (a plain field: no text is made in the transaction). A
/// macro so that the ledger's append
/// ([`crate::resources::points::store::ledger::APPEND_LEDGER`]) and the
/// group commit share its text.
macro_rules! ledger_webhooks_text {
    () => {
        "
    IF $ledger_webhooks {
        INSERT INTO webhook_outbox $ledger_webhooks.map(|$change| object::extend($change.row, {
            events: $change.events.map(|$event| object::extend($event.entry, {
                balance_after: (type::record('customer_state', $event.state).*[$event.kind] ?? 0) - $event.later
            }))
        })) RETURN NONE;
    };"
    };
}
pub(crate) use ledger_webhooks_text;

/// The text of [`ledger_webhooks_text`].
pub(crate) const LEDGER_WEBHOOKS_TEXT: &str = ledger_webhooks_text!();

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// `points.changed` events of the batch's ledger entries, run after the
/// Customers' states have moved.
pub(crate) const STORE_LEDGER_WEBHOOKS: BatchPart = BatchPart {
    binding: LEDGER_WEBHOOKS,
    statements: LEDGER_WEBHOOKS_TEXT,
};

/// An enabled endpoint and the event types it receives.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Subscription {
    endpoint_id: String,
    events: Vec<String>,
}

impl Subscription {
    /// Whether it receives events of `event_type`.
    fn receives(&self, event_type: &str) -> bool {
        self.events
            .iter()
            .any(|e| e == EVERY_EVENT || e == event_type)
    }
}

/// An endpoint: its Company and its id.
pub(crate) type EndpointKey = (String, String);

/// Every Company's enabled endpoints, as last read, the clock of the
/// events' ids (a Customer's events are delivered in id order), and the
/// endpoints events were made for since the delivery worker last looked.
#[derive(Debug, Default)]
pub struct Subscriptions {
    by_company: RwLock<HashMap<String, Vec<Subscription>>>,
    clock: StampClock,
    touched: Mutex<HashSet<EndpointKey>>,
    /// Endpoints given back a delivery older than their newest (a "send
    /// again"): their next round reads their outbox from its first group.
    rewound: Mutex<HashSet<EndpointKey>>,
}

impl Subscriptions {
    /// The enabled endpoints of `company`.
    fn of_company(&self, company: &str) -> Vec<Subscription> {
        self.by_company
            .read()
            .ok()
            .and_then(|by_company| by_company.get(company).cloned())
            .unwrap_or_default()
    }

    /// The endpoints of `company` receiving events of `event_type`.
    fn endpoints(&self, company: &str, event_type: &str) -> Vec<String> {
        self.of_company(company)
            .into_iter()
            .filter(|s| s.receives(event_type))
            .map(|s| s.endpoint_id)
            .collect()
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

    /// Tells the delivery worker that the endpoint `endpoint` of `company`
    /// has a new delivery (written, or about to be).
    pub(crate) fn touch(&self, company: &str, endpoint: &str) {
        if let Ok(mut touched) = self.touched.lock() {
            touched.insert((company.to_string(), endpoint.to_string()));
        }
    }

    /// Tells the delivery worker that the endpoint `endpoint` of `company`
    /// has a delivery waiting again under its old id, before others it may
    /// have sent since.
    pub(crate) fn rewind(&self, company: &str, endpoint: &str) {
        if let Ok(mut rewound) = self.rewound.lock() {
            rewound.insert((company.to_string(), endpoint.to_string()));
        }
        self.touch(company, endpoint);
    }

    /// The endpoints rewound since the last call ([`Subscriptions::rewind`]).
    pub(crate) fn rewound(&self) -> HashSet<EndpointKey> {
        self.rewound
            .lock()
            .map(|mut rewound| std::mem::take(&mut *rewound))
            .unwrap_or_default()
    }

    /// The endpoints told of since the last call ([`Subscriptions::touch`]).
    pub(crate) fn touched(&self) -> HashSet<EndpointKey> {
        self.touched
            .lock()
            .map(|mut touched| std::mem::take(&mut *touched))
            .unwrap_or_default()
    }

    /// A new event id, after every one this process issued.
    pub(crate) fn next_event_id(&self) -> String {
        self.clock.id("evt")
    }

    /// The outbox rows of an event of `event_type` of `company` at `at`
    /// about `data`, one per endpoint subscribed to it, kept in order with
    /// the other events of `customer`; none when no endpoint is.
    pub(crate) fn rows(
        &self,
        company: &str,
        event_type: &str,
        customer: Option<&str>,
        data: Value,
        at: Timestamp,
    ) -> Vec<Value> {
        self.group_rows(company, customer, vec![(event_type, data, at)])
    }

    /// The outbox rows of the events `(type, data, at)` of `company`, made
    /// together in this order and kept in order with the other events of
    /// `customer`: for each endpoint subscribed to any of them, a group of
    /// those it receives; none when no endpoint is.
    pub(crate) fn group_rows(
        &self,
        company: &str,
        customer: Option<&str>,
        events: Vec<(&str, Value, Timestamp)>,
    ) -> Vec<Value> {
        let subscriptions: Vec<Subscription> = self
            .of_company(company)
            .into_iter()
            .filter(|s| events.iter().any(|(event_type, ..)| s.receives(event_type)))
            .collect();
        if subscriptions.is_empty() {
            return Vec::new();
        }
        let groups = EventGroup::numbered(
            self.next_event_id(),
            || self.next_event_id(),
            company,
            customer,
            events,
        );
        let mut rows = Vec::new();
        for subscription in &subscriptions {
            let endpoint = &subscription.endpoint_id;
            self.touch(company, endpoint);
            rows.extend(groups.iter().filter_map(|group| {
                group.row(company, endpoint, |event| {
                    subscription.receives(&event.event_type)
                })
            }));
        }
        rows
    }

    /// The outbox rows of the webhook event `event_type` (`customer.*`)
    /// about `customer`, as the API answers it, at its last update.
    pub(crate) fn customer_rows(
        &self,
        company: &str,
        event_type: &str,
        customer: &Customer,
    ) -> Vec<Value> {
        let Some(data) = customer.to_json() else {
            return Vec::new();
        };
        let at = customer.updated_at;
        self.rows(company, event_type, Some(&customer.id), data, at)
    }

    /// The `points.changed` events of `ledger`, entries of `company` whose
    /// ids are `entry_ids`, for [`LEDGER_WEBHOOKS_TEXT`]: for each Customer
    /// and endpoint receiving them, a group of its entries' events (its
    /// outbox row), each with the state holding its balance, its kind, and
    /// what the entries after it in `ledger` move of that balance
    /// (`later`); the body of each leaves the balance after it to the
    /// transaction. None when no endpoint receives them.
    pub(crate) fn points_changes(
        &self,
        company: &str,
        ledger: &[LedgerEntry],
        entry_ids: &[String],
    ) -> Vec<Value> {
        const POINTS_CHANGED: &str = "points.changed";
        if !self.any(company) {
            return Vec::new();
        }
        let endpoints = self.endpoints(company, POINTS_CHANGED);
        if endpoints.is_empty() {
            return Vec::new();
        }
        // Each Customer's entries, Customers in the order they first come.
        let mut by_customer: Vec<(&str, Vec<usize>)> = Vec::new();
        for (index, entry) in ledger.iter().enumerate().take(entry_ids.len()) {
            match by_customer
                .iter_mut()
                .find(|(customer, _)| *customer == entry.customer_id)
            {
                Some((_, entries)) => entries.push(index),
                None => by_customer.push((entry.customer_id.as_str(), vec![index])),
            }
        }
        let later = |index: usize| -> i64 {
            let entry = &ledger[index];
            ledger[index + 1..]
                .iter()
                .filter(|other| other.customer_id == entry.customer_id && other.kind == entry.kind)
                .map(|other| other.points)
                .sum()
        };
        let mut changes = Vec::new();
        for (customer, entries) in by_customer {
            let events = entries
                .iter()
                .map(|&index| {
                    let entry = &ledger[index];
                    let data = points_change(entry, &entry_ids[index]);
                    (POINTS_CHANGED, data, entry.created_at)
                })
                .collect();
            let groups = EventGroup::numbered(
                self.next_event_id(),
                || self.next_event_id(),
                company,
                Some(customer),
                events,
            );
            let mut indices = entries.iter();
            for group in groups {
                let events: Vec<Value> = group
                    .events
                    .iter()
                    .zip(indices.by_ref())
                    .map(|(event, &index)| {
                        json!({
                            "entry": event.entry(),
                            "state": [company, customer],
                            "kind": ledger[index].kind,
                            "later": later(index),
                        })
                    })
                    .collect();
                for endpoint in &endpoints {
                    self.touch(company, endpoint);
                    changes.push(json!({
                        "company": company,
                        "customer_id": customer,
                        "row": { "id": [company, endpoint, group.id], "order_key": group.order_key },
                        "events": events,
                    }));
                }
            }
        }
        changes
    }
}

/// What a `points.changed` event says of `entry` (whose id is `id`): the
/// entry as the ledger's listing answers it, and the balance it left, put
/// in when it is sent ([`BALANCE_SLOT`]).
fn points_change(entry: &LedgerEntry, id: &str) -> Value {
    let mut data = json!({ "balance_after": null, "id": id });
    if let (Some(data), Value::Object(fields)) = (data.as_object_mut(), json!(entry)) {
        data.extend(fields.into_iter().filter(|(_, value)| !value.is_null()));
    }
    debug_assert!(data.to_string().contains(BALANCE_SLOT));
    data
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
        self.store.memory.webhooks.replace(read);
        Ok(())
    }

    /// The outbox rows of the webhook events of `occurrence`, an event of
    /// `customer_id` of `company` its campaigns made `evaluated` of (what
    /// it answers, made only when an endpoint may receive them), written at
    /// `at`, as a field of its write: the occurrence's own (a cart, a Custom
    /// Event, a game's play), then the prizes it won and the Challenges it
    /// completed ([`effect_events`]); none when no endpoint receives them.
    /// The Vouchers it issued and the points it moved are reported by the
    /// statements that write them, which alone know whether they did.
    pub(crate) fn occurrence_webhooks<O: Occurrence>(
        &self,
        company: &str,
        customer_id: &str,
        occurrence: &O,
        evaluated: impl FnOnce() -> EvaluatedEvent,
        at: Timestamp,
    ) -> Option<(&'static str, Value)> {
        let webhooks = &self.store.memory.webhooks;
        // Most Companies have no endpoint: their events are not described.
        if !webhooks.any(company) {
            return None;
        }
        let evaluated = evaluated();
        let events = occurrence
            .webhook_event(&evaluated)
            .into_iter()
            .chain(effect_events(
                &evaluated.effects,
                customer_id,
                occurrence.cart_id(),
            ));
        let events = events
            .map(|(event_type, data)| (event_type, data, at))
            .collect();
        let rows = webhooks.group_rows(company, Some(customer_id), events);
        (!rows.is_empty()).then_some((WEBHOOK_DELIVERIES, Value::Array(rows)))
    }
}

/// The webhook events of `effects`, an event's of `customer_id` (on the
/// cart `cart_id`): `prize.won` for each draw won, `challenge.completed`
/// for each Challenge it completed, each the effect as the event's answer
/// shows it, with the Customer and the cart.
fn effect_events(
    effects: &[Effect],
    customer_id: &str,
    cart_id: Option<&str>,
) -> Vec<(&'static str, Value)> {
    effects
        .iter()
        .filter_map(|effect| {
            let event_type = match effect {
                Effect::InstantWin(draw) if draw.draw.prize_rule_id.is_some() => "prize.won",
                Effect::Challenge(progress) if progress.step.completed => "challenge.completed",
                _ => return None,
            };
            let mut data = EffectBody::from(effect.clone()).to_json()?;
            data["customer_id"] = json!(customer_id);
            if let Some(cart_id) = cart_id {
                data["cart_id"] = json!(cart_id);
            }
            Some((event_type, data))
        })
        .collect()
}
