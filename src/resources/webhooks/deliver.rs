//! The delivery worker: one process of those sharing the store
//! ([`crate::storage::duties`]) POSTs each pending delivery to its
//! endpoint, signed ([`super::signature`]), and records what came of it. A
//! 2xx within 10 s delivers; anything else is tried again after 1 s, 2 s,
//! 4 s, ... up to an hour between tries, for 24 hours, then the delivery
//! is failed (and can be sent again). Deliveries of one Customer to one
//! endpoint go one at a time, in the order their events happened; a slow
//! or dead receiver holds up only its own.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::webhooks::outbox::Attempted;
use crate::resources::webhooks::outbox::PendingDelivery;
use crate::resources::webhooks::signature::SIGNATURE_HEADER;
use crate::resources::webhooks::signature::signature;
use crate::resources::webhooks::store::StoredEndpoint;
use crate::services::Services;
use crate::storage::duties::Duty;

/// How often the outbox is read when nothing wakes the worker, and the
/// endpoints and the job's lease are read again.
const POLL: Duration = Duration::from_secs(1);

/// The shortest time between two rounds: events recorded meanwhile go out
/// in one round, whose reads and writes they share.
const ROUND_SPACING: Duration = Duration::from_millis(50);

/// The longest wait between two tries.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// How long a delivery is tried.
const GIVE_UP_AFTER: chrono::Duration = chrono::Duration::hours(24);

/// Pending deliveries read per round: the heads of their Customers' queues
/// are tried.
const ROUND: usize = 1000;

/// The wait after the `attempts`-th failed try: 1 s, doubled each time,
/// at most an hour.
pub(crate) fn backoff(attempts: i64) -> Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1))
        .unwrap_or(u32::MAX)
        .min(12);
    Duration::from_secs(1u64 << doublings).min(MAX_BACKOFF)
}

/// The deliveries of `pending` (in the order of their events) to try at
/// `now`: the first of each endpoint's queue of each key, when it is due.
pub(crate) fn due_heads(pending: Vec<PendingDelivery>, now: Timestamp) -> Vec<PendingDelivery> {
    let mut seen = HashSet::new();
    pending
        .into_iter()
        .filter(|delivery| {
            seen.insert((
                delivery.company.clone(),
                delivery.endpoint_id.clone(),
                delivery.order_key.clone(),
            ))
        })
        .filter(|delivery| delivery.next_attempt_at <= now)
        .collect()
}

impl Services {
    /// Delivers webhooks until `stopped`: at once when an event of this
    /// process is recorded, and every second while this process runs the
    /// outbox for every process sharing the store.
    pub async fn run_webhook_delivery(
        self,
        mut stopped: watch::Receiver<bool>,
    ) -> std::io::Result<()> {
        let mut read_at: Option<Instant> = None;
        let mut runs_it = false;
        loop {
            let round = Instant::now();
            if read_at.is_none_or(|at| at.elapsed() >= POLL) {
                read_at = Some(round);
                // Every process writes the events of its requests: each
                // reads which endpoints receive them.
                if let Err(error) = self.refresh_webhook_subscriptions().await {
                    tracing::warn!(%error, "reading the webhook endpoints failed");
                }
                runs_it = self.runs_duty(Duty::WebhookDelivery).await;
            }
            if runs_it && let Err(error) = self.deliver_due_webhooks().await {
                tracing::warn!(%error, "reading the webhook outbox failed");
            }
            tokio::select! {
                _ = self.webhooks.wake.notified() => {}
                _ = tokio::time::sleep(POLL) => {}
                _ = stopped.wait_for(|stop| *stop) => return Ok(()),
            }
            tokio::time::sleep(ROUND_SPACING.saturating_sub(round.elapsed())).await;
        }
    }

    /// Tries every delivery due now, at once, and records what came of
    /// them in one write; answers how many were tried.
    pub(crate) async fn deliver_due_webhooks(&self) -> ApiResult<usize> {
        let pending = self.store.pending_webhook_deliveries(ROUND).await?;
        let due = due_heads(pending, self.now());
        let mut endpoints: HashMap<(String, String), Option<StoredEndpoint>> = HashMap::new();
        let mut tries = JoinSet::new();
        for delivery in due {
            let key = (delivery.company.clone(), delivery.endpoint_id.clone());
            if !endpoints.contains_key(&key) {
                let found = self.store.webhook_endpoint(&key.0, &key.1).await?;
                endpoints.insert(key.clone(), found);
            }
            // A disabled endpoint keeps its deliveries for when it is
            // enabled again; a deleted one took them with it.
            let Some(Some(endpoint)) = endpoints.get(&key) else {
                continue;
            };
            if !endpoint.endpoint.enabled {
                continue;
            }
            let services = self.clone();
            let endpoint = endpoint.clone();
            tries.spawn(async move {
                let attempted = services.try_delivery(&endpoint, &delivery).await;
                (delivery, attempted)
            });
        }
        let mut tried = Vec::new();
        while let Some(done) = tries.join_next().await {
            if let Ok(done) = done {
                tried.push(done);
            }
        }
        self.store.record_webhook_attempts(&tried).await?;
        Ok(tried.len())
    }

    /// Tries `delivery` to `endpoint` once: what came of it.
    async fn try_delivery(
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
        let retry_at =
            at.as_datetime() + chrono::Duration::from_std(backoff(attempts)).unwrap_or_default();
        let given_up = retry_at - delivery.tries_since.as_datetime() > GIVE_UP_AFTER;
        let attempted = Attempted {
            at,
            status,
            next_attempt_at: (!delivered && !given_up).then(|| Timestamp::from(retry_at)),
            error,
            delivered,
        };
        match (&attempted.error, given_up) {
            (None, _) => {
                tracing::debug!(company = %delivery.company, endpoint = %delivery.endpoint_id, event = %delivery.event_id, attempts, "webhook delivered")
            }
            (Some(why), false) => {
                tracing::info!(company = %delivery.company, endpoint = %delivery.endpoint_id, event = %delivery.event_id, attempts, %why, "webhook try failed; tried again later")
            }
            (Some(why), true) => {
                tracing::warn!(company = %delivery.company, endpoint = %delivery.endpoint_id, event = %delivery.event_id, attempts, %why, "webhook failed for 24 hours; given up")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_back_off_from_a_second_to_an_hour() {
        let waits: Vec<u64> = (1..=14).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(
            waits,
            [
                1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3600, 3600
            ]
        );
    }

    fn pending(endpoint: &str, key: &str, event: &str, due: &str) -> PendingDelivery {
        PendingDelivery {
            company: "c".into(),
            endpoint_id: endpoint.into(),
            event_id: event.into(),
            event_type: "points.changed".into(),
            order_key: key.into(),
            body: "{}".into(),
            attempts: 0,
            tries_since: "2026-11-29T10:00:00Z".parse().unwrap(),
            next_attempt_at: due.parse().unwrap(),
        }
    }

    #[test]
    fn a_customers_later_events_wait_for_the_first_to_an_endpoint() {
        let now: Timestamp = "2026-11-29T10:00:10Z".parse().unwrap();
        let heads = due_heads(
            vec![
                pending("e1", "x", "evt_1", "2026-11-29T10:05:00Z"),
                pending("e1", "x", "evt_2", "2026-11-29T10:00:00Z"),
                pending("e2", "x", "evt_1", "2026-11-29T10:00:00Z"),
                pending("e1", "y", "evt_3", "2026-11-29T10:00:00Z"),
            ],
            now,
        );
        let tried: Vec<(&str, &str)> = heads
            .iter()
            .map(|d| (d.endpoint_id.as_str(), d.event_id.as_str()))
            .collect();
        // evt_2 waits behind evt_1, which backs off; other endpoints and
        // Customers go on.
        assert_eq!(tried, [("e2", "evt_1"), ("e1", "evt_3")]);
    }
}
