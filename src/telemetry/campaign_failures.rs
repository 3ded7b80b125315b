//! Campaigns whose expressions fail when events meet them: what the load's
//! checks cannot know beforehand (a value missing from one event's data, a
//! limit of the engine reached). Each failure is counted in `/metrics`
//! (`loyalty_campaign_evaluation_errors_total{company, campaign}`), logged as
//! a warning with the campaign's file and line at most once a minute per
//! campaign, and kept as the campaign's last error for the back office's
//! campaigns page. What this process saw: each server of several keeps its own.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use prometheus::IntCounterVec;

use crate::common::time::Timestamp;
use crate::engine::evaluate::CampaignFailure;

/// How often one campaign's failures are logged.
const LOG_EVERY: Duration = Duration::from_secs(60);

/// A campaign's last failure.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LastFailure {
    /// Where the failing expression is written (`FILE:LINE`).
    pub at: String,
    /// What failed.
    pub message: String,
    /// When it last failed.
    pub when: Timestamp,
    /// How many times it failed since this process started.
    pub count: u64,
}

/// What is kept of one campaign's failures.
struct Kept {
    last: LastFailure,
    logged: Instant,
    /// Failures since it was last logged.
    unlogged: u64,
}

/// Every campaign's failures seen by this process.
pub struct CampaignFailures {
    counter: IntCounterVec,
    kept: Mutex<HashMap<(String, i64), Kept>>,
}

impl std::fmt::Debug for CampaignFailures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CampaignFailures")
    }
}

impl CampaignFailures {
    /// Failures counted into `counter` (`{company, campaign}`).
    pub fn new(counter: IntCounterVec) -> CampaignFailures {
        CampaignFailures {
            counter,
            kept: Mutex::new(HashMap::new()),
        }
    }

    /// Reports the `failures` of one event of `company`, at `now`.
    pub fn report(&self, company: &str, failures: &[CampaignFailure], now: Timestamp) {
        if failures.is_empty() {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        for failure in failures {
            self.counter
                .with_label_values(&[company, &failure.rule_id.to_string()])
                .inc();
            let last = LastFailure {
                at: failure.at.to_string(),
                message: failure.message.clone(),
                when: now,
                count: 1,
            };
            let key = (company.to_string(), failure.rule_id);
            let log_now = match kept.get_mut(&key) {
                Some(entry) => {
                    entry.last = LastFailure {
                        count: entry.last.count + 1,
                        ..last
                    };
                    entry.unlogged += 1;
                    entry.logged.elapsed() >= LOG_EVERY
                }
                None => {
                    kept.insert(
                        key.clone(),
                        Kept {
                            last,
                            logged: Instant::now(),
                            unlogged: 1,
                        },
                    );
                    true
                }
            };
            if let Some(entry) = kept.get_mut(&key)
                && log_now
            {
                tracing::warn!(
                    company,
                    campaign = failure.rule_id,
                    at = %failure.at,
                    times = entry.unlogged,
                    "campaign failed to evaluate (logged at most once a minute): {}",
                    failure.message
                );
                entry.logged = Instant::now();
                entry.unlogged = 0;
            }
        }
    }

    /// The last failure of `company`'s campaign `rule_id`, if it failed.
    pub fn last(&self, company: &str, rule_id: i64) -> Option<LastFailure> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(&(company.to_string(), rule_id))
            .map(|entry| entry.last.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(rule_id: i64) -> CampaignFailure {
        CampaignFailure {
            rule_id,
            at: "shop/wine.yaml:4".into(),
            message: "condition failed: Function not found: > ((), f64)".into(),
        }
    }

    #[test]
    fn failures_are_counted_by_campaign_and_the_last_kept_with_its_count() {
        let counter = IntCounterVec::new(
            prometheus::Opts::new("errors", "errors"),
            &["company", "campaign"],
        )
        .expect("valid counter");
        let failures = CampaignFailures::new(counter.clone());
        let first = "2026-11-28T10:00:00Z"
            .parse::<Timestamp>()
            .expect("a timestamp");
        let later = "2026-11-28T10:00:05Z"
            .parse::<Timestamp>()
            .expect("a timestamp");
        failures.report("shop", &[failure(7)], first);
        failures.report("shop", &[failure(7), failure(8)], later);
        assert_eq!(counter.with_label_values(&["shop", "7"]).get(), 2);
        assert_eq!(counter.with_label_values(&["shop", "8"]).get(), 1);
        let last = failures.last("shop", 7).expect("campaign 7 failed");
        assert_eq!((last.count, last.when), (2, later));
        assert_eq!(last.at, "shop/wine.yaml:4");
        assert_eq!(failures.last("other", 7), None);
        assert_eq!(failures.last("shop", 9), None);
    }
}
