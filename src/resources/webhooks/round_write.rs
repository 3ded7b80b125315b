//! What one round of an endpoint's deliveries writes
//! ([`super::outbox`]'s `record_webhook_attempts`): each group it tried,
//! made whole in Rust from what the round read and what its tries came to:
//! the entries still waiting back in the outbox, the settled ones added to
//! the group's record ([`super::history`]), the groups left empty deleted.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Value, json};

use crate::resources::webhooks::outbox::{Attempted, PendingDelivery};

/// The entry of `delivery` as `attempted` leaves it: its event and its
/// tries, what the try did not say absent.
fn tried_entry(delivery: &PendingDelivery, attempted: &Attempted) -> Value {
    let mut entry = json!({
        "event_id": delivery.event_id,
        "type": delivery.event_type,
        "body": delivery.body,
        "created_at": delivery.created_at,
        "attempts": delivery.attempts + 1,
        "last_attempt_at": attempted.at,
    });
    if let Some(status) = attempted.status {
        entry["last_status"] = json!(status);
    }
    if let Some(error) = &attempted.error {
        entry["last_error"] = json!(error);
    }
    entry
}

/// The entry of `delivery` once `attempted` settled it (delivered, or
/// given up), for its group in the deliveries' record.
fn settled_entry(delivery: &PendingDelivery, attempted: &Attempted) -> Value {
    let mut entry = tried_entry(delivery, attempted);
    entry["state"] = json!(attempted.state());
    if attempted.delivered {
        entry["delivered_at"] = json!(attempted.at);
    }
    entry
}

/// The entry of `delivery`, still waiting, once `attempted` failed: the
/// whole entry, with when it is due again.
fn retried_entry(delivery: &PendingDelivery, attempted: &Attempted) -> Value {
    let mut entry = tried_entry(delivery, attempted);
    entry["tries_since"] = json!(delivery.tries_since);
    entry["next_attempt_at"] = json!(attempted.next_attempt_at);
    entry
}

/// The fields of a waiting event's entry its last try set.
pub(super) const LAST_TRY: [&str; 3] = ["last_attempt_at", "last_status", "last_error"];

/// The entry of `delivery`, waiting and not tried in this round, as read.
fn waiting_entry(delivery: &PendingDelivery) -> Value {
    let mut entry = json!({
        "event_id": delivery.event_id,
        "type": delivery.event_type,
        "body": delivery.body,
        "created_at": delivery.created_at,
        "attempts": delivery.attempts,
        "tries_since": delivery.tries_since,
        "next_attempt_at": delivery.next_attempt_at,
    });
    if let Some(object) = entry.as_object_mut() {
        object.extend(delivery.last_try.clone());
    }
    entry
}

/// What a round's tries change in the outbox and the deliveries' record,
/// each group tried made whole in Rust from what the round read: the
/// statements take no closure over the round's thousands of ids (the store
/// copies a parameter each time a closure reads it).
#[derive(Debug, Default)]
pub(super) struct RoundWrite {
    /// The groups left with nothing waiting.
    pub emptied: Vec<String>,
    /// The groups still waiting, by group: their key and entries.
    pub kept: BTreeMap<String, (String, Vec<Value>)>,
    /// The settled events' entries, by group: its key and entries.
    pub recorded: BTreeMap<String, (String, Vec<Value>)>,
}

impl RoundWrite {
    /// The write of the round that read `read` (in event order) and made
    /// `tried`.
    pub fn of(read: &[PendingDelivery], tried: &[(PendingDelivery, Attempted)]) -> RoundWrite {
        let outcome: HashMap<&str, &Attempted> = tried
            .iter()
            .map(|(delivery, attempted)| (delivery.event_id.as_str(), attempted))
            .collect();
        let touched: HashSet<&str> = tried.iter().map(|(d, _)| d.group.as_str()).collect();
        let mut write = RoundWrite::default();
        let push = |into: &mut BTreeMap<String, (String, Vec<Value>)>,
                    delivery: &PendingDelivery,
                    entry: Value| {
            into.entry(delivery.group.clone())
                .or_insert_with(|| (delivery.order_key.clone(), Vec::new()))
                .1
                .push(entry);
        };
        for delivery in read.iter().filter(|d| touched.contains(d.group.as_str())) {
            match outcome.get(delivery.event_id.as_str()) {
                Some(attempted) if attempted.state() == "pending" => push(
                    &mut write.kept,
                    delivery,
                    retried_entry(delivery, attempted),
                ),
                Some(attempted) => push(
                    &mut write.recorded,
                    delivery,
                    settled_entry(delivery, attempted),
                ),
                None => push(&mut write.kept, delivery, waiting_entry(delivery)),
            }
        }
        write.emptied = touched
            .iter()
            .filter(|group| !write.kept.contains_key(**group))
            .map(|group| group.to_string())
            .collect();
        write
    }

    /// `groups` as rows of `company`'s endpoint `endpoint`.
    pub fn rows(
        groups: &BTreeMap<String, (String, Vec<Value>)>,
        company: &str,
        endpoint: &str,
    ) -> Vec<Value> {
        groups
            .iter()
            .map(|(group, (order_key, events))| {
                json!({
                    "id": [company, endpoint, group],
                    "order_key": order_key,
                    "events": events,
                })
            })
            .collect()
    }
}
