//! One try of one delivery: the event POSTed to its endpoint's receiver,
//! signed ([`super::signature`]), through the client kept for its URL
//! ([`super::clients`]), and what came of it (delivered, tried again after
//! its back-off, or given up after 24 hours), counted in the metrics.

use crate::common::time::Timestamp;
use crate::resources::webhooks::deliver::{GIVE_UP_AFTER, backoff};
use crate::resources::webhooks::outbox::{Attempted, PendingDelivery};
use crate::resources::webhooks::signature::{SIGNATURE_HEADER, signature};
use crate::resources::webhooks::store::StoredEndpoint;
use crate::services::Services;

impl Services {
    /// Tries `delivery` to `endpoint` once: what came of it.
    pub(super) async fn try_delivery(
        &self,
        endpoint: &StoredEndpoint,
        delivery: &PendingDelivery,
    ) -> Attempted {
        let at = self.now();
        let (status, error) = match self.post_delivery(endpoint, delivery, at).await {
            Ok(status) if (200..300).contains(&status) => (Some(status), None),
            Ok(status) => (Some(status), Some(format!("answered {status}"))),
            Err(why) => (None, Some(why)),
        };
        let delivered = error.is_none();
        let attempts = delivery.attempts + 1;
        // The wait runs from the try's end: a try cut after 10 s is not
        // due again the moment it is recorded.
        let retry_at = self.now().as_datetime()
            + chrono::Duration::from_std(backoff(attempts)).unwrap_or_default();
        let given_up = retry_at - delivery.tries_since.as_datetime() > GIVE_UP_AFTER;
        let attempted = Attempted {
            at,
            status,
            next_attempt_at: (!delivered && !given_up).then(|| Timestamp::from(retry_at)),
            error,
            delivered,
        };
        let company = &endpoint.endpoint.company;
        let endpoint_id = &endpoint.endpoint.id;
        let outcome = match (&attempted.error, given_up) {
            (None, _) => "delivered",
            (Some(_), false) => "retrying",
            (Some(_), true) => "failed",
        };
        self.metrics
            .webhook_tries
            .with_label_values(&[company.as_str(), outcome])
            .inc();
        match (&attempted.error, given_up) {
            (None, _) => {
                tracing::debug!(%company, endpoint = %endpoint_id, event = %delivery.event_id, attempts, "webhook delivered")
            }
            (Some(why), false) => {
                tracing::info!(%company, endpoint = %endpoint_id, event = %delivery.event_id, attempts, %why, "webhook try failed; tried again later")
            }
            (Some(why), true) => {
                tracing::warn!(%company, endpoint = %endpoint_id, event = %delivery.event_id, attempts, %why, "webhook failed for 24 hours; given up")
            }
        }
        attempted
    }

    /// POSTs `delivery` to `endpoint` at `at`; its status, or why no
    /// answer came. The request goes to the address the receiver was
    /// checked at ([`super::clients`]); redirects are not followed.
    async fn post_delivery(
        &self,
        endpoint: &StoredEndpoint,
        delivery: &PendingDelivery,
        at: Timestamp,
    ) -> Result<u16, String> {
        let receiver = self
            .webhooks
            .clients
            .client(&endpoint.endpoint.url, self.webhooks.settings)
            .await?;
        let signed = signature(
            &endpoint.secret,
            at.as_datetime().timestamp(),
            &delivery.body,
        );
        let answer = receiver
            .client
            .post(receiver.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("Loyalty-Event-Id", &delivery.event_id)
            .header("Loyalty-Event-Type", &delivery.event_type)
            .header(SIGNATURE_HEADER, signed)
            .body(delivery.body.clone())
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    "no answer within 10 s".to_string()
                } else {
                    format!("no answer: {e}")
                }
            })?;
        Ok(answer.status().as_u16())
    }
}
