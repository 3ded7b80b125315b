//! Domain records shared by the store, the services, the API and the back-office.
//!
//! - [`association`]: typed links between Customers.
//! - [`cart`]: carts (transactions) and their lines.
//! - [`customer`]: Customers, their identifiers, consent and cards.
//! - [`event`]: Custom Events and triggers.
//! - [`instant_win`]: Instant Win campaigns as the API lists them.
//! - [`points`]: points and wallet balances and their ledger entries.
//! - [`merge`]: merges of one Customer into another, and what they moved.
//! - [`voucher`]: Vouchers, the personal codes of targeted campaigns.
//! - `time`: [`Timestamp`], the interface's DateTime format.

pub mod association;
pub mod cart;
pub mod customer;
pub mod event;
pub mod instant_win;
pub mod merge;
pub mod points;
mod time;
pub mod voucher;

pub use time::Timestamp;

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};

/// Sandbox and production are separate Companies with separate credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    /// Test data; never mixed with production.
    Sandbox,
    /// Live data.
    Production,
}

impl Environment {
    /// The lowercase name used in storage, JSON and flags.
    pub const fn as_str(self) -> &'static str {
        match self {
            Environment::Sandbox => "sandbox",
            Environment::Production => "production",
        }
    }
}

impl fmt::Display for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Environment {
    type Err = ApiError;

    fn from_str(value: &str) -> ApiResult<Self> {
        match value {
            "sandbox" => Ok(Environment::Sandbox),
            "production" => Ok(Environment::Production),
            other => Err(ApiError::invalid(format!(
                "environment must be `sandbox` or `production`, not `{other}`"
            ))),
        }
    }
}

/// Requests per second a Company may make in each rate-limit tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimits {
    /// Tier 1, critical high-frequency actions (events, point-of-sale look-ups).
    pub critical: u32,
    /// Tier 2, moderate supplementary actions.
    pub moderate: u32,
    /// Tier 3, low-frequency operational management.
    pub low: u32,
}

impl Default for RateLimits {
    /// The interface's tiers: 60, 25 and 10 requests per second.
    fn default() -> Self {
        RateLimits {
            critical: 60,
            moderate: 25,
            low: 10,
        }
    }
}

/// The rate-limit tier of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Tier 1: critical, high-frequency.
    Critical,
    /// Tier 2: moderate.
    Moderate,
    /// Tier 3: low-frequency management.
    Low,
}

impl Tier {
    /// Every tier.
    pub const ALL: [Tier; 3] = [Tier::Critical, Tier::Moderate, Tier::Low];

    /// The tier's name in RateLimit headers.
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Critical => "tier1",
            Tier::Moderate => "tier2",
            Tier::Low => "tier3",
        }
    }

    /// This tier's requests per second in `limits`.
    pub const fn rps(self, limits: &RateLimits) -> u32 {
        match self {
            Tier::Critical => limits.critical,
            Tier::Moderate => limits.moderate,
            Tier::Low => limits.low,
        }
    }
}

/// A retail Company: the tenant every other record belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Company {
    /// Unique short label, e.g. `demo`.
    pub slug: String,
    /// Sandbox or production.
    pub environment: Environment,
    /// Language used when a request names none, or one the Company lacks.
    pub default_language: String,
    /// Every language the Company translates its content into (includes the default).
    pub languages: Vec<String>,
    /// Requests per second per rate-limit tier.
    #[serde(default)]
    pub rate_limits: RateLimits,
    /// When the Company was created.
    pub created_at: DateTime<Utc>,
}

/// An API key as operators see it: never with its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    /// Public identifier sent in `X-Api-Key`.
    pub key: String,
    /// Slug of the Company the key belongs to.
    pub company: String,
    /// Environment of that Company, copied so a key is judged without a join.
    pub environment: Environment,
    /// Operator's label.
    pub description: String,
    /// When false the key grants no access.
    pub enabled: bool,
    /// Platform-managed keys cannot be edited.
    pub system: bool,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
    /// When the key was last enabled or disabled.
    pub updated_at: DateTime<Utc>,
}

/// A key that was just created: the only time its secret is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedApiKey {
    /// The stored key record.
    #[serde(flatten)]
    pub key: ApiKey,
    /// The secret for `X-Api-Secret`; shown once, stored only as a digest.
    pub secret: String,
}

/// Checks a Slug: 1 to 64 letters, digits, underscores or hyphens.
pub fn validate_slug(what: &str, slug: &str) -> ApiResult<()> {
    let valid = !slug.is_empty()
        && slug.len() <= 64
        && slug
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if valid {
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "{what} `{slug}` is not a slug: use 1 to 64 letters, digits, `_` or `-`"
        )))
    }
}

/// Checks a language code such as `es`, `en` or `pt-BR`.
pub fn validate_language(code: &str) -> ApiResult<()> {
    let mut parts = code.split('-');
    let primary_ok = parts
        .next()
        .is_some_and(|p| (2..=3).contains(&p.len()) && p.chars().all(|c| c.is_ascii_lowercase()));
    let rest_ok =
        parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    if primary_ok && rest_ok {
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "`{code}` is not a language code (expected e.g. `es`, `en` or `pt-BR`)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert!(validate_slug("Company", "demo_1-x").is_ok());
        assert!(validate_slug("Company", "").is_err());
        assert!(validate_slug("Company", "with space").is_err());
        assert!(validate_slug("Company", &"a".repeat(65)).is_err());
    }

    #[test]
    fn languages() {
        for ok in ["es", "en", "pt-BR", "ast"] {
            assert!(validate_language(ok).is_ok(), "{ok}");
        }
        for bad in ["", "E", "ES", "english", "es_ES", "es-"] {
            assert!(validate_language(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn environment_round_trip() {
        assert_eq!(
            "sandbox".parse::<Environment>().unwrap(),
            Environment::Sandbox
        );
        assert!("prod".parse::<Environment>().is_err());
    }
}
