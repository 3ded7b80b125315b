//! Use-cases: what the HTTP API, the back-office and the CLI ask the service to do.
//!
//! Each use-case validates its input, calls the store, and returns domain
//! records or an [`crate::error::ApiError`]. Nothing here knows about HTTP.

mod associations;
mod auth;
mod bootstrap;
mod carts;
mod cashback;
mod clock;
mod companies;
mod customers;
mod deliveries;
mod draws;
mod events;
mod expiry;
mod holdings;
mod idempotency;
mod instant_wins;
mod keys;
mod languages;
mod locks;
mod merges;
pub mod pagination;
mod points;
mod points_campaigns;
mod random;
mod rate_limits;
mod segments;
mod wallet;

pub use associations::Associate;
pub use auth::{Caller, Credentials, SUPPORTED_API_VERSION};
pub use bootstrap::{Bootstrap, ensure_demo_company};
pub use carts::{CartOutcome, EvaluatedEvent, MAX_CART_LINES};
pub use cashback::CashbackQuote;
pub use clock::Clock;
pub use companies::NewCompany;
pub use customers::{CustomerRef, DeleteMode, MAX_LIST_VALUES};
pub use events::{EventKind, EventOutcome};
pub use instant_wins::{InstantWinFilter, InstantWinSearch, parse_audience};
pub use keys::NewKey;
pub use languages::{CompanyCache, Language, negotiate};
pub use merges::{MergeOutcome, MergeTarget, UnmergeOutcome};
pub use points::{MAX_POINTS, PointsOperation};
pub use random::RandomSource;
pub use rate_limits::{Admission, RateLimiters};
pub use segments::{CalculatedAttributes, SegmentStanding};
pub use wallet::GameStanding;

use std::sync::Arc;

use crate::model::Environment;
use crate::rules::Catalog;
use crate::store::Store;

/// The service's use-cases over one store.
#[derive(Clone, Debug)]
pub struct Services {
    store: Store,
    /// When set, only keys of Companies in this environment are accepted, so a
    /// production deployment never serves a sandbox key and the reverse.
    serve_environment: Option<Environment>,
    /// Every Company's rules, reloaded when their files change.
    catalog: Arc<Catalog>,
    /// Per-Company, per-tier request limiters.
    rate_limiters: Arc<RateLimiters>,
    /// Recently read Company settings.
    companies: Arc<CompanyCache>,
    /// Recently read API keys.
    keys: Arc<auth::KeyCache>,
    /// Where Instant Win draws get their random values.
    random: Arc<RandomSource>,
    /// Wakes the prize delivery worker when a draw wins.
    prize_delivery: Arc<tokio::sync::Notify>,
    /// Serialises debits of one balance within this process.
    balance_locks: Arc<locks::BalanceLocks>,
    /// Where the time comes from.
    clock: Arc<Clock>,
    /// (Company, id, revision) of the API-created campaigns last applied.
    api_campaign_revisions: Arc<std::sync::Mutex<Vec<(String, i64, i64)>>>,
}

impl Services {
    /// Use-cases over `store` with the rules in `catalog`, accepting keys of
    /// `serve_environment` only when set.
    pub fn new(
        store: Store,
        serve_environment: Option<Environment>,
        catalog: Arc<Catalog>,
    ) -> Self {
        Services {
            store,
            serve_environment,
            catalog,
            rate_limiters: Arc::default(),
            companies: Arc::default(),
            keys: Arc::default(),
            random: Arc::new(RandomSource::Os),
            prize_delivery: Arc::default(),
            balance_locks: Arc::default(),
            clock: Arc::default(),
            api_campaign_revisions: Arc::default(),
        }
    }

    /// The same use-cases reading the time from `clock`.
    pub fn with_clock(mut self, clock: Arc<Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The current instant, from the service's clock.
    pub fn now(&self) -> crate::model::Timestamp {
        self.clock.now()
    }

    /// The same use-cases drawing Instant Wins from `random`.
    pub fn with_random(mut self, random: RandomSource) -> Self {
        self.random = Arc::new(random);
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
