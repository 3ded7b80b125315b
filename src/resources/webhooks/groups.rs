//! Events as they go out: each with its body as every try sends it, and
//! numbered in groups, the events one write made for one key (a
//! Customer's, such as a cart's `cart.recorded` and its dozen
//! `points.changed`). An event's id is its group's and its place in it
//! ([`group_of`]), so groups sort as their events do and a group is found
//! from any of its events; each group waits in the outbox
//! ([`super::outbox`]) as one record per endpoint.

use serde_json::{Value, json};

use crate::common::time::Timestamp;

/// Events numbered within one group at most (four hex digits each).
const GROUP_EVENTS: usize = 0x1000;

/// An event as it goes out: its id, type, the key its deliveries keep the
/// order of (its Customer's id) and the body every try sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingEvent {
    /// `evt_...`, time-ordered: its group's id and its place in it.
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

    /// Its entry in a group of the outbox, due at once: no more than a
    /// first try needs (what tries add is absent until then).
    pub fn entry(&self) -> Value {
        json!({
            "event_id": self.id,
            "type": self.event_type,
            "body": self.body,
            "created_at": self.created_at,
        })
    }
}

/// The id of the event at `place` in the group `group`.
pub fn event_in_group(group: &str, place: usize) -> String {
    format!("{group}_{place:04x}")
}

/// The group of the event `event`: its id less its place. An event made
/// before events were grouped (`evt_` and its stamp) is its own group.
pub fn group_of(event: &str) -> &str {
    match event.rsplit_once('_') {
        Some((group, _)) if group.contains('_') => group,
        _ => event,
    }
}

/// The events of one key made by one write, numbered from `group` (a new
/// event id) in the order made; the rows of the outbox they are written as.
#[derive(Debug, Clone)]
pub struct EventGroup {
    /// The group's id; its events' ids are made from it.
    pub id: String,
    /// The key its events keep their order within.
    pub order_key: String,
    /// Its events, in order.
    pub events: Vec<OutgoingEvent>,
}

impl EventGroup {
    /// The events `(type, data, at)` of `company` about `customer`, numbered
    /// from `first_id`, and from `next_id()` every [`GROUP_EVENTS`] events
    /// (so that a place keeps four digits).
    pub fn numbered(
        first_id: String,
        mut next_id: impl FnMut() -> String,
        company: &str,
        customer: Option<&str>,
        events: Vec<(&str, Value, Timestamp)>,
    ) -> Vec<EventGroup> {
        let mut groups: Vec<EventGroup> = Vec::new();
        let mut id = Some(first_id);
        for (index, (event_type, data, at)) in events.into_iter().enumerate() {
            if index % GROUP_EVENTS == 0 {
                let group = id.take().unwrap_or_else(&mut next_id);
                groups.push(EventGroup {
                    order_key: customer.map_or_else(|| group.clone(), str::to_string),
                    id: group,
                    events: Vec::new(),
                });
            }
            if let Some(group) = groups.last_mut() {
                let event_id = event_in_group(&group.id, index % GROUP_EVENTS);
                let mut event =
                    OutgoingEvent::new(event_id, company, event_type, customer, data, at);
                event.order_key = group.order_key.clone();
                group.events.push(event);
            }
        }
        groups
    }

    /// The outbox record of the events of the group `keep` keeps for the
    /// endpoint `endpoint_id` of `company`; none when it keeps none.
    pub fn row(
        &self,
        company: &str,
        endpoint_id: &str,
        keep: impl Fn(&OutgoingEvent) -> bool,
    ) -> Option<Value> {
        let events: Vec<Value> = self
            .events
            .iter()
            .filter(|e| keep(e))
            .map(OutgoingEvent::entry)
            .collect();
        (!events.is_empty()).then(|| {
            json!({
                "id": [company, endpoint_id, self.id],
                "order_key": self.order_key,
                "events": events,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_events_group_is_read_off_its_id_and_groups_keep_their_events_order() {
        let group = "evt_0192a1b2c3d4e5f0123456789";
        let later = "evt_0192a1b2c3d4e6f0123456789";
        let events: Vec<String> = (0..3).map(|place| event_in_group(group, place)).collect();
        assert_eq!(events[2], format!("{group}_0002"));
        assert!(events.iter().all(|event| group_of(event) == group));
        assert_eq!(group_of(later), later, "an event made before groups");
        let mut sorted = vec![
            event_in_group(later, 0),
            events[1].clone(),
            events[0].clone(),
        ];
        sorted.sort();
        assert_eq!(
            sorted,
            [
                events[0].clone(),
                events[1].clone(),
                event_in_group(later, 0)
            ]
        );
    }

    #[test]
    fn a_long_groups_events_are_numbered_in_more_than_one() {
        let at: Timestamp = "2026-12-01T10:00:00Z".parse().unwrap();
        let events = (0..GROUP_EVENTS + 2)
            .map(|n| ("points.changed", json!({ "n": n }), at))
            .collect();
        let mut next = 0;
        let groups = EventGroup::numbered(
            "evt_a".into(),
            || {
                next += 1;
                format!("evt_b{next}")
            },
            "c",
            Some("x"),
            events,
        );
        let sizes: Vec<usize> = groups.iter().map(|g| g.events.len()).collect();
        assert_eq!(sizes, [GROUP_EVENTS, 2]);
        assert_eq!(groups[1].events[1].id, "evt_b1_0001");
        assert!(groups.iter().all(|g| g.order_key == "x"));
    }
}
