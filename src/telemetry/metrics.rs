//! The service's metrics, in Prometheus' text format at `GET /metrics` on the
//! back-office listener. One [`Metrics`] per server, made by
//! [`crate::server::start`] and shared by its listeners, its store and its
//! use-cases; nothing is registered process-wide, so two servers in one
//! process (the tests) count apart.
//!
//! Counters are moved where things happen (the request middleware, the
//! group commit, the store's transactions, the pipeline's draws, campaign
//! reloads); what is a state rather than an event (the outbox's backlog) is
//! read when Prometheus scrapes.

use prometheus::{
    Counter, Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Every metric of one server.
#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    /// `loyalty_http_requests_total{listener, operation, status}`.
    pub requests: IntCounterVec,
    /// `loyalty_http_request_duration_seconds{listener, operation}`.
    pub latency: HistogramVec,
    /// `loyalty_http_errors_total{status, code}`: every error answer by its
    /// code; the 429s and 503s are the refusals by reason.
    pub errors: IntCounterVec,
    /// What the store's writes go through.
    pub store: StoreMetrics,
    /// `loyalty_draws_total{company, campaign}`.
    pub draws: IntCounterVec,
    /// `loyalty_wins_total{company, campaign}`.
    pub wins: IntCounterVec,
    /// `loyalty_campaign_reloads_total{company, outcome}`: `loaded` or
    /// `held_back`.
    pub campaign_reloads: IntCounterVec,
    /// `loyalty_campaign_file_problems_total`: problems found in campaign
    /// files by loads and reloads.
    pub campaign_problems: IntCounter,
    /// `loyalty_campaign_evaluation_errors_total{company, campaign}`:
    /// expressions of a campaign that failed when an event met them
    /// ([`crate::telemetry::campaign_failures`]).
    pub campaign_evaluation_errors: IntCounterVec,
    /// `loyalty_prize_outbox_pending`: prizes won and not delivered yet.
    pub outbox_pending: IntGauge,
    /// `loyalty_prize_outbox_oldest_seconds`: how long the oldest of them
    /// has waited (the delivery lag); 0 when none waits.
    pub outbox_oldest_seconds: IntGauge,
    /// `loyalty_webhook_outbox_pending{company, endpoint}`: deliveries
    /// waiting for each endpoint (read at scrape, counted in up to 100,000
    /// groups).
    pub webhook_pending: IntGaugeVec,
    /// `loyalty_webhook_outbox_oldest_seconds{company, endpoint}`: how long
    /// the first delivery waiting for each endpoint has been tried; 0 when
    /// none waits.
    pub webhook_oldest_seconds: IntGaugeVec,
    /// `loyalty_webhook_tries_total{company, outcome}`: tries of webhook
    /// deliveries, `delivered`, `retrying` or `failed` (given up).
    pub webhook_tries: IntCounterVec,
    /// `loyalty_store_queries_total`: queries sent to the store, each one
    /// round trip to a remote one (brought up to date at each scrape).
    store_queries: IntCounter,
    /// `loyalty_store_query_seconds_total`: the time queries took from
    /// sent to answered, summed: what requests waited on the store.
    store_query_seconds: Counter,
}

/// What the store's writes go through, counted by the store itself.
#[derive(Clone)]
pub struct StoreMetrics {
    /// `loyalty_group_commit_batch_size`: carts and Custom Events recorded
    /// per transaction of the group commit.
    pub batch_size: Histogram,
    /// `loyalty_group_commit_batches_refused_total`: batches refused whole
    /// and recorded event by event.
    pub batches_refused: IntCounter,
    /// `loyalty_store_transaction_conflicts_total`: write transactions
    /// tried again because another one changed the same records.
    pub conflicts: IntCounter,
    /// `loyalty_store_errors_total{reason}`: writes that failed (`busy`,
    /// `unreachable`, `conflicts`, `disk_full`, `failed`).
    pub errors: IntCounterVec,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl std::fmt::Debug for StoreMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreMetrics")
    }
}

/// Request latency buckets, in seconds: a till's cart is a few
/// milliseconds, a catalogue import may be many seconds.
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Group commit batch sizes (its largest batch is 64).
const BATCH_BUCKETS: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];

impl Default for StoreMetrics {
    /// Counters that count but are not registered anywhere (a store opened
    /// by a command or a test without a server).
    fn default() -> Self {
        StoreMetrics {
            batch_size: Histogram::with_opts(
                HistogramOpts::new(
                    "loyalty_group_commit_batch_size",
                    "Carts and Custom Events recorded per group-commit transaction",
                )
                .buckets(BATCH_BUCKETS.to_vec()),
            )
            .expect("valid histogram"),
            batches_refused: IntCounter::new(
                "loyalty_group_commit_batches_refused_total",
                "Group-commit batches refused whole and recorded event by event",
            )
            .expect("valid counter"),
            conflicts: IntCounter::new(
                "loyalty_store_transaction_conflicts_total",
                "Write transactions tried again because another changed the same records",
            )
            .expect("valid counter"),
            errors: IntCounterVec::new(
                Opts::new(
                    "loyalty_store_errors_total",
                    "Store writes that failed, by reason (busy, unreachable, conflicts, disk_full, failed)",
                ),
                &["reason"],
            )
            .expect("valid counter"),
        }
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Every metric, registered in a registry of their own.
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let counter_vec = |name: &str, help: &str, labels: &[&str]| {
            let counter = IntCounterVec::new(Opts::new(name, help), labels).expect("valid counter");
            registry
                .register(Box::new(counter.clone()))
                .expect("registered once");
            counter
        };
        let requests = counter_vec(
            "loyalty_http_requests_total",
            "Requests answered, by listener, operation (method and path template) and status",
            &["listener", "operation", "status"],
        );
        let errors = counter_vec(
            "loyalty_http_errors_total",
            "Error answers by status and code (429 and 503: refusals by reason)",
            &["status", "code"],
        );
        let draws = counter_vec(
            "loyalty_draws_total",
            "Instant Win draws recorded, by Company and campaign",
            &["company", "campaign"],
        );
        let wins = counter_vec(
            "loyalty_wins_total",
            "Instant Win draws recorded that won a prize, by Company and campaign",
            &["company", "campaign"],
        );
        let campaign_reloads = counter_vec(
            "loyalty_campaign_reloads_total",
            "Campaign sets loaded (outcome loaded) or held back by a problem (outcome held_back)",
            &["company", "outcome"],
        );
        let campaign_evaluation_errors = counter_vec(
            "loyalty_campaign_evaluation_errors_total",
            "Expressions of a campaign that failed to evaluate when an event met them, by Company and campaign",
            &["company", "campaign"],
        );
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "loyalty_http_request_duration_seconds",
                "Time from a request's arrival to its answer, by listener and operation",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["listener", "operation"],
        )
        .expect("valid histogram");
        let campaign_problems = IntCounter::new(
            "loyalty_campaign_file_problems_total",
            "Problems found in campaign files by loads and reloads",
        )
        .expect("valid counter");
        let outbox_pending = IntGauge::new(
            "loyalty_prize_outbox_pending",
            "Prizes won and waiting for delivery",
        )
        .expect("valid gauge");
        let outbox_oldest_seconds = IntGauge::new(
            "loyalty_prize_outbox_oldest_seconds",
            "Seconds the oldest prize waiting for delivery has waited (0 when none waits)",
        )
        .expect("valid gauge");
        let webhook_pending = IntGaugeVec::new(
            Opts::new(
                "loyalty_webhook_outbox_pending",
                "Webhook deliveries waiting, by endpoint (counted up to 100,000)",
            ),
            &["company", "endpoint"],
        )
        .expect("valid gauge");
        let webhook_oldest_seconds = IntGaugeVec::new(
            Opts::new(
                "loyalty_webhook_outbox_oldest_seconds",
                "Seconds the first webhook delivery waiting for an endpoint has been tried (0 when none waits)",
            ),
            &["company", "endpoint"],
        )
        .expect("valid gauge");
        let webhook_tries = IntCounterVec::new(
            Opts::new(
                "loyalty_webhook_tries_total",
                "Tries of webhook deliveries by outcome: delivered, retrying or failed (given up)",
            ),
            &["company", "outcome"],
        )
        .expect("valid counter");
        let build = IntGauge::with_opts(
            Opts::new("loyalty_build_info", "The running version (always 1)")
                .const_label("version", env!("CARGO_PKG_VERSION")),
        )
        .expect("valid gauge");
        build.set(1);
        let store_queries = IntCounter::new(
            "loyalty_store_queries_total",
            "Queries sent to the store (each one round trip to a SurrealDB server)",
        )
        .expect("valid counter");
        let store_query_seconds = Counter::new(
            "loyalty_store_query_seconds_total",
            "Time queries took from sent to answered, summed (waiting on the store)",
        )
        .expect("valid counter");
        let store = StoreMetrics::default();
        for collector in [
            Box::new(latency.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(campaign_problems.clone()),
            Box::new(outbox_pending.clone()),
            Box::new(outbox_oldest_seconds.clone()),
            Box::new(webhook_pending.clone()),
            Box::new(webhook_oldest_seconds.clone()),
            Box::new(webhook_tries.clone()),
            Box::new(build),
            Box::new(store_queries.clone()),
            Box::new(store_query_seconds.clone()),
            Box::new(store.batch_size.clone()),
            Box::new(store.batches_refused.clone()),
            Box::new(store.conflicts.clone()),
            Box::new(store.errors.clone()),
        ] {
            registry.register(collector).expect("registered once");
        }
        Metrics {
            registry,
            requests,
            latency,
            errors,
            store,
            draws,
            wins,
            campaign_reloads,
            campaign_problems,
            campaign_evaluation_errors,
            outbox_pending,
            outbox_oldest_seconds,
            webhook_pending,
            webhook_oldest_seconds,
            webhook_tries,
            store_queries,
            store_query_seconds,
        }
    }

    /// Brings the store's query counters up to `queries` sent and
    /// `waited` in all, as the store counts them.
    pub fn store_queries_so_far(&self, queries: u64, waited: std::time::Duration) {
        self.store_queries
            .inc_by(queries.saturating_sub(self.store_queries.get()));
        let more = waited.as_secs_f64() - self.store_query_seconds.get();
        if more > 0.0 {
            self.store_query_seconds.inc_by(more);
        }
    }

    /// Counts a recorded draw of `campaign`, and its win when it `won`.
    pub fn drawn(&self, company: &str, campaign: i64, won: bool) {
        let campaign = campaign.to_string();
        self.draws.with_label_values(&[company, &campaign]).inc();
        if won {
            self.wins.with_label_values(&[company, &campaign]).inc();
        }
    }

    /// Counts what a load or reload of the campaign files did: the
    /// Companies whose set was `loaded`, those `held_back`, and the problems
    /// found.
    pub fn campaigns_reloaded<'a>(
        &self,
        loaded: impl IntoIterator<Item = &'a str>,
        held_back: impl IntoIterator<Item = &'a str>,
        problems: usize,
    ) {
        for company in loaded {
            self.campaign_reloads
                .with_label_values(&[company, "loaded"])
                .inc();
        }
        for company in held_back {
            self.campaign_reloads
                .with_label_values(&[company, "held_back"])
                .inc();
        }
        self.campaign_problems.inc_by(problems as u64);
    }

    /// Every metric in Prometheus' text format.
    pub fn render(&self) -> String {
        let mut text = Vec::new();
        // Encoding into a Vec fails only on metric families the registry
        // itself refused, which it never returns.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut text);
        String::from_utf8(text).unwrap_or_default()
    }
}

/// The content type of [`Metrics::render`].
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_servers_count_apart_and_render_the_text_format() {
        let one = Metrics::new();
        let other = Metrics::new();
        one.requests
            .with_label_values(&["api", "POST /carts/realtime", "200"])
            .inc();
        one.store.batch_size.observe(3.0);
        one.latency
            .with_label_values(&["api", "POST /carts/realtime"])
            .observe(0.002);
        let text = one.render();
        assert!(
            text.contains(
                r#"loyalty_http_requests_total{listener="api",operation="POST /carts/realtime",status="200"} 1"#
            ),
            "{text}"
        );
        assert!(
            text.contains("loyalty_group_commit_batch_size_count 1"),
            "{text}"
        );
        assert!(text.contains("# TYPE loyalty_http_request_duration_seconds histogram"));
        assert!(
            text.contains(
                r#"loyalty_http_request_duration_seconds_bucket{listener="api",operation="POST /carts/realtime",le="0.0025"} 1"#
            ),
            "{text}"
        );
        assert!(!other.render().contains("POST /carts/realtime"));
    }
}
