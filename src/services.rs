//! Use-cases: what the HTTP API, the back-office and the CLI ask the service to do.
//!
//! Each use-case validates its input, calls the store, and returns domain
//! records or an [`crate::error::ApiError`]. The handle holds what they
//! share, each area's state in a handle of its own: the request gate's
//! ([`crate::http::gate::Gate`], read only by the HTTP layer's own steps,
//! which are functions given the handle, not its methods), Instant Win
//! draws' ([`crate::resources::instant_wins::drawing`]), the balances'
//! locks, the caches of Company settings and master data.

use std::sync::Arc;

use crate::common::clock::Clock;
use crate::common::random::RandomSource;
use crate::engine::catalog::Catalog;
use crate::http::gate::Gate;
use crate::resources::companies::model::Environment;
use crate::resources::companies::settings::CompanyCache;
use crate::resources::instant_wins::drawing::Drawing;
use crate::storage::Store;

/// The service's use-cases over one store.
#[derive(Clone, Debug)]
pub struct Services {
    pub(crate) store: Store,
    /// When set, only keys of Companies in this environment are accepted, so a
    /// production deployment never serves a sandbox key and the reverse.
    pub(crate) serve_environment: Option<Environment>,
    /// Every Company's rules, reloaded when their files change.
    pub(crate) catalog: Arc<Catalog>,
    /// What requests pass through before their use-case: keys, rate
    /// limits, Idempotency-Keys.
    pub(crate) gate: Gate,
    /// Recently read Company settings.
    pub(crate) companies: Arc<CompanyCache>,
    /// What `GET /metrics` reports; the store counts into it too.
    pub(crate) metrics: Arc<crate::telemetry::metrics::Metrics>,
    /// Campaigns whose expressions failed on events, with their last error.
    pub(crate) campaign_failures: Arc<crate::telemetry::campaign_failures::CampaignFailures>,
    /// Where Instant Win draws come from, and what a win wakes.
    pub(crate) drawing: Drawing,
    /// Serialises debits of one balance within this process.
    pub(crate) balance_locks: Arc<crate::resources::points::locks::BalanceLocks>,
    /// Where the time comes from.
    pub(crate) clock: Arc<Clock>,
    /// How far a sent event `date` may be from the clock.
    pub(crate) event_dates: crate::pipeline::dates::EventDates,
    /// (Company, id, revision) of the API-created campaigns last applied.
    pub(crate) api_campaign_revisions: Arc<std::sync::Mutex<Vec<(String, i64, i64)>>>,
    /// Every Company's master data (Products, Locations, taxonomies) as
    /// events read it.
    pub(crate) master_data: Arc<crate::resources::master_data::cache::MasterDataCache>,
    /// How webhook receivers are treated.
    pub(crate) webhooks: crate::resources::webhooks::Webhooks,
    /// This process among those sharing the store
    /// ([`crate::storage::instances`]): what it holds names it.
    pub(crate) instance_id: Arc<str>,
}

impl Services {
    /// Use-cases over `store` with the rules in `catalog`, accepting keys of
    /// `serve_environment` only when set.
    pub fn new(
        mut store: Store,
        serve_environment: Option<Environment>,
        catalog: Arc<Catalog>,
    ) -> Self {
        let metrics = Arc::new(crate::telemetry::metrics::Metrics::new());
        store.metrics = metrics.store.clone();
        let campaign_failures =
            Arc::new(crate::telemetry::campaign_failures::CampaignFailures::new(
                metrics.campaign_evaluation_errors.clone(),
            ));
        Services {
            store,
            campaign_failures,
            metrics,
            serve_environment,
            catalog,
            gate: Gate::default(),
            companies: Arc::default(),
            drawing: Drawing::default(),
            balance_locks: Arc::default(),
            clock: Arc::default(),
            event_dates: Default::default(),
            api_campaign_revisions: Arc::default(),
            master_data: Arc::default(),
            webhooks: Default::default(),
            instance_id: crate::common::ids::time_ordered_id("srv").into(),
        }
    }

    /// The same use-cases accepting event dates within `limits`.
    pub fn with_event_dates(mut self, limits: crate::pipeline::dates::EventDates) -> Self {
        self.event_dates = limits;
        self
    }

    /// The same use-cases letting one API key look up `limit` unknown
    /// Voucher codes a minute.
    pub fn with_unknown_codes_per_minute(mut self, limit: u32) -> Self {
        self.gate.code_guesses =
            Arc::new(crate::resources::vouchers::guesses::CodeGuesses::new(limit));
        self
    }

    /// The same use-cases treating webhook receivers as `settings` say.
    pub fn with_webhooks(mut self, settings: crate::resources::webhooks::WebhookSettings) -> Self {
        self.webhooks.settings = settings;
        self
    }

    /// The same use-cases reading the time from `clock`.
    pub fn with_clock(mut self, clock: Arc<Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// For crash tests: from now on (`crash` true) keyed requests end as if
    /// the process died once their handler returned, before their
    /// Idempotency-Key is completed; what their operation wrote with its
    /// answer ([`crate::http::idempotency::answer`]) is all a retry finds.
    pub fn crash_before_key_completion(&self, crash: bool) {
        self.gate
            .crash_before_key_completion
            .store(crash, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether keyed requests end before their key's completion
    /// ([`Services::crash_before_key_completion`]).
    pub(crate) fn crashes_before_key_completion(&self) -> bool {
        self.gate
            .crash_before_key_completion
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// This process's id among those sharing the store
    /// ([`crate::storage::instances`]).
    pub fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// How many server processes share the store, this one included, as
    /// last counted (each second); every rate limit is shared among them.
    pub fn processes_sharing_the_store(&self) -> u32 {
        self.gate.rate_limiters.processes()
    }

    /// Whether the store answers ([`crate::storage::health`]): while it does
    /// not, requests are refused at once.
    pub fn store_reachable(&self) -> bool {
        self.store.is_reachable()
    }

    /// Whether this process runs the background job `duty` for every
    /// process sharing the store, now ([`crate::storage::duties`]); when the
    /// store cannot say, the job waits for the next round.
    pub(crate) async fn runs_duty(&self, duty: crate::storage::duties::Duty) -> bool {
        match self
            .store
            .holds_duty(duty, &self.instance_id, self.now())
            .await
        {
            Ok(held) => held,
            Err(error) => {
                tracing::warn!(%error, job = duty.name(), "asking whether this process runs a background job failed");
                false
            }
        }
    }

    /// The service's clock (a manual one can be set and moved).
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Where error codes answered without being declared in the spec are
    /// kept (see [`crate::http::errors::JsonErrors`]).
    pub fn undeclared_errors(&self) -> Arc<crate::http::errors::UndeclaredErrors> {
        self.gate.undeclared_errors.clone()
    }

    /// The current instant, from the service's clock.
    pub fn now(&self) -> crate::common::time::Timestamp {
        self.clock.now()
    }

    /// The same use-cases drawing Instant Wins from `random`.
    pub fn with_random(mut self, random: RandomSource) -> Self {
        self.drawing.random = Arc::new(random);
        self
    }

    /// The rules of every Company.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The underlying store.
    pub fn store(&self) -> &Store {
        &self.store
    }
}
