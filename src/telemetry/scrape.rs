//! What `GET /metrics` reads when Prometheus scrapes: the states that are
//! not events (the prize and webhook outboxes' backlogs), then every metric
//! as text.

use crate::common::time::Timestamp;
use crate::services::Services;

/// The most groups of webhook deliveries a scrape counts for one endpoint
/// (a cart's events are a group or two): a receiver down for days leaves
/// millions, which a count would read whole.
const WEBHOOK_BACKLOG_COUNTED: usize = 100_000;

impl Services {
    /// Every metric in Prometheus' text format, the outboxes' backlogs read
    /// from the store now. When the store does not answer, the backlog keeps
    /// its last reading and the rest is served all the same: a scrape during
    /// an outage is when the other metrics matter most.
    pub async fn metrics_text(&self) -> String {
        let metrics = &self.metrics;
        metrics.store_queries_so_far(self.store.queries_sent(), self.store.query_time());
        match self.store.prize_outbox_backlog().await {
            Ok((pending, oldest)) => {
                metrics.outbox_pending.set(pending);
                metrics
                    .outbox_oldest_seconds
                    .set(self.seconds_since(oldest));
            }
            Err(error) => {
                tracing::warn!(%error, "reading the prize outbox's backlog for the metrics failed");
            }
        }
        self.scrape_webhook_backlog().await;
        metrics.render()
    }

    /// The webhook outbox's backlog by endpoint; a deleted endpoint's
    /// figures go with it.
    async fn scrape_webhook_backlog(&self) {
        let metrics = &self.metrics;
        match self
            .store
            .webhook_outbox_backlog(WEBHOOK_BACKLOG_COUNTED)
            .await
        {
            Ok(backlogs) => {
                metrics.webhook_pending.reset();
                metrics.webhook_oldest_seconds.reset();
                for backlog in backlogs {
                    let labels = [backlog.company.as_str(), backlog.endpoint.as_str()];
                    metrics
                        .webhook_pending
                        .with_label_values(&labels)
                        .set(backlog.pending);
                    metrics
                        .webhook_oldest_seconds
                        .with_label_values(&labels)
                        .set(self.seconds_since(backlog.waiting_since));
                }
            }
            Err(error) => {
                tracing::warn!(%error, "reading the webhook outbox's backlog for the metrics failed");
            }
        }
    }

    /// Whole seconds from `since` to now on the service's clock; 0 for none.
    fn seconds_since(&self, since: Option<Timestamp>) -> i64 {
        since.map_or(0, |since| {
            (self.now().as_datetime() - since.as_datetime())
                .num_seconds()
                .max(0)
        })
    }
}
