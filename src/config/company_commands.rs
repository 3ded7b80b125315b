//! The operator commands on Companies and their API keys.

use clap::{Args, Subcommand};

use crate::config::BackOfficeArgs;
use crate::config::EnvironmentArg;

/// `loyalty keys ...`
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create a key; prints its value and secret (the secret is shown only now).
    Create {
        /// Slug of the Company the key belongs to.
        #[arg(long)]
        company: String,
        /// Label of the key, e.g. "POS middleware".
        #[arg(long)]
        description: String,
        /// Create the key disabled.
        #[arg(long)]
        disabled: bool,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// List keys (never their secrets).
    List {
        /// Only the keys of this Company.
        #[arg(long)]
        company: Option<String>,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Disable a key: calls with it get 403; the record is kept.
    Disable {
        /// The key value (X-Api-Key).
        key: String,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Enable a key again.
    Enable {
        /// The key value (X-Api-Key).
        key: String,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
}

/// A Company's currency and time zone.
#[derive(Debug, Clone, Args)]
pub struct LocaleArgs {
    /// ISO 4217 currency code (default on creation: EUR).
    #[arg(long)]
    pub currency: Option<String>,
    /// Decimals amounts are rounded to (default: the currency's minor unit).
    #[arg(long)]
    pub minor_units: Option<u32>,
    /// IANA time zone days and hours are counted in, e.g. `Europe/Madrid`
    /// (default on creation: UTC).
    #[arg(long)]
    pub time_zone: Option<String>,
}

/// `loyalty companies ...`
#[derive(Debug, Subcommand)]
pub enum CompaniesCommand {
    /// Create a Company (tenant).
    Create {
        /// Unique slug: letters, digits, `_` or `-`.
        slug: String,
        /// Sandbox or production.
        #[arg(long, value_enum)]
        environment: EnvironmentArg,
        /// Default language.
        #[arg(long, default_value = "en")]
        language: String,
        /// Languages the Company translates into, comma-separated.
        #[arg(long, value_delimiter = ',')]
        languages: Vec<String>,
        /// Requests per second of tiers 1, 2 and 3, e.g. `60,25,10` (the default).
        #[arg(long, value_delimiter = ',', num_args = 1)]
        rate_limits: Option<Vec<u32>>,
        #[command(flatten)]
        locale: LocaleArgs,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Change a Company's currency, minor unit or time zone.
    Update {
        /// The Company.
        slug: String,
        #[command(flatten)]
        locale: LocaleArgs,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Set a Company's rate limits (requests per second per tier).
    Limits {
        /// The Company.
        slug: String,
        /// Tier 1 (critical: events, point-of-sale look-ups).
        #[arg(long)]
        critical: u32,
        /// Tier 2 (moderate).
        #[arg(long)]
        moderate: u32,
        /// Tier 3 (low: management).
        #[arg(long)]
        low: u32,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// List Companies.
    List {
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
}
