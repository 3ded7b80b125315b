//! Background work done once for all the processes sharing a store: each job
//! (points expiry, prize delivery, the purge of expired Idempotency-Keys,
//! webhook delivery) is run by one process at a time, the one that holds
//! it. A process holds a job
//! from the moment it takes it until it stops or its lease on the store
//! lapses ([`crate::storage::instances`]); then the next process that asks
//! takes it over. Taking a job is one transaction on one record, so two
//! processes asking at once never both hold it.
//!
//! Holding is a saving, not the guarantee: every job's writes are themselves
//! compare-and-set (a prize is delivered only while pending, points expire
//! only from the balance read), so a process that runs a job it just lost
//! changes nothing twice.

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::storage::Store;

/// A job one process runs for the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duty {
    /// Points whose expiry came are taken from the balances.
    PointsExpiry,
    /// Won prizes waiting in the outbox are delivered.
    PrizeDelivery,
    /// Expired Idempotency-Keys are deleted.
    IdempotencyPurge,
    /// Webhook deliveries waiting in the outbox are sent.
    WebhookDelivery,
}

impl Duty {
    /// The id of the job's record.
    pub const fn name(self) -> &'static str {
        match self {
            Duty::PointsExpiry => "points_expiry",
            Duty::PrizeDelivery => "prize_delivery",
            Duty::IdempotencyPurge => "idempotency_purge",
            Duty::WebhookDelivery => "webhook_delivery",
        }
    }
}

/// Takes the job when it is free (never taken, or its holder is this
/// process, stopped or no longer renewing its lease); answers whether
/// `$holder` holds it.
const HOLD: &str = "BEGIN TRANSACTION;
    LET $record = type::record('background_job', $job);
    LET $found = $record.*;
    LET $free = $found == NONE OR $found.holder == $holder
        OR ((type::record('server_instance', $found.holder).alive_until) ?? '') <= $now;
    IF $free AND ($found == NONE OR $found.holder != $holder) {
        UPSERT $record CONTENT { holder: $holder, since: $now } RETURN NONE;
    };
    $free;
    COMMIT TRANSACTION;";

impl Store {
    /// Whether the process `holder` runs `duty` at `now`, taking it over
    /// when its holder is gone.
    pub async fn holds_duty(&self, duty: Duty, holder: &str, now: Timestamp) -> ApiResult<bool> {
        if !self.remote {
            // No other process can open an embedded store.
            return Ok(true);
        }
        let mut response = self
            .transact(|db| {
                db.query(HOLD)
                    .bind(("job", duty.name()))
                    .bind(("holder", holder.to_string()))
                    .bind(("now", now.to_string()))
            })
            .await?;
        let index = response.num_statements().saturating_sub(2);
        let held: Option<bool> = response.take(index).map_err(crate::storage::store_error)?;
        Ok(held.unwrap_or(false))
    }

    /// The process that holds `duty`, if any has taken it.
    pub async fn duty_holder(&self, duty: Duty) -> ApiResult<Option<String>> {
        crate::storage::first(
            self.db
                .query("RETURN type::record('background_job', $job).holder")
                .bind(("job", duty.name())),
        )
        .await
    }
}
