//! Prize delivery: prizes won in draws wait in a durable outbox written by the
//! draw's own transaction, and are delivered after the response, at least
//! once; each delivery is idempotent, so every prize lands exactly once, even
//! when the process stopped between the response and the delivery.

use std::time::Duration;

use tokio::sync::watch;

use super::Services;
use super::customers::CustomerRef;
use crate::error::{ApiResult, ErrorCode};
use crate::store::PendingPrize;

/// Prizes read from the outbox at a time.
const BATCH: usize = 100;

/// How often the outbox is checked when no draw wakes the worker (prizes of
/// another process sharing a remote store, or ones whose delivery failed).
const POLL: Duration = Duration::from_secs(2);

impl Services {
    /// Delivers every prize waiting in the outbox; returns how many it
    /// delivered. A prize whose delivery fails is logged and left for the next
    /// round; one whose winner was deleted or anonymized is taken out unsent.
    pub async fn deliver_pending_prizes(&self) -> ApiResult<usize> {
        let mut delivered = 0;
        loop {
            let batch = self.store.pending_prizes(BATCH).await?;
            let mut failed = 0;
            let mut handled = 0;
            for prize in &batch {
                let delivery = match self.prize_owner(prize).await {
                    Ok(Ok(owner)) => {
                        let mut prize = prize.clone();
                        prize.customer_id = owner;
                        self.store.deliver_prize(&prize).await.map(|()| true)
                    }
                    Ok(Err(reason)) => {
                        tracing::warn!(draw = %prize.draw_id, customer = %prize.customer_id, reason,
                            "the winner is gone; the prize is not delivered");
                        self.store
                            .abandon_prize(&prize.draw_id, reason)
                            .await
                            .map(|()| false)
                    }
                    Err(error) => Err(error),
                };
                match delivery {
                    Ok(false) => handled += 1,
                    Ok(true) => {
                        handled += 1;
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
            if batch.len() < BATCH || failed > 0 || handled == 0 {
                return Ok(delivered);
            }
        }
    }

    /// Who receives `prize`: its winner or, when the winner was merged since,
    /// the Customer they were merged into; why nobody does when the winner was
    /// deleted or anonymized since.
    async fn prize_owner(&self, prize: &PendingPrize) -> ApiResult<Result<String, &'static str>> {
        let mut owner = prize.customer_id.clone();
        // Merges can chain (A into B, then B into C); a chain is short, and the
        // bound stops a corrupted cycle from spinning.
        for _ in 0..16 {
            let found = self
                .find_customer(&prize.company, CustomerRef::id(&owner))
                .await;
            match found {
                Ok(stored) if stored.customer.anonymized_at.is_some() => {
                    return Ok(Err("customer_anonymized"));
                }
                Ok(stored) => match stored.customer.merged_into {
                    Some(survivor) => owner = survivor,
                    None => return Ok(Ok(owner)),
                },
                Err(error) if error.code == ErrorCode::CustomerNotFound => {
                    return Ok(Err("customer_deleted"));
                }
                Err(error) => return Err(error),
            }
        }
        Ok(Ok(owner))
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
