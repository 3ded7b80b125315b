//! Prize delivery: prizes won in draws wait in a durable outbox written by the
//! draw's own transaction, and are delivered after the response, at least
//! once; each delivery is idempotent, so every prize lands exactly once, even
//! when the process stopped between the response and the delivery.

use std::time::Duration;

use tokio::sync::watch;

use super::Services;
use crate::error::ApiResult;

/// Prizes read from the outbox at a time.
const BATCH: usize = 100;

/// How often the outbox is checked when no draw wakes the worker (prizes of
/// another process sharing a remote store, or ones whose delivery failed).
const POLL: Duration = Duration::from_secs(2);

impl Services {
    /// Delivers every prize waiting in the outbox; returns how many it delivered.
    /// A prize that cannot be delivered is logged and left for the next round.
    pub async fn deliver_pending_prizes(&self) -> ApiResult<usize> {
        let mut delivered = 0;
        loop {
            let batch = self.store.pending_prizes(BATCH).await?;
            let mut failed = 0;
            for prize in &batch {
                match self.store.deliver_prize(prize).await {
                    Ok(()) => {
                        delivered += 1;
                        tracing::info!(company = %prize.company, draw = %prize.draw_id, customer = %prize.customer_id,
                            promotion_type = %prize.promotion_type, promotion_id = prize.promotion_id, "prize delivered");
                    }
                    Err(error) => {
                        failed += 1;
                        tracing::warn!(draw = %prize.draw_id, %error, "prize delivery failed; it stays in the outbox");
                    }
                }
            }
            if batch.len() < BATCH || failed > 0 {
                return Ok(delivered);
            }
        }
    }

    /// Delivers prizes until `stopped`: at start (what a stopped process left
    /// behind), whenever a draw wins, and every few seconds.
    pub async fn run_prize_delivery(
        self,
        mut stopped: watch::Receiver<bool>,
    ) -> std::io::Result<()> {
        loop {
            if let Err(error) = self.deliver_pending_prizes().await {
                tracing::warn!(%error, "reading the prize outbox failed");
            }
            tokio::select! {
                _ = self.prize_delivery.notified() => {}
                _ = tokio::time::sleep(POLL) => {}
                _ = stopped.wait_for(|stop| *stop) => return Ok(()),
            }
        }
    }
}
