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

/// How often an endpoint's round reads its outbox from the first group, not
/// from where the round before left: a group whose transaction committed
/// later than [`LATE`] after its id was taken (or a "send again" made on
/// another process) waits at most this long.
pub(super) const FULL_READ_EVERY: Duration = Duration::from_secs(30);

/// How far back a round reads however far the round before got: the groups
/// of transactions still committing, or of another process's clock behind.
pub(super) const LATE: chrono::Duration = chrono::Duration::seconds(5);

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
    /// Where the next round may start reading (`resume_point`, deliver.rs):
    /// `None` when nothing it read waits; `""` for the first group.
    pub(super) resume: Option<String>,
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
    /// The running rounds (each ending with its endpoint, its next round
    /// and where that reads from), and whose each is.
    pub(super) tasks: JoinSet<(EndpointKey, NextRound, Option<String>)>,
    pub(super) owners: HashMap<tokio::task::Id, EndpointKey>,
    /// Where each endpoint's last round left its outbox (`None`: nothing it
    /// read waits), and when a round last read it from the first group.
    pub(super) resume: HashMap<EndpointKey, (Option<String>, Instant)>,
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
    pub(super) fn ended(
        &mut self,
        id: tokio::task::Id,
        ended: Option<(EndpointKey, NextRound, Option<String>)>,
    ) {
        if let Some(key) = self.owners.remove(&id) {
            self.running.remove(&key);
            match ended {
                Some((_, next, resume)) => {
                    self.next.insert(key.clone(), next);
                    if let Some((left, _)) = self.resume.get_mut(&key) {
                        *left = resume;
                    }
                }
                None => {
                    self.next
                        .insert(key.clone(), NextRound::At(Instant::now() + POLL));
                    self.resume.remove(&key);
                }
            }
        }
    }

    /// Where the round of `key` starting at `now` reads its outbox from:
    /// the first group every [`FULL_READ_EVERY`] (and the first time, and
    /// after a rewind); otherwise where the round before left it, but never
    /// after `recent` (the first id of the last [`LATE`]).
    pub(super) fn read_from(&mut self, key: &EndpointKey, now: Instant, recent: &str) -> String {
        match self.resume.get(key) {
            Some((left, full_read_at)) if now.duration_since(*full_read_at) < FULL_READ_EVERY => {
                match left {
                    Some(left) if left.as_str() < recent => left.clone(),
                    _ => recent.to_string(),
                }
            }
            _ => {
                self.resume.insert(key.clone(), (None, now));
                String::new()
            }
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
            resume: None,
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
            resume: None,
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

    #[test]
    fn a_round_reads_from_where_the_last_left_never_after_the_recent_and_from_the_first_at_times() {
        let key: EndpointKey = ("c".into(), "e".into());
        let mut rounds = Rounds::default();
        let now = Instant::now();
        assert_eq!(rounds.read_from(&key, now, "evt_5"), "", "the first time");
        rounds.resume.get_mut(&key).unwrap().0 = Some("evt_3".into());
        assert_eq!(
            rounds.read_from(&key, now, "evt_5"),
            "evt_3",
            "where it left"
        );
        rounds.resume.get_mut(&key).unwrap().0 = Some("evt_7".into());
        assert_eq!(
            rounds.read_from(&key, now, "evt_5"),
            "evt_5",
            "never after the recent"
        );
        rounds.resume.get_mut(&key).unwrap().0 = None;
        assert_eq!(
            rounds.read_from(&key, now, "evt_5"),
            "evt_5",
            "nothing waited"
        );
        let later = now + FULL_READ_EVERY;
        assert_eq!(
            rounds.read_from(&key, later, "evt_9"),
            "",
            "from the first again"
        );
        rounds.resume.remove(&key);
        assert_eq!(rounds.read_from(&key, later, "evt_9"), "", "rewound");
    }
}
