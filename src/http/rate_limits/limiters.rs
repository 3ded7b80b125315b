//! Rate limits per Company and tier: GCRA limiters (the `governor` crate), one
//! per Company and tier, so memory grows with Companies, never with keys or
//! clients. Only authenticated requests reach them.
//!
//! A Company's limits hold for the whole cluster: when several processes
//! share a remote store, each admits its share of every quota, one part in
//! as many as there are live processes ([`crate::storage::instances`], which
//! every process renews each second). Admitting a request costs no store
//! access; a load balancer that spreads requests evenly gets the whole quota.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

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
    /// How many processes share the limits.
    processes: u32,
    limiters: [Limiter; 3],
}

/// This process's part of `rps` requests per second (and as large a burst)
/// shared by `processes`: the rate divided exactly, the burst rounded up.
fn share(rps: u32, processes: u32) -> Quota {
    let rps = rps.max(1);
    let processes = processes.max(1);
    let burst = NonZeroU32::new(rps.div_ceil(processes)).unwrap_or(NonZeroU32::MIN);
    let period = Duration::from_secs_f64(f64::from(processes) / f64::from(rps));
    Quota::with_period(period)
        .unwrap_or_else(|| Quota::per_second(burst))
        .allow_burst(burst)
}

impl CompanyLimiters {
    fn new(limits: RateLimits, processes: u32) -> Self {
        let limiter = |tier: Tier| {
            RateLimiter::direct(share(tier.rps(&limits), processes))
                .with_middleware::<StateInformationMiddleware>()
        };
        CompanyLimiters {
            limits,
            processes,
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
#[derive(Debug)]
pub struct RateLimiters {
    companies: RwLock<HashMap<String, Arc<CompanyLimiters>>>,
    /// How many processes share the store, this one included.
    processes: AtomicU32,
}

impl Default for RateLimiters {
    fn default() -> Self {
        RateLimiters {
            companies: RwLock::default(),
            processes: AtomicU32::new(1),
        }
    }
}

impl RateLimiters {
    fn get(&self, company: &str) -> Option<Arc<CompanyLimiters>> {
        self.companies.read().ok()?.get(company).cloned()
    }

    /// Shares every quota among `processes` live processes from now on (the
    /// limiters start afresh when the number changes).
    pub fn set_processes(&self, processes: u32) {
        self.processes.store(processes.max(1), Ordering::Relaxed);
    }

    /// How many processes the quotas are shared among.
    pub fn processes(&self) -> u32 {
        self.processes.load(Ordering::Relaxed)
    }

    /// The current limiters (and their state) when neither the limits nor
    /// the number of processes changed; new ones when either did.
    fn for_limits(&self, company: &str, limits: RateLimits) -> Arc<CompanyLimiters> {
        let processes = self.processes();
        if let Some(current) = self
            .get(company)
            .filter(|c| c.limits == limits && c.processes == processes)
        {
            return current;
        }
        let fresh = Arc::new(CompanyLimiters::new(limits, processes));
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

/// Charges one request of `tier` to `company`.
pub async fn admit(services: &Services, company: &str, tier: Tier) -> ApiResult<RateVerdict> {
    // The Company's limits come from the shared settings cache, so a change
    // made through another server applies within its refresh time.
    let limits = services.company_settings(company).await?.rate_limits;
    let limiters = services.gate.rate_limiters.for_limits(company, limits);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_process_admits_its_share_of_the_rate_and_the_burst() {
        let whole = share(20, 1);
        assert_eq!(whole.burst_size().get(), 20);
        assert_eq!(whole.replenish_interval(), Duration::from_millis(50));
        let half = share(20, 2);
        assert_eq!(half.burst_size().get(), 10);
        assert_eq!(half.replenish_interval(), Duration::from_millis(100));
        // One request a second over three processes: a third each, and a
        // burst of one (the burst is rounded up, never to nothing).
        let third = share(1, 3);
        assert_eq!(third.burst_size().get(), 1);
        assert_eq!(third.replenish_interval(), Duration::from_secs(3));
    }

    #[test]
    fn limiters_start_afresh_when_the_number_of_processes_changes() {
        let limiters = RateLimiters::default();
        let limits = RateLimits {
            critical: 4,
            moderate: 2,
            low: 1,
        };
        let alone = limiters.for_limits("c", limits);
        assert!(Arc::ptr_eq(&alone, &limiters.for_limits("c", limits)));
        limiters.set_processes(2);
        let shared = limiters.for_limits("c", limits);
        assert!(!Arc::ptr_eq(&alone, &shared));
        assert_eq!(shared.processes, 2);
        let admitted = (0..10)
            .filter(|_| shared.limiters[index(Tier::Tier1)].check().is_ok())
            .count();
        assert_eq!(admitted, 2, "half of a burst of 4");
    }
}
