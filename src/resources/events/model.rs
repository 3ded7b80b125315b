//! Custom Events and triggers: things a Customer did, sent by the integrator.

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;

/// What an event or association `type` may be (a slug), as the spec states it.
pub const SLUG_PATTERN: &str = "^[A-Za-z0-9_-]{1,64}$";

/// A Custom Event or trigger as sent.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct NewEvent {
    /// The Customer's id; or name them with `customer_code`.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer's code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The type, a slug campaigns listen to with `on: { custom_event: TYPE }` (or `trigger:`).
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    #[oai(validator(min_length = 1, max_length = 64))]
    pub kind: String,
    /// Free data; conditions see it as `event.data` (or `trigger.data`).
    #[oai(default)]
    #[serde(default)]
    #[oai(validator(max_properties = 100))]
    pub data: BTreeMap<String, serde_json::Value>,
    /// When it happened (default: now).
    pub date: Option<Timestamp>,
    /// Voucher codes, or `all`, the Customer wants to use.
    #[oai(default)]
    #[serde(default)]
    #[oai(validator(max_items = 50))]
    pub coupons_desired: Vec<String>,
}

/// A recorded Custom Event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct CustomEvent {
    /// Identifier (`evt_...`).
    pub id: String,
    /// The Customer.
    pub customer_id: String,
    /// The type.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    /// The data sent.
    pub data: BTreeMap<String, serde_json::Value>,
    /// When it happened.
    pub date: Timestamp,
    /// Points earned by its effects.
    pub points_earned: i64,
    /// When the service recorded it.
    pub created_at: Timestamp,
}
