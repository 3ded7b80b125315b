//! Command line and environment settings. Every flag has an environment variable;
//! nothing is read from global state.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::resources::companies::model::Environment;

mod company_commands;
mod data_commands;
mod measure;
pub use company_commands::*;
pub use data_commands::*;
pub use measure::*;

/// Default HTTP API address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// Default back-office address (loopback only).
pub const DEFAULT_ADMIN_LISTEN: &str = "127.0.0.1:8081";
/// Default store: an embedded SurrealKV directory.
pub const DEFAULT_DB: &str = "surrealkv://data/store";
/// Default file the server writes its generated operator token to.
pub const DEFAULT_ADMIN_TOKEN_FILE: &str = "data/admin.token";

/// `loyalty`: self-hostable Customer Loyalty and Data Collection service.
#[derive(Debug, Parser)]
#[command(name = "loyalty", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP service (and its loopback back-office listener).
    Serve(ServeArgs),
    /// Manage API keys (back-office).
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Manage Companies (back-office).
    #[command(subcommand)]
    Companies(CompaniesCommand),
    /// Work with campaign files.
    #[command(subcommand)]
    Campaigns(CampaignsCommand),
    /// Targeted Delivery of Instant Wins (back-office).
    #[command(subcommand)]
    InstantWins(InstantWinsCommand),
    /// Issue Vouchers in bulk (back-office).
    #[command(subcommand)]
    Vouchers(VouchersCommand),
    /// Import the catalogue: Products or Locations (back-office).
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Webhook endpoints: where a Company's events are delivered (back-office).
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
    /// Export a Company's Customers, carts, ledger entries or Custom Events
    /// of a period as NDJSON, one record per line (back-office).
    Export(ExportArgs),
    /// Scenario files: given/when/then proofs of the campaigns.
    #[command(subcommand)]
    Scenarios(ScenariosCommand),
    /// Measure the service on this machine: starts this binary's server on a
    /// new durable store with a realistic Company, drives it at saturation
    /// and at fixed rates, and reports throughput and latency percentiles
    /// beside the machine's own ceilings (BENCHMARKS.md).
    Bench(BenchArgs),
    /// Kill the server with SIGKILL at random moments under a mixed write
    /// load from concurrent clients, restart it on the same store, and
    /// check from the API after every restart that nothing acknowledged was
    /// lost, nothing was applied twice, and no balance, stock or limit was
    /// broken. Exits non-zero on a violation, naming the seed.
    Torture(TortureArgs),
}

/// `loyalty scenarios ...`
#[derive(Debug, Subcommand)]
pub enum ScenariosCommand {
    /// Run scenario files (default: every one under `scenarios/`) against the
    /// real service, in-process on an in-memory store; exit 1 if any fails.
    Run {
        /// Scenario files or directories.
        paths: Vec<PathBuf>,
        /// Directory of campaign files, one sub-directory per Company.
        #[arg(long, env = "LOYALTY_CAMPAIGNS", default_value = "campaigns")]
        campaigns: PathBuf,
        /// Where the scenarios' answer snapshots are (the ones `cargo test` checks).
        #[arg(long, default_value = "tests/snapshots")]
        snapshots: PathBuf,
        /// Rewrite the snapshots with the answers of this run.
        #[arg(long)]
        update: bool,
    },
}

/// `loyalty campaigns ...`
#[derive(Debug, Subcommand)]
pub enum CampaignsCommand {
    /// Load and compile every rule file; print each problem as FILE:LINE: message.
    Check {
        /// Directory of campaign files, one sub-directory per Company.
        #[arg(long, env = "LOYALTY_CAMPAIGNS", default_value = "campaigns")]
        campaigns: PathBuf,
        /// When a server answers at --admin-url, the taxonomies and
        /// features conditions name are checked against each Company's
        /// catalogue too.
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Print the JSON Schema of campaign files (every kind, key and
    /// enumerated value, described), for a YAML editor to check and
    /// complete files as they are typed; shipped as
    /// campaigns/campaign.schema.json.
    Schema,
    /// Explain why one campaign file applies to a cart (or a Custom Event,
    /// or a trigger) or not, offline: the real service on an in-memory
    /// store answers it as `?explain=true` would, naming the part of the
    /// condition that was false and the values it read.
    Explain {
        /// The campaign file, inside a Company's directory of --campaigns.
        file: PathBuf,
        /// Directory of campaign files, one sub-directory per Company.
        #[arg(long, env = "LOYALTY_CAMPAIGNS", default_value = "campaigns")]
        campaigns: PathBuf,
        /// A cart: a JSON (or YAML) file with the body of POST /carts/simulate.
        #[arg(long, group = "event")]
        cart: Option<PathBuf>,
        /// A Custom Event: a file with the body of POST /custom_events.
        #[arg(long = "custom-event", group = "event")]
        custom_event: Option<PathBuf>,
        /// A trigger: a file with the body of POST /trigger.
        #[arg(long, group = "event")]
        trigger: Option<PathBuf>,
        /// The Customer: a file (JSON or YAML) with the body of POST
        /// /customers, plus `points` and `wallet` to start with, `purchases`
        /// (`- { days_ago: 40, total: 600.00 }`, sent as carts at their
        /// time) and the `tier` they must reach (default: a loyalty member).
        #[arg(long)]
        customer: Option<PathBuf>,
        /// When the event happens, e.g. 2026-05-02T10:00:00Z (default: now).
        #[arg(long)]
        at: Option<String>,
        /// The Company's IANA time zone (e.g. Europe/Madrid); by default
        /// the one a server answering at --admin-url has for the Company,
        /// else UTC.
        #[arg(long = "time-zone")]
        time_zone: Option<String>,
        /// The Company's currency (ISO 4217); by default the server's,
        /// else EUR.
        #[arg(long)]
        currency: Option<String>,
        /// The server whose Company settings the explanation takes, when
        /// one answers; `--json` prints one JSON object instead of text.
        #[command(flatten)]
        back_office: BackOfficeArgs,
    },
    /// Simulate draws of an Instant Win campaign file: observed against
    /// configured prize frequencies, when stock runs out, and a chi-square
    /// verdict on the draw's fairness; with `--per-day`, a rehearsal of its
    /// days (`once`, its days and condition, its stock).
    Draws(DrawsArgs),
}

/// Where the store is.
/// What `loyalty campaigns draws` is given.
#[derive(Debug, Clone, Args)]
pub struct DrawsArgs {
    /// The Instant Win campaign file.
    pub file: PathBuf,
    /// Draws to simulate (without --per-day).
    #[arg(long, default_value_t = 10_000)]
    pub runs: usize,
    /// Seed of the generator (the same seed gives the same draws).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The draw's fairness alone: every prize's stock taken as unlimited,
    /// every draw tested against the weights.
    #[arg(long, conflicts_with = "per_day")]
    pub fairness: bool,
    /// Rehearse the campaign's days at this many events a day: each from
    /// one of --customers, drawing within its `once` limit on the days the
    /// campaign takes part, its stock taken as prizes are won.
    #[arg(long = "per-day")]
    pub per_day: Option<usize>,
    /// Days rehearsed.
    #[arg(long, default_value_t = 30)]
    pub days: usize,
    /// Customers the events come from (default: as many as events a day).
    #[arg(long)]
    pub customers: Option<usize>,
    /// When the first day's events happen (default: now); each next day's
    /// one day later.
    #[arg(long)]
    pub at: Option<String>,
    /// The event each day is asked about: a cart (the body of POST
    /// /carts/simulate); the service answers whether the campaign takes
    /// part that day (its dates, days, hours and condition). Without one,
    /// every day takes part.
    #[arg(long, group = "event")]
    pub cart: Option<PathBuf>,
    /// ... or a Custom Event (the body of POST /custom_events).
    #[arg(long = "custom-event", group = "event")]
    pub custom_event: Option<PathBuf>,
    /// ... or a trigger (the body of POST /trigger).
    #[arg(long, group = "event")]
    pub trigger: Option<PathBuf>,
    /// The Customer of that event, as `campaigns explain` takes it.
    #[arg(long)]
    pub customer: Option<PathBuf>,
    /// Directory of campaign files the file's Company is in.
    #[arg(long, env = "LOYALTY_CAMPAIGNS", default_value = "campaigns")]
    pub campaigns: PathBuf,
    /// The Company's IANA time zone (default UTC): its days and `once`
    /// periods.
    #[arg(long = "time-zone")]
    pub time_zone: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// Store URL: `mem://`, `surrealkv://PATH` or `ws://HOST:PORT`.
    #[arg(long = "db", env = "LOYALTY_DB", default_value = DEFAULT_DB)]
    pub url: String,
    /// Root user for a remote SurrealDB server (ws://).
    #[arg(long = "db-user", env = "LOYALTY_DB_USER")]
    pub user: Option<String>,
    /// Root password for a remote SurrealDB server (ws://).
    #[arg(long = "db-pass", env = "LOYALTY_DB_PASS", hide_env_values = true)]
    pub password: Option<String>,
    /// WebSocket connections to a remote SurrealDB server (ws://). The
    /// server runs one connection's queries on one of its cores: give at
    /// least as many as it has.
    #[arg(long = "db-connections", env = "LOYALTY_DB_CONNECTIONS", default_value_t = crate::storage::DEFAULT_REMOTE_CONNECTIONS)]
    pub connections: usize,
}

/// Output format of logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// The operator token of the back-office listener, the server's and the
/// commands that call it.
#[derive(Debug, Clone, Args)]
pub struct OperatorTokenArgs {
    /// Operator token for the back-office listener.
    #[arg(long, env = "LOYALTY_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// The file of the operator token the server generates when none is
    /// set (mode 0600), which the commands read.
    #[arg(long, env = "LOYALTY_ADMIN_TOKEN_FILE", default_value = DEFAULT_ADMIN_TOKEN_FILE)]
    pub admin_token_file: PathBuf,
}

/// Settings of `loyalty serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address of the HTTP API.
    #[arg(long, env = "LOYALTY_LISTEN", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Address of the back-office listener used by `loyalty keys` and `loyalty companies`.
    #[arg(long, env = "LOYALTY_ADMIN_LISTEN", default_value = DEFAULT_ADMIN_LISTEN)]
    pub admin_listen: SocketAddr,
    /// The operator token: when unset, a new one is generated at every
    /// start and written to --admin-token-file (mode 0600).
    #[command(flatten)]
    pub operator: OperatorTokenArgs,
    /// The store.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Directory of campaign files, one sub-directory per Company.
    #[arg(long, env = "LOYALTY_CAMPAIGNS", default_value = "campaigns")]
    pub campaigns: PathBuf,
    /// Accept only keys of Companies in this environment (one deployment per
    /// environment, each with its own base address).
    #[arg(long, env = "LOYALTY_ENVIRONMENT")]
    pub environment: Option<EnvironmentArg>,
    /// Largest accepted request body, in bytes.
    #[arg(long, env = "LOYALTY_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    pub max_body_bytes: usize,
    /// Longest a request may run, in milliseconds, before it is answered 503 `request_timeout`.
    #[arg(long, env = "LOYALTY_REQUEST_TIMEOUT_MS", default_value_t = 30_000)]
    pub request_timeout_ms: u64,
    /// API requests served at once; more wait for a turn.
    #[arg(long, env = "LOYALTY_MAX_IN_FLIGHT", default_value_t = crate::http::admission::DEFAULT_IN_FLIGHT)]
    pub max_in_flight: usize,
    /// API requests that may wait for a turn; more are answered 503
    /// `server_busy` at once, having changed nothing.
    #[arg(long, env = "LOYALTY_MAX_QUEUED", default_value_t = crate::http::admission::DEFAULT_QUEUED)]
    pub max_queued: usize,
    /// Seconds in-flight requests get to finish after SIGTERM or Ctrl-C.
    #[arg(long, env = "LOYALTY_SHUTDOWN_TIMEOUT", default_value_t = 30)]
    pub shutdown_timeout: u64,
    /// Seconds a cart's or event's `date` may be ahead of the service's clock
    /// (a till's clock drifting); later dates are refused.
    #[arg(long, env = "LOYALTY_MAX_DATE_AHEAD_SECONDS", default_value_t = 600)]
    pub max_date_ahead_seconds: u32,
    /// Days a cart's or event's `date` may be behind the service's clock (an
    /// offline till catching up); older dates are refused.
    #[arg(long, env = "LOYALTY_MAX_DATE_AGE_DAYS", default_value_t = 365)]
    pub max_date_age_days: u32,
    /// Unknown Voucher codes one API key may look up within a minute before
    /// its Voucher look-ups are refused until the minute ends
    /// (`voucher_lookups_limited`): codes cannot be guessed.
    #[arg(long, env = "LOYALTY_UNKNOWN_CODES_PER_MINUTE", default_value_t = crate::resources::vouchers::guesses::UNKNOWN_CODES_PER_MINUTE)]
    pub unknown_codes_per_minute: u32,
    /// Accept webhook receivers on loopback, link-local and private
    /// addresses (a receiver beside the server, tests); refused otherwise,
    /// so whoever sets an endpoint cannot make the server call into its
    /// own network.
    #[arg(long, env = "LOYALTY_WEBHOOKS_ALLOW_PRIVATE")]
    pub webhooks_allow_private: bool,
    /// Days a webhook delivery that was delivered or given up is kept after
    /// its event, for operators to see and send again; then it is deleted.
    #[arg(long, env = "LOYALTY_WEBHOOKS_KEEP_DAYS", default_value_t = crate::resources::webhooks::receiver::KEEP_SETTLED_DAYS, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub webhooks_keep_days: u32,
    /// Seed Instant Win draws for a reproducible rehearsal (never in
    /// production: seeded results are predictable). Unset: the OS generator.
    #[arg(long, env = "LOYALTY_DRAW_SEED")]
    pub draw_seed: Option<u64>,
    /// Do not deliver won Rewards and game participations from this process;
    /// they wait in the durable outbox and are delivered by the next start
    /// without this flag (points prizes are credited with the draw).
    #[arg(long, env = "LOYALTY_HOLD_PRIZE_DELIVERY")]
    pub hold_prize_delivery: bool,
    /// Customers kept in memory with what their events are evaluated on, so
    /// that a till's look-up, simulation and cart read the store once; 0
    /// turns it off. Only with an embedded store: against a SurrealDB
    /// server, which other servers may write, every read goes to it.
    #[arg(long, env = "LOYALTY_CUSTOMER_CACHE", default_value_t = crate::resources::customers::cache::DEFAULT_CAPACITY)]
    pub customer_cache: usize,
    /// Keep the first 200 transactions the group commit sends (SurrealQL
    /// and bound rows) in this directory, one JSON file each, for
    /// `loyalty bench --replay` to measure statement by statement.
    #[arg(long, env = "LOYALTY_CAPTURE_BATCHES")]
    pub capture_batches: Option<PathBuf>,
    /// Log filter, e.g. `info` or `loyalty=debug,info`.
    #[arg(long, env = "LOYALTY_LOG", default_value = "info")]
    pub log_level: String,
    /// Log line format.
    #[arg(long, env = "LOYALTY_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// An environment as given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EnvironmentArg {
    /// Sandbox.
    Sandbox,
    /// Production.
    Production,
}

impl From<EnvironmentArg> for Environment {
    fn from(value: EnvironmentArg) -> Self {
        match value {
            EnvironmentArg::Sandbox => Environment::Sandbox,
            EnvironmentArg::Production => Environment::Production,
        }
    }
}

/// How an operator command reaches the store: through a running server's
/// back-office listener, or (when none answers) by opening the store itself.
#[derive(Debug, Clone, Args)]
pub struct BackOfficeArgs {
    /// Back-office URL of a running server.
    #[arg(
        long,
        env = "LOYALTY_ADMIN_URL",
        default_value = "http://127.0.0.1:8081"
    )]
    pub admin_url: String,
    /// The operator token: when unset, read from --admin-token-file, where
    /// the server wrote it.
    #[command(flatten)]
    pub operator: OperatorTokenArgs,
    /// The store, opened directly when no server answers at --admin-url.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}
