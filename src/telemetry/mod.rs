//! What operators and on-call engineers read of a running server:
//!
//! - [`metrics`]: the counters and histograms behind `GET /metrics`.
//! - [`campaign_failures`]: campaigns whose expressions fail on events:
//!   counted, logged once a minute, kept for the back office.
//! - [`requests`]: every request's id, span, log line and metrics.
//! - [`scrape`]: what a scrape reads from the store (the prize outbox's backlog).

pub mod campaign_failures;
pub mod metrics;
pub mod requests;
pub mod scrape;
