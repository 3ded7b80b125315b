//! Rate limits per Company and tier: GCRA limiters (the `governor` crate), one
//! per Company and tier, so memory grows with Companies, never with keys or
//! clients. Only authenticated requests reach them.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, RwLock};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

use crate::error::ApiResult;
use crate::resources::companies::model::RateLimits;
use crate::services::Services;

type Limiter = RateLimiter<NotKeyed, InMemoryState, DefaultClock, StateInformationMiddleware>;

#[derive(Debug)]
struct CompanyLimiters {
    limits: RateLimits,
    limiters: [Limiter; 3],
}

impl CompanyLimiters {
    fn new(limits: RateLimits) -> Self {
        let limiter = |tier: Tier| {
            let rps = NonZeroU32::new(tier.rps(&limits)).unwrap_or(NonZeroU32::MIN);
            RateLimiter::direct(Quota::per_second(rps))
                .with_middleware::<StateInformationMiddleware>()
        };
        CompanyLimiters {
            limits,
            limiters: [
                limiter(Tier::Tier1),
                limiter(Tier::Tier2),
                limiter(Tier::Tier3),
            ],
        }
    }
}

fn index(tier: Tier) -> usize {
    match tier {
        Tier::Tier1 => 0,
        Tier::Tier2 => 1,
        Tier::Tier3 => 2,
    }
}

/// The limiters of every Company that has made a request.
#[derive(Debug, Default)]
pub struct RateLimiters {
    companies: RwLock<HashMap<String, Arc<CompanyLimiters>>>,
}

impl RateLimiters {
    fn get(&self, company: &str) -> Option<Arc<CompanyLimiters>> {
        self.companies.read().ok()?.get(company).cloned()
    }

    /// The current limiters (and their state) when the limits did not change;
    /// new ones when they did.
    fn for_limits(&self, company: &str, limits: RateLimits) -> Arc<CompanyLimiters> {
        if let Some(current) = self.get(company).filter(|c| c.limits == limits) {
            return current;
        }
        let fresh = Arc::new(CompanyLimiters::new(limits));
        if let Ok(mut companies) = self.companies.write() {
            companies.insert(company.to_string(), fresh.clone());
        }
        fresh
    }
}

/// The answer to "may this request run now?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateVerdict {
    /// The tier that was charged.
    pub tier: Tier,
    /// Its limit in requests per second.
    pub limit: u32,
    /// Requests left in the current burst.
    pub remaining: u32,
    /// When refused: whole seconds until a retry succeeds (at least 1).
    pub retry_after: Option<u64>,
}

impl Services {
    /// Charges one request of `tier` to `company`.
    pub async fn admit(&self, company: &str, tier: Tier) -> ApiResult<RateVerdict> {
        // The Company's limits come from the shared settings cache, so a change
        // made through another server applies within its refresh time.
        let limits = self.company_settings(company).await?.rate_limits;
        let limiters = self.rate_limiters.for_limits(company, limits);
        let limit = tier.rps(&limiters.limits);
        Ok(match limiters.limiters[index(tier)].check() {
            Ok(snapshot) => RateVerdict {
                tier,
                limit,
                remaining: snapshot.remaining_burst_capacity(),
                retry_after: None,
            },
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                RateVerdict {
                    tier,
                    limit,
                    remaining: 0,
                    retry_after: Some(wait.as_secs_f64().ceil().max(1.0) as u64),
                }
            }
        })
    }
}

/// The rate-limit tier of an endpoint: tier 1 to 3, as the interface, the
/// `RateLimit` headers (`tier1`) and the extractors
/// ([`crate::http::auth::Tier1`]) call them.
// The variants are the tiers' names everywhere else; a shorter name would
// be a fourth one.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Tier 1: critical, high-frequency (`critical` in a Company's rate limits).
    Tier1,
    /// Tier 2: moderate (`moderate`).
    Tier2,
    /// Tier 3: low-frequency management (`low`).
    Tier3,
}

impl Tier {
    /// Every tier.
    pub const ALL: [Tier; 3] = [Tier::Tier1, Tier::Tier2, Tier::Tier3];

    /// The tier's name in RateLimit headers.
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Tier1 => "tier1",
            Tier::Tier2 => "tier2",
            Tier::Tier3 => "tier3",
        }
    }

    /// The tier named `name` in RateLimit headers (`tier1`...).
    pub fn from_name(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|tier| tier.name() == name)
    }

    /// This tier's requests per second in `limits`.
    pub const fn rps(self, limits: &RateLimits) -> u32 {
        match self {
            Tier::Tier1 => limits.critical,
            Tier::Tier2 => limits.moderate,
            Tier::Tier3 => limits.low,
        }
    }
}
