//! The event types an endpoint subscribes to, as deliveries name them in
//! `type`; `*` subscribes to every one.

use crate::error::ApiError;
use crate::error::ApiResult;

/// Every event type, in the order the documentation lists them.
pub const EVENT_TYPES: &[&str] = &[
    "customer.created",
    "customer.updated",
    "customer.merged",
    "customer.anonymized",
    "cart.recorded",
    "cart.cancelled",
    "custom_event.recorded",
    "points.changed",
    "tier.changed",
    "voucher.issued",
    "voucher.redeemed",
    "voucher.rolled_back",
    "reward.redeemed",
    "reward.rolled_back",
    "prize.won",
    "prize.delivered",
    "challenge.completed",
    "game.played",
];

/// The event an operator sends an endpoint to try it, whatever it
/// subscribes to.
pub const TEST_EVENT: &str = "webhook.test";

/// A subscription to every event type.
pub const EVERY_EVENT: &str = "*";

/// `events` as an endpoint keeps them: each a known type or `*`, without
/// repeats, in the order written; refused when empty or naming an unknown
/// type.
pub(crate) fn checked_events(events: &[String]) -> ApiResult<Vec<String>> {
    if events.is_empty() {
        return Err(ApiError::invalid(
            "an endpoint subscribes to at least one event type (or `*` for all)",
        ));
    }
    let mut kept: Vec<String> = Vec::new();
    for event in events {
        let event = event.trim();
        if event != EVERY_EVENT && !EVENT_TYPES.contains(&event) {
            return Err(ApiError::invalid(format!(
                "unknown event type `{event}`; known: {}, or `*` for all",
                EVENT_TYPES.join(", ")
            )));
        }
        if !kept.iter().any(|known| known == event) {
            kept.push(event.to_string());
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(events: &[&str]) -> Vec<String> {
        events.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn known_types_and_the_wildcard_are_kept_once_in_order() {
        let kept = checked_events(&strings(&["points.changed", "*", " points.changed "]));
        assert_eq!(kept.unwrap(), strings(&["points.changed", "*"]));
    }

    #[test]
    fn an_unknown_type_or_none_at_all_is_refused() {
        let unknown = checked_events(&strings(&["points.change"])).unwrap_err();
        assert!(unknown.message.contains("points.change"), "{unknown}");
        assert!(checked_events(&[]).is_err());
    }
}
