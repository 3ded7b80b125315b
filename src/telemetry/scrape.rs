//! What `GET /metrics` reads when Prometheus scrapes: the states that are
//! not events (the prize outbox's backlog), then every metric as text.

use crate::error::ApiResult;
use crate::services::Services;

impl Services {
    /// Every metric in Prometheus' text format, the outbox's backlog read
    /// from the store now.
    pub async fn metrics_text(&self) -> ApiResult<String> {
        let (pending, oldest) = self.store.prize_outbox_backlog().await?;
        let metrics = &self.metrics;
        metrics.outbox_pending.set(pending);
        let waited = oldest.map_or(0, |oldest| {
            (self.now().as_datetime() - oldest.as_datetime())
                .num_seconds()
                .max(0)
        });
        metrics.outbox_oldest_seconds.set(waited);
        Ok(metrics.render())
    }
}
