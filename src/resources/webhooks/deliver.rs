//! The delivery worker: one process of those sharing the store
//! ([`crate::storage::duties`]) POSTs each delivery waiting in the outbox
//! ([`super::outbox`]) to its endpoint, signed ([`super::signature`]), and
//! records what came of it. A 2xx within 10 s delivers; anything else is
//! tried again after 1 s, 2 s, 4 s, ... up to an hour between tries, for
//! 24 hours, then the delivery is failed (and can be sent again).
//!
//! Each enabled endpoint has rounds of its own, so a slow or dead receiver
//! holds up only its own deliveries. A round reads the oldest waiting
//! deliveries of its endpoint (from the first group the round before left
//! waiting, [`resume_point`]; from the first of all every 30 seconds and
//! after a "send again") and sends each Customer's in the order their
//! events happened, one after the other (the next only once the one before
//! was answered 2xx), several Customers at once; then it records every try
//! in one write. An endpoint whose round delivered something has its next
//! round a quarter second after that one started (the events meanwhile go
//! out together); one with nothing due waits for new events (which the
//! writes that make them tell of, [`super::emit::Subscriptions::touched`])
//! or for its earliest retry; one whose every try failed waits for its
//! earliest retry, whatever comes meanwhile.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::common::stamps::first_id_since;
use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::webhooks::emit::EndpointKey;
use crate::resources::webhooks::outbox::Attempted;
use crate::resources::webhooks::outbox::PendingDelivery;
use crate::resources::webhooks::outbox::WaitingPage;
use crate::resources::webhooks::rounds::{LATE, NextRound, POLL, RoundOutcome, Rounds};
use crate::resources::webhooks::store::StoredEndpoint;
use crate::services::Services;
use crate::storage::duties::Duty;

/// How often the worker looks for endpoints with new events or a round
/// due: events recorded meanwhile go out in one round, whose reads and
/// writes they share.
const TICK: Duration = Duration::from_millis(50);

/// The longest wait between two tries.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// How long a delivery is tried.
pub(super) const GIVE_UP_AFTER: chrono::Duration = chrono::Duration::hours(24);

/// How often settled deliveries older than the server keeps are deleted.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

/// Groups of settled deliveries deleted in one write.
const PRUNED_AT_ONCE: usize = 1000;

/// Groups of waiting deliveries an endpoint's round reads (a cart's
/// events are a group or two).
const ROUND: usize = 500;

/// Requests an endpoint is sent at once (each Customer's one at a time).
const IN_FLIGHT_PER_ENDPOINT: usize = 32;

/// The wait after the `attempts`-th failed try: 1 s, doubled each time,
/// at most an hour.
pub(crate) fn backoff(attempts: i64) -> Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1))
        .unwrap_or(u32::MAX)
        .min(12);
    Duration::from_secs(1u64 << doublings).min(MAX_BACKOFF)
}

/// The deliveries of `pending` (an endpoint's, in the order of their
/// events) to send at `now`, by key in the order each key first appears:
/// a key's deliveries from the first, as long as each is due. A key whose
/// first is not due yet (backing off) sends none: its later events wait.
pub(crate) fn due_chains(
    pending: Vec<PendingDelivery>,
    now: Timestamp,
) -> Vec<Vec<PendingDelivery>> {
    let mut chains: Vec<Vec<PendingDelivery>> = Vec::new();
    // Each key's chain while it is open; `None` once it stopped.
    let mut by_key: HashMap<String, Option<usize>> = HashMap::new();
    for delivery in pending {
        let due = delivery.next_attempt_at <= now;
        match (by_key.get(&delivery.order_key).copied(), due) {
            (Some(None), _) => {}
            (Some(Some(index)), true) => chains[index].push(delivery),
            (None, true) => {
                by_key.insert(delivery.order_key.clone(), Some(chains.len()));
                chains.push(vec![delivery]);
            }
            (_, false) => {
                by_key.insert(delivery.order_key, None);
            }
        }
    }
    chains
}

/// When the first of `pending`'s deliveries that may be sent is due: the
/// earliest of each key's first (the others wait for it).
fn earliest_head_due(pending: &[PendingDelivery]) -> Option<Timestamp> {
    let mut seen = HashSet::new();
    pending
        .iter()
        .filter(|delivery| seen.insert(delivery.order_key.as_str()))
        .map(|delivery| delivery.next_attempt_at)
        .min()
}

/// Where the next round of an endpoint may start reading its outbox, after
/// the round that read `page` and made `tried`: the first group it leaves
/// waiting (a Customer's later groups wait behind it, so no read may pass
/// it); when it settled all it read, the last group of a full page (more
/// wait after it), or `None`: nothing it read waits.
pub(crate) fn resume_point(
    page: &WaitingPage,
    tried: &[(PendingDelivery, Attempted)],
) -> Option<String> {
    let settled: HashSet<&str> = tried
        .iter()
        .filter(|(_, attempted)| attempted.next_attempt_at.is_none())
        .map(|(delivery, _)| delivery.event_id.as_str())
        .collect();
    let waiting = page
        .deliveries
        .iter()
        .find(|delivery| !settled.contains(delivery.event_id.as_str()));
    match (waiting, page.deliveries.last()) {
        (Some(waiting), _) => Some(waiting.group.clone()),
        (None, Some(last)) if page.full => Some(last.group.clone()),
        _ => None,
    }
}

impl Services {
    /// Delivers webhooks until `stopped`, while this process runs the
    /// outbox for every process sharing the store.
    pub async fn run_webhook_delivery(
        self,
        mut stopped: watch::Receiver<bool>,
    ) -> std::io::Result<()> {
        let mut read_at: Option<Instant> = None;
        let mut runs_it = false;
        let mut rounds = Rounds::default();
        let mut pruning: Option<(Instant, tokio::task::JoinHandle<()>)> = None;
        loop {
            let tick = Instant::now();
            let told = self.store.memory.webhooks.touched();
            // A "send again" put an old id back: read those from the first.
            for key in self.store.memory.webhooks.rewound() {
                rounds.resume.remove(&key);
            }
            // An endpoint created a moment ago is read at once.
            let unknown = told.iter().any(|key| !rounds.endpoints.contains_key(key));
            rounds.told.extend(told);
            if unknown || read_at.is_none_or(|at| at.elapsed() >= POLL) {
                read_at = Some(tick);
                // Every process writes the events of its requests: each
                // reads which endpoints receive them.
                if let Err(error) = self.refresh_webhook_subscriptions().await {
                    tracing::warn!(%error, "reading the webhook endpoints failed");
                }
                runs_it = self.runs_duty(Duty::WebhookDelivery).await;
                if runs_it {
                    match self.store.enabled_webhook_endpoints().await {
                        Ok(endpoints) => {
                            // A disabled endpoint's test events wait for it.
                            rounds.told.retain(|key| endpoints.contains_key(key));
                            rounds.endpoints = endpoints;
                        }
                        Err(error) => {
                            tracing::warn!(%error, "reading the webhook endpoints failed")
                        }
                    }
                }
            }
            if runs_it {
                self.start_due_rounds(&mut rounds, tick);
                let prune = pruning.as_ref().is_none_or(|(started, task)| {
                    task.is_finished() && started.elapsed() >= PRUNE_EVERY
                });
                if prune {
                    let services = self.clone();
                    pruning = Some((
                        tick,
                        tokio::spawn(async move {
                            if let Err(error) = services.prune_settled_webhooks().await {
                                tracing::warn!(%error, "deleting old webhook deliveries failed");
                            }
                        }),
                    ));
                }
            }
            tokio::select! {
                Some(ended) = rounds.tasks.join_next_with_id() => match ended {
                    Ok((id, ended)) => rounds.ended(id, Some(ended)),
                    Err(error) => {
                        tracing::warn!(%error, "a webhook delivery round stopped");
                        rounds.ended(error.id(), None);
                    }
                },
                _ = tokio::time::sleep(TICK.saturating_sub(tick.elapsed())) => {}
                _ = stopped.wait_for(|stop| *stop) => return Ok(()),
            }
        }
    }

    /// Deletes the settled deliveries of every endpoint whose events are
    /// older than the server keeps them, a slice at a time.
    pub(crate) async fn prune_settled_webhooks(&self) -> ApiResult<()> {
        let days = i64::from(self.webhooks.settings.keep_settled_days);
        let before = first_id_since("evt", chrono::Duration::days(days));
        for (company, endpoint) in self.store.webhook_endpoint_keys().await? {
            let mut deleted = 0;
            loop {
                let slice = self
                    .store
                    .prune_webhook_deliveries(&company, &endpoint, &before, PRUNED_AT_ONCE)
                    .await?;
                deleted += slice;
                if slice < PRUNED_AT_ONCE {
                    break;
                }
            }
            if deleted > 0 {
                tracing::info!(%company, %endpoint, groups = deleted, days, "old webhook deliveries deleted");
            }
        }
        Ok(())
    }

    /// Starts the round of every enabled endpoint that is due at `now`.
    fn start_due_rounds(&self, rounds: &mut Rounds, now: Instant) {
        let keys: Vec<EndpointKey> = rounds.endpoints.keys().cloned().collect();
        let recent = first_id_since("evt", LATE);
        for key in keys {
            if !rounds.due(&key, rounds.told.contains(&key), now) {
                continue;
            }
            rounds.told.remove(&key);
            let Some(endpoint) = rounds.endpoints.get(&key).cloned() else {
                continue;
            };
            let services = self.clone();
            let round_key = key.clone();
            let from = rounds.read_from(&key, now, &recent);
            let task = rounds.tasks.spawn(async move {
                let started = Instant::now();
                let (next, resume) = match services.deliver_round(&endpoint, &from).await {
                    Ok(outcome) => (
                        outcome.next_round(started, Instant::now(), services.now()),
                        outcome.resume,
                    ),
                    Err(error) => {
                        tracing::warn!(%error, endpoint = %endpoint.endpoint.id, "reading or recording webhook deliveries failed");
                        // Not known what it left: the next reads from the first.
                        (NextRound::At(Instant::now() + POLL), Some(String::new()))
                    }
                };
                (round_key, next, resume)
            });
            rounds.owners.insert(task.id(), key.clone());
            rounds.running.insert(key);
        }
    }

    /// One round of `endpoint`: every delivery due now sent, each
    /// Customer's in order and several Customers at once, and what came of
    /// them recorded in one write.
    async fn deliver_round(&self, known: &StoredEndpoint, from: &str) -> ApiResult<RoundOutcome> {
        let company = &known.endpoint.company;
        let id = &known.endpoint.id;
        // As it is now: disabled, deleted or changed (a new URL, a new
        // secret) a moment ago, on any process.
        let endpoint = match self.store.webhook_endpoint(company, id).await? {
            Some(endpoint) if endpoint.endpoint.enabled => endpoint,
            // Its deliveries wait: once enabled, it reads them from the first.
            _ => {
                return Ok(RoundOutcome {
                    resume: Some(String::new()),
                    ..RoundOutcome::default()
                });
            }
        };
        let page = self
            .store
            .pending_webhook_deliveries(company, id, from, ROUND)
            .await?;
        let pending = &page.deliveries;
        let now = self.now();
        let mut outcome = RoundOutcome {
            earliest_due: earliest_head_due(pending),
            resume: resume_point(&page, &[]),
            ..RoundOutcome::default()
        };
        let chains = due_chains(pending.clone(), now);
        if chains.is_empty() {
            return Ok(outcome);
        }
        let queue = Arc::new(Mutex::new(VecDeque::from(chains)));
        let mut senders = JoinSet::new();
        for _ in 0..IN_FLIGHT_PER_ENDPOINT.min(queue.lock().map_or(0, |q| q.len())) {
            let services = self.clone();
            let endpoint = endpoint.clone();
            let queue = queue.clone();
            senders.spawn(async move {
                let mut tried = Vec::new();
                loop {
                    let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                    let Some(chain) = next else {
                        return tried;
                    };
                    for delivery in chain {
                        let attempted = services.try_delivery(&endpoint, &delivery).await;
                        let delivered = attempted.delivered;
                        tried.push((delivery, attempted));
                        // A Customer's next event waits for this one.
                        if !delivered {
                            break;
                        }
                    }
                }
            });
        }
        let mut tried = Vec::new();
        while let Some(done) = senders.join_next().await {
            if let Ok(done) = done {
                tried.extend(done);
            }
        }
        outcome.delivered = tried.iter().filter(|(_, a)| a.delivered).count();
        outcome.failed = tried.len() - outcome.delivered;
        outcome.earliest_due = tried
            .iter()
            .filter_map(|(_, attempted)| attempted.next_attempt_at)
            .min();
        outcome.resume = resume_point(&page, &tried);
        self.store
            .record_webhook_attempts(company, id, pending, &tried)
            .await?;
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::webhooks::groups::group_of;

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

    fn pending(key: &str, event: &str, due: &str) -> PendingDelivery {
        PendingDelivery {
            group: event.into(),
            event_id: event.into(),
            event_type: "points.changed".into(),
            order_key: key.into(),
            body: "{}".into(),
            created_at: "2026-11-29T10:00:00Z".parse().unwrap(),
            attempts: 0,
            tries_since: "2026-11-29T10:00:00Z".parse().unwrap(),
            next_attempt_at: due.parse().unwrap(),
            last_try: Default::default(),
        }
    }

    #[test]
    fn a_customers_events_go_in_order_and_wait_behind_one_backing_off() {
        let now: Timestamp = "2026-11-29T10:00:10Z".parse().unwrap();
        let chains = due_chains(
            vec![
                pending("x", "evt_1", "2026-11-29T10:05:00Z"),
                pending("y", "evt_2", "2026-11-29T10:00:00Z"),
                pending("x", "evt_3", "2026-11-29T10:00:00Z"),
                pending("z", "evt_4", "2026-11-29T10:00:00Z"),
                pending("y", "evt_5", "2026-11-29T10:00:00Z"),
                pending("z", "evt_6", "2026-11-29T10:09:00Z"),
                pending("z", "evt_7", "2026-11-29T10:00:00Z"),
            ],
            now,
        );
        let sent: Vec<Vec<&str>> = chains
            .iter()
            .map(|chain| chain.iter().map(|d| d.event_id.as_str()).collect())
            .collect();
        // evt_3 waits behind evt_1, which backs off; y goes on in order; z
        // stops at evt_6, not due, and evt_7 waits behind it.
        assert_eq!(sent, [vec!["evt_2", "evt_5"], vec!["evt_4"]]);
    }

    fn attempted(delivered: bool, retry: Option<&str>) -> Attempted {
        Attempted {
            at: "2026-11-29T10:00:10Z".parse().unwrap(),
            status: Some(if delivered { 200 } else { 503 }),
            error: (!delivered).then(|| "answered 503".into()),
            delivered,
            next_attempt_at: retry.map(|at| at.parse().unwrap()),
        }
    }

    #[test]
    fn the_next_round_reads_from_the_first_group_left_waiting() {
        let mut read = vec![
            pending("x", "evt_1_0000", "2026-11-29T10:00:00Z"),
            pending("x", "evt_1_0001", "2026-11-29T10:00:00Z"),
            pending("y", "evt_2_0000", "2026-11-29T10:00:00Z"),
        ];
        for delivery in &mut read {
            delivery.group = group_of(&delivery.event_id).to_string();
        }
        let page = WaitingPage {
            deliveries: read.clone(),
            full: false,
        };
        let delivered = |d: &PendingDelivery| (d.clone(), attempted(true, None));
        let all = [
            delivered(&read[0]),
            delivered(&read[1]),
            delivered(&read[2]),
        ];
        assert_eq!(resume_point(&page, &all), None, "nothing waits");
        let full = WaitingPage {
            full: true,
            ..page.clone()
        };
        assert_eq!(
            resume_point(&full, &all).as_deref(),
            Some("evt_2"),
            "more may wait"
        );
        let retried = [
            delivered(&read[0]),
            (
                read[1].clone(),
                attempted(false, Some("2026-11-29T10:00:11Z")),
            ),
            delivered(&read[2]),
        ];
        assert_eq!(resume_point(&page, &retried).as_deref(), Some("evt_1"));
        let given_up = [
            delivered(&read[0]),
            (read[1].clone(), attempted(false, None)),
        ];
        assert_eq!(
            resume_point(&page, &given_up).as_deref(),
            Some("evt_2"),
            "a given-up event no longer waits; the next group not tried does"
        );
        assert_eq!(resume_point(&page, &[]).as_deref(), Some("evt_1"));
    }
}
