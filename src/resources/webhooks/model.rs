//! A webhook endpoint as operators set it and the back office shows it.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;

/// A receiver of a Company's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct WebhookEndpoint {
    /// Its id (`whe_...`).
    pub id: String,
    /// The Company whose events it receives.
    pub company: String,
    /// Where deliveries are POSTed.
    pub url: String,
    /// The event types it receives (`*`: every one).
    pub events: Vec<String>,
    /// The operator's note.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it is sent events; a disabled one keeps its deliveries.
    pub enabled: bool,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it was last changed (its secret rotated included).
    pub updated_at: Timestamp,
}

/// An endpoint just created or given a new secret: the only answer that
/// shows its signing secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct EndpointWithSecret {
    /// The endpoint.
    #[oai(flatten)]
    #[serde(flatten)]
    pub endpoint: WebhookEndpoint,
    /// The key deliveries are signed with (`Loyalty-Signature`,
    /// HMAC-SHA256); shown once, keep it with the receiver.
    pub secret: String,
}

/// What an operator gives to create an endpoint.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct NewWebhookEndpoint {
    /// Where deliveries are POSTed: an `http` or `https` URL resolving to
    /// public addresses (`webhook_url_refused` otherwise).
    #[oai(validator(min_length = 1, max_length = 2048))]
    pub url: String,
    /// The event types it receives, or `["*"]` for every one.
    pub events: Vec<String>,
    /// The operator's note.
    #[oai(validator(max_length = 200))]
    #[serde(default)]
    pub description: Option<String>,
    /// Whether it is sent events from the start (default true).
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// What an operator changes of an endpoint; what is omitted stays.
#[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct WebhookEndpointChange {
    /// A new URL, checked as a new endpoint's.
    #[oai(validator(min_length = 1, max_length = 2048))]
    #[serde(default)]
    pub url: Option<String>,
    /// The event types it receives from now on.
    #[serde(default)]
    pub events: Option<Vec<String>>,
    /// A new note (an empty one removes it).
    #[oai(validator(max_length = 200))]
    #[serde(default)]
    pub description: Option<String>,
    /// Whether it is sent events.
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// A Company's endpoints.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
pub struct WebhookEndpointList {
    /// By creation, oldest first.
    pub endpoints: Vec<WebhookEndpoint>,
}

/// An endpoint deleted.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
pub struct DeletedWebhookEndpoint {
    /// Its id.
    pub id: String,
    /// Always true.
    pub deleted: bool,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, poem_openapi::Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Waiting for its next try (or for an earlier event of its Customer).
    Pending,
    /// A try was answered 2xx.
    Delivered,
    /// Tried for 24 hours without a 2xx; it can be sent again.
    Failed,
}

/// One event's delivery to one endpoint: every try sends the same body
/// with the same `Loyalty-Event-Id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct WebhookDelivery {
    /// The event's id (`evt_...`), the same on every try.
    pub event_id: String,
    /// Its type.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub event_type: String,
    /// Where it stands.
    pub state: DeliveryState,
    /// Tries made.
    pub attempts: i64,
    /// When the event happened.
    pub created_at: Timestamp,
    /// When it is tried next, while pending.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<Timestamp>,
    /// When it was last tried.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_attempt_at: Option<Timestamp>,
    /// The HTTP status of the last try, when the receiver answered.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<i64>,
    /// Why the last try failed, when it did.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When it was delivered.
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_at: Option<Timestamp>,
}

/// An endpoint's latest deliveries.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
pub struct WebhookDeliveryList {
    /// Newest first.
    pub deliveries: Vec<WebhookDelivery>,
}
