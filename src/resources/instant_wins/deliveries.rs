//! Prize delivery: Rewards and game participations won in draws wait in a
//! durable outbox written by the draw's own transaction, and are delivered
//! after the response, at least once; each delivery is idempotent, so every
//! prize lands exactly once, even when the process stopped between the
//! response and the delivery. Points prizes are credited by the draw's
//! transaction itself; the outbox holds them only in stores written before.

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use tokio::sync::watch;

use crate::engine::kinds::CampaignKind;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::customers::service::CustomerRef;
use crate::resources::instant_wins::store::prizes::PendingPrize;
use crate::resources::rewards::gift::GiftWrite;
use crate::resources::rewards::gift::Recipient;
use crate::resources::rewards::gift::gift_write;
use crate::services::Services;
use crate::storage::duties::Duty;

/// What one round of deliveries did.
#[derive(Debug, Default)]
struct Round {
    /// Prizes delivered.
    delivered: usize,
    /// Prizes taken out of the outbox (delivered or abandoned).
    handled: usize,
    /// Prizes whose delivery failed; they stay in the outbox.
    failed: usize,
}

/// Logs one delivered prize.
fn delivered_log(prize: &PendingPrize) {
    tracing::info!(company = %prize.company, draw = %prize.draw_id, customer = %prize.customer_id,
        promotion_type = %prize.promotion_type, promotion_id = prize.promotion_id, "prize delivered");
}

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
            let round = self.deliver_batch(&batch).await;
            delivered += round.delivered;
            if batch.len() < BATCH || round.failed > 0 || round.handled == 0 {
                return Ok(delivered);
            }
        }
    }

    /// Delivers `batch`: the prizes of winners who are still ordinary
    /// Customers in one transaction per Company (a till's busy minute wins
    /// many), the others (merged, anonymized or deleted winners, or a group
    /// whose transaction failed) one by one.
    async fn deliver_batch(&self, batch: &[PendingPrize]) -> Round {
        let mut round = Round::default();
        let mut by_company: BTreeMap<&str, Vec<&PendingPrize>> = BTreeMap::new();
        for prize in batch {
            by_company.entry(&prize.company).or_default().push(prize);
        }
        let mut one_by_one: Vec<&PendingPrize> = Vec::new();
        for (company, prizes) in by_company {
            let mut ids: Vec<String> = prizes.iter().map(|p| p.customer_id.clone()).collect();
            ids.sort();
            ids.dedup();
            let ordinary: HashSet<String> = match self.store.customers_by_ids(company, &ids).await {
                Ok(customers) => customers
                    .into_iter()
                    .filter(|c| c.anonymized_at.is_none() && c.merged_into.is_none())
                    .map(|c| c.id)
                    .collect(),
                Err(_) => HashSet::new(),
            };
            let (direct, other): (Vec<&PendingPrize>, Vec<&PendingPrize>) = prizes
                .into_iter()
                .partition(|prize| ordinary.contains(&prize.customer_id));
            one_by_one.extend(other);
            if direct.is_empty() {
                continue;
            }
            let mut owned = Vec::with_capacity(direct.len());
            for prize in &direct {
                owned.push(((*prize).clone(), self.prize_gift(prize).await));
            }
            match self.store.deliver_prizes(company, &owned, self.now()).await {
                Ok(()) => {
                    for (prize, _) in &owned {
                        delivered_log(prize);
                    }
                    round.delivered += owned.len();
                    round.handled += owned.len();
                }
                Err(error) => {
                    tracing::debug!(company, %error, "delivering prizes together failed; delivering them one by one");
                    one_by_one.extend(direct);
                }
            }
        }
        for prize in one_by_one {
            let delivery = match self.prize_owner(prize).await {
                Ok(Ok(owner)) => {
                    let mut prize = prize.clone();
                    prize.customer_id = owner;
                    self.deliver_one(&prize).await.map(|()| true)
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
                Ok(false) => round.handled += 1,
                Ok(true) => {
                    round.handled += 1;
                    round.delivered += 1;
                    delivered_log(prize);
                }
                Err(error) => {
                    round.failed += 1;
                    tracing::warn!(draw = %prize.draw_id, %error, "prize delivery failed; it stays in the outbox");
                }
            }
        }
        round
    }

    /// What the Reward of `prize` gives its winner, when it is a Reward
    /// still in the Company's campaigns; `None` for other prizes (and for a
    /// Reward that cannot give now, which is then held as it is).
    async fn prize_gift(&self, prize: &PendingPrize) -> Option<GiftWrite> {
        if prize.promotion_type != "reward" {
            return None;
        }
        let rules = self.catalog.company(&prize.company);
        let campaign = rules
            .campaigns
            .iter()
            .find(|c| c.id == prize.promotion_id)?;
        let CampaignKind::Reward(reward) = &campaign.kind else {
            return None;
        };
        let language = match self.company_settings(&prize.company).await {
            Ok(settings) => settings.default_language.clone(),
            Err(_) => "en".to_string(),
        };
        let to = Recipient {
            customer_id: &prize.customer_id,
            transaction_id: &prize.draw_id,
            render: &|text| text.resolve(&language, &language),
            now: self.now(),
        };
        match gift_write(&rules.campaigns, campaign, reward, &to) {
            Ok(gift) => Some(gift),
            Err(error) => {
                tracing::warn!(draw = %prize.draw_id, %error, "the Reward won cannot give what it gives; it is held");
                None
            }
        }
    }

    /// Delivers `prize` on its own with what its Reward gives; a Voucher the
    /// winner already holds as many of as its Coupon issues to one is left
    /// out, and the rest delivered.
    async fn deliver_one(&self, prize: &PendingPrize) -> ApiResult<()> {
        let gift = self.prize_gift(prize).await;
        let delivered = self
            .store
            .deliver_prize(prize, gift.as_ref(), self.now())
            .await;
        match (delivered, gift) {
            (Err(error), Some(mut gift)) if error.code == ErrorCode::CouponIssueLimitReached => {
                gift.voucher = None;
                gift.given.voucher_code = None;
                gift.given.voucher_id = None;
                self.store
                    .deliver_prize(prize, Some(&gift), self.now())
                    .await
            }
            (delivered, _) => delivered,
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

    /// Delivers prizes until `stopped`: whenever a draw of this process
    /// wins, at once; and at start and every few seconds (what a stopped
    /// process left behind, what failed) when this process runs the outbox
    /// for every process sharing the store ([`crate::storage::duties`]).
    /// Two processes delivering one prize at once deliver it once: the
    /// store delivers only a prize still pending.
    pub async fn run_prize_delivery(
        self,
        mut stopped: watch::Receiver<bool>,
    ) -> std::io::Result<()> {
        let mut won_here = false;
        loop {
            if (won_here || self.runs_duty(Duty::PrizeDelivery).await)
                && let Err(error) = self.deliver_pending_prizes().await
            {
                tracing::warn!(%error, "reading the prize outbox failed");
            }
            won_here = tokio::select! {
                _ = self.drawing.prize_delivery.notified() => true,
                _ = tokio::time::sleep(POLL) => false,
                _ = stopped.wait_for(|stop| *stop) => return Ok(()),
            };
        }
    }
}
