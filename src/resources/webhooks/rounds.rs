//! When each endpoint's next delivery round is: the delivery worker's
//! ([`super::deliver`]) view of the endpoints it delivers to, and what a
//! round's outcome says of the next.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use crate::common::time::Timestamp;
use crate::resources::webhooks::emit::EndpointKey;
use crate::resources::webhooks::store::StoredEndpoint;

/// How often the endpoints and the job's lease are read again, and the
/// longest an endpoint with nothing due waits before its outbox is read
/// again.
pub(super) const POLL: Duration = Duration::from_secs(1);

/// The least time from the start of a round that delivered to the start of
/// the next: under a steady stream of events, those of this time go out
/// together, one read and one write for all of them (each write of the
/// outbox costs the store far more than its rows: a `DELETE` reads the
/// whole schema). An endpoint that was idle is sent a new event at once.
pub(super) const ROUND_SPACING: Duration = Duration::from_millis(250);

/// When an endpoint's next round is, after one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NextRound {
    /// When new events are told of, or at this instant.
    OnNewEventsOr(Instant),
    /// At this instant (its receiver failed every try), whatever comes.
    At(Instant),
}

/// What one round of an endpoint came to.
#[derive(Debug, Default)]
pub(super) struct RoundOutcome {
    pub(super) delivered: usize,
    pub(super) failed: usize,
    /// When the earliest delivery read and not delivered is due.
    pub(super) earliest_due: Option<Timestamp>,
}

impl RoundOutcome {
    /// When the endpoint's next round is, this one having started at
    /// `started` and ended at `now` (`clock_now` on the service's clock):
    /// after one that delivered, [`ROUND_SPACING`] after its start (more may
    /// wait).
    pub(super) fn next_round(
        &self,
        started: Instant,
        now: Instant,
        clock_now: Timestamp,
    ) -> NextRound {
        let until_due = self
            .earliest_due
            .map(|due| {
                (due.as_datetime() - clock_now.as_datetime())
                    .to_std()
                    .unwrap_or_default()
            })
            .unwrap_or(POLL);
        match (self.delivered, self.failed) {
            (0, 0) => NextRound::OnNewEventsOr(now + until_due.min(POLL)),
            (0, _) => NextRound::At(now + until_due),
            _ => NextRound::At((started + ROUND_SPACING).max(now)),
        }
    }
}

/// The worker's view of every endpoint it delivers to.
#[derive(Default)]
pub(super) struct Rounds {
    /// The enabled endpoints, as last read.
    pub(super) endpoints: HashMap<EndpointKey, StoredEndpoint>,
    /// When each endpoint's next round is (none yet: at once).
    pub(super) next: HashMap<EndpointKey, NextRound>,
    /// The endpoints whose round is running.
    pub(super) running: HashSet<EndpointKey>,
    /// The endpoints told of new events since their last round started.
    pub(super) told: HashSet<EndpointKey>,
    /// The running rounds, and whose each is.
    pub(super) tasks: JoinSet<(EndpointKey, NextRound)>,
    pub(super) owners: HashMap<tokio::task::Id, EndpointKey>,
}

impl Rounds {
    /// Whether the round of `key` is due at `now`, new events of it told
    /// of or not.
    pub(super) fn due(&self, key: &EndpointKey, told: bool, now: Instant) -> bool {
        if self.running.contains(key) {
            return false;
        }
        match self.next.get(key) {
            None => true,
            Some(NextRound::OnNewEventsOr(at)) => told || now >= *at,
            Some(NextRound::At(at)) => now >= *at,
        }
    }

    /// A round ended (or its task did, `None` when it panicked).
    pub(super) fn ended(&mut self, id: tokio::task::Id, next: Option<(EndpointKey, NextRound)>) {
        if let Some(key) = self.owners.remove(&id) {
            self.running.remove(&key);
            let next = next.map_or(NextRound::At(Instant::now() + POLL), |(_, next)| next);
            self.next.insert(key, next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_that_delivered_goes_on_after_the_spacing_one_that_failed_waits_for_its_retry() {
        let now = Instant::now();
        let clock: Timestamp = "2026-11-29T10:00:00Z".parse().unwrap();
        let retry: Timestamp = "2026-11-29T10:00:04Z".parse().unwrap();
        let delivered = RoundOutcome {
            delivered: 3,
            failed: 1,
            earliest_due: Some(retry),
        };
        let started = now - Duration::from_millis(100);
        assert_eq!(
            delivered.next_round(started, now, clock),
            NextRound::At(started + ROUND_SPACING)
        );
        let long = now - Duration::from_secs(2);
        assert_eq!(delivered.next_round(long, now, clock), NextRound::At(now));
        let failed = RoundOutcome {
            delivered: 0,
            failed: 2,
            earliest_due: Some(retry),
        };
        assert_eq!(
            failed.next_round(now, now, clock),
            NextRound::At(now + Duration::from_secs(4))
        );
        let idle = RoundOutcome::default();
        assert_eq!(
            idle.next_round(now, now, clock),
            NextRound::OnNewEventsOr(now + POLL)
        );
    }
}
