//! The operator commands that act on a Company's data in bulk: targeted
//! Instant Wins, Vouchers issued in bulk, catalogue imports.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use crate::config::BackOfficeArgs;

/// `loyalty instant-wins ...`
#[derive(Debug, Subcommand)]
pub enum InstantWinsCommand {
    /// Assign a targeted Instant Win to Customers: each gets a Voucher to take
    /// part with (a Customer who holds one keeps it). Prints the Vouchers.
    Assign {
        /// Slug of the Company.
        #[arg(long)]
        company: String,
        /// The Instant Win's id (its campaign file's `id`).
        #[arg(long)]
        rule: i64,
        /// Customer ids.
        #[arg(required = true)]
        customers: Vec<String>,
        /// Campaign files, read when no server answers and the store is opened directly.
        #[arg(long, env = "LOYALTY_CAMPAIGNS", default_value = "campaigns")]
        campaigns: PathBuf,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
}

/// `loyalty vouchers ...`
#[derive(Debug, Subcommand)]
pub enum VouchersCommand {
    /// Issue a Coupon's Vouchers in bulk: `--count N` bearer Vouchers any
    /// Customer presents, or one per Customer of `--customers FILE` (one id
    /// per line). Prints `code,customer_id` lines (CSV with a header) and a
    /// summary on stderr. Running it again under the same `--source` gives
    /// the same Vouchers.
    Issue {
        /// Slug of the Company.
        #[arg(long)]
        company: String,
        /// The Coupon's id.
        #[arg(long)]
        coupon: i64,
        /// The issue's name (letters, digits, `_`, `-`), e.g. spring-flyer.
        #[arg(long)]
        source: String,
        /// How many bearer Vouchers.
        #[arg(
            long,
            conflicts_with = "customers",
            required_unless_present = "customers"
        )]
        count: Option<u64>,
        /// A file of Customer ids, one per line (blank lines and `#` comments
        /// are skipped).
        #[arg(long)]
        customers: Option<PathBuf>,
        /// Campaign files, read when no server answers and the store is opened directly.
        #[arg(long, env = "LOYALTY_CAMPAIGNS", default_value = "campaigns")]
        campaigns: PathBuf,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
}

/// `loyalty catalog ...`
#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Import Products (or Locations) from a CSV file with a header row
    /// (`code,name,price,aliases,features,discountable,names.LANG,attributes.KEY`;
    /// `aliases` and `features` separated by `|`, a feature as
    /// `TAXONOMY:FEATURE`) or a JSON-lines file (each line a POST body). All
    /// or nothing: any problem imports nothing and is printed as
    /// FILE:LINE: message. A record whose code is stored replaces it.
    Import {
        /// Slug of the Company.
        #[arg(long)]
        company: String,
        /// What the file holds.
        #[arg(long, value_enum, default_value = "products")]
        kind: CatalogKindArg,
        /// The file's format (default: from its extension, `.csv` or
        /// `.jsonl`/`.ndjson`/`.json`).
        #[arg(long, value_enum)]
        format: Option<ImportFormatArg>,
        /// The file.
        file: PathBuf,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
}

/// What a catalogue file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CatalogKindArg {
    /// Products.
    Products,
    /// Locations.
    Locations,
}

/// A catalogue file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImportFormatArg {
    /// CSV with a header row.
    Csv,
    /// One JSON object per line.
    JsonLines,
}

/// `loyalty export`
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Slug of the Company.
    #[arg(long)]
    pub company: String,
    /// What to export: customers, carts, ledger or events.
    #[arg(long)]
    pub what: crate::resources::exports::model::ExportWhat,
    /// The first day on the Company's clocks (`2026-11-01`) or instant
    /// (RFC 3339); omitted: from the first record.
    #[arg(long)]
    pub from: Option<String>,
    /// The last day (included) or the instant after the period; omitted:
    /// to the last record.
    #[arg(long)]
    pub to: Option<String>,
    /// Write to this file instead of stdout.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub back_office: BackOfficeArgs,
}

/// `loyalty webhooks ...`
#[derive(Debug, Subcommand)]
pub enum WebhooksCommand {
    /// Create an endpoint receiving the Company's events of the types named;
    /// prints its id and its signing secret (the secret only now).
    Create {
        /// Slug of the Company.
        #[arg(long)]
        company: String,
        /// Where deliveries are POSTed (http or https).
        #[arg(long = "url", id = "endpoint_url")]
        url: String,
        /// Event types, comma-separated (`*` for all), e.g.
        /// `points.changed,prize.won`.
        #[arg(long, value_delimiter = ',', required = true)]
        events: Vec<String>,
        /// A note for operators.
        #[arg(long)]
        description: Option<String>,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// List the Company's endpoints (without their secrets).
    List {
        /// Slug of the Company.
        #[arg(long)]
        company: String,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Change an endpoint: what is given replaces what it had.
    Update {
        /// Slug of the Company.
        #[arg(long)]
        company: String,
        /// The endpoint's id (`whe_...`).
        id: String,
        /// A new URL.
        #[arg(long = "url", id = "endpoint_url")]
        url: Option<String>,
        /// The event types it receives from now on, comma-separated.
        #[arg(long, value_delimiter = ',')]
        events: Option<Vec<String>>,
        /// A new note (empty: none).
        #[arg(long)]
        description: Option<String>,
        /// Whether it is sent events.
        #[arg(long)]
        enabled: Option<bool>,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Give an endpoint a new signing secret; prints it (only now).
    RotateSecret {
        /// Slug of the Company.
        #[arg(long)]
        company: String,
        /// The endpoint's id.
        id: String,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Delete an endpoint.
    Delete {
        /// Slug of the Company.
        #[arg(long)]
        company: String,
        /// The endpoint's id.
        id: String,
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
}
