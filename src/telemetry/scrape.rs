//! What `GET /metrics` reads when Prometheus scrapes: the states that are
//! not events (the prize outbox's backlog), then every metric as text.

use crate::services::Services;

impl Services {
    /// Every metric in Prometheus' text format, the outbox's backlog read
    /// from the store now. When the store does not answer, the backlog keeps
    /// its last reading and the rest is served all the same: a scrape during
    /// an outage is when the other metrics matter most.
    pub async fn metrics_text(&self) -> String {
        let metrics = &self.metrics;
        metrics.store_queries_so_far(self.store.queries_sent(), self.store.query_time());
        match self.store.prize_outbox_backlog().await {
            Ok((pending, oldest)) => {
                metrics.outbox_pending.set(pending);
                let waited = oldest.map_or(0, |oldest| {
                    (self.now().as_datetime() - oldest.as_datetime())
                        .num_seconds()
                        .max(0)
                });
                metrics.outbox_oldest_seconds.set(waited);
            }
            Err(error) => {
                tracing::warn!(%error, "reading the prize outbox's backlog for the metrics failed");
            }
        }
        metrics.render()
    }
}
