//! The Companies (tenants) and their API keys, as operators manage them.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::common::locale::Locale;
use crate::common::money::DEFAULT_MINOR_UNITS;
use crate::error::ApiError;
use crate::error::ApiResult;

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
    /// ISO 4217 code of the currency amounts are in.
    #[serde(default = "default_currency")]
    pub currency: String,
    /// Decimals amounts are rounded to: the currency's minor unit unless set.
    #[serde(default = "default_minor_units")]
    pub minor_units: u32,
    /// IANA time zone the Company's days, weekdays and hours are counted in.
    #[serde(default = "default_time_zone")]
    pub time_zone: String,
    /// When the Company was created.
    pub created_at: DateTime<Utc>,
}

fn default_currency() -> String {
    "EUR".to_string()
}

fn default_minor_units() -> u32 {
    DEFAULT_MINOR_UNITS
}

fn default_time_zone() -> String {
    "UTC".to_string()
}

impl Company {
    /// How the Company counts money and time. Its time zone was checked when
    /// it was set; one that no longer parses counts in UTC.
    pub fn locale(&self) -> Locale {
        Locale {
            minor_units: self.minor_units,
            time_zone: self.time_zone.parse().unwrap_or(chrono_tz::Tz::UTC),
        }
    }
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
    /// When the key last authenticated a request (to the minute), if ever.
    #[serde(default)]
    pub last_used_at: Option<DateTime<Utc>>,
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

/// A key together with the digest of its secret, for authentication only.
#[derive(Debug, Clone)]
pub struct StoredKey {
    /// The key record.
    pub key: ApiKey,
    /// Digest of the secret (see [`crate::secrets::secret_digest`]).
    pub secret_digest: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_round_trip() {
        assert_eq!(
            "sandbox".parse::<Environment>().unwrap(),
            Environment::Sandbox
        );
        assert!("prod".parse::<Environment>().is_err());
    }
}
