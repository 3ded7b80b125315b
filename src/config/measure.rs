//! The measuring commands: `loyalty bench` and `loyalty torture`.

use std::path::PathBuf;

use clap::Args;

/// `loyalty torture`
#[derive(Debug, Args)]
pub struct TortureArgs {
    /// Kill-and-restart cycles.
    #[arg(long, default_value_t = 50)]
    pub cycles: u32,
    /// Concurrent clients writing.
    #[arg(long, default_value_t = 16)]
    pub clients: u32,
    /// Customers they write about (few, so they contend).
    #[arg(long, default_value_t = 12)]
    pub customers: u64,
    /// Longest a cycle runs before its kill, in milliseconds.
    #[arg(long, default_value_t = 3_000)]
    pub longest_run_ms: u64,
    /// Seed of the kill moments, the clients and their requests.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Directory of the store (default: a new temporary one).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Keep the directory afterwards.
    #[arg(long)]
    pub keep: bool,
}

/// `loyalty bench`
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Customers seeded before measuring.
    #[arg(long, default_value_t = 100_000)]
    pub customers: u64,
    /// Active campaigns of the benchmark Company.
    #[arg(long, default_value_t = 50)]
    pub campaigns: usize,
    /// Products in the catalogue carts are drawn from.
    #[arg(long, default_value_t = 2_000)]
    pub products: usize,
    /// Customers given points to redeem.
    #[arg(long, default_value_t = 5_000)]
    pub redeemers: u64,
    /// Measured seconds of each run.
    #[arg(long, default_value_t = 10)]
    pub duration: u64,
    /// Unmeasured seconds at the start of each run.
    #[arg(long, default_value_t = 2)]
    pub warmup: u64,
    /// Fixed arrival rates (requests per second) each scenario runs at, besides saturation.
    #[arg(long, value_delimiter = ',', default_value = "500,1000,2000")]
    pub rates: Vec<u32>,
    /// Connections of a saturation run.
    #[arg(long, default_value_t = 32)]
    pub connections: usize,
    /// Scenarios to run (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<crate::bench::Scenario>,
    /// Directory for the store and campaign files (default: a new temporary one).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Keep the directory afterwards.
    #[arg(long)]
    pub keep: bool,
    /// Seed of the catalogue and the requests.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Carts describe every line (departments and brands) instead of the
    /// catalogue being imported into the store: what catalogue lookups
    /// cost, by comparison.
    #[arg(long)]
    pub catalogue_in_carts: bool,
    /// Lines of every cart of the cart request types (default: 1 to 15,
    /// drawn at random); `carts-realtime-large` always sends 50.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub lines: Option<u16>,
    /// After the scenarios (none unless `--only` names some), record carts
    /// at saturation for this many seconds, reported minute by minute with
    /// the store's bytes per cart: whether the pace holds as the store grows.
    #[arg(long)]
    pub soak: Option<u64>,
    /// Measure `serve` of another `loyalty` build at this path instead of
    /// this one's (the raw store and the floor are this run's): builds
    /// compared beside the same floor, alternated.
    #[arg(long)]
    pub server_binary: Option<PathBuf>,
    /// Run the servers on the SurrealDB server at this `ws://HOST:PORT`
    /// (with `--db-user` and `--db-pass`) instead of each on its embedded store.
    #[arg(long = "db")]
    pub db: Option<String>,
    /// Root user of the `--db` server.
    #[arg(long = "db-user", env = "LOYALTY_DB_USER", default_value = "root")]
    pub db_user: String,
    /// Root password of the `--db` server.
    #[arg(
        long = "db-pass",
        env = "LOYALTY_DB_PASS",
        hide_env_values = true,
        default_value = "root"
    )]
    pub db_pass: String,
    /// Start the built `surreal` (the `surreal-server` feature) on SurrealKV in
    /// the benchmark's directory and run the servers on it.
    #[arg(long, conflicts_with = "db")]
    pub surreal: bool,
    /// How many `loyalty` servers share the `--db` or `--surreal` server;
    /// requests go to each in turn. A list (`1,2`) measures each count in
    /// turn, each on a new `--surreal` server.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub nodes: Vec<usize>,
    /// Run each request type one request at a time too (one connection,
    /// the next request sent when the last is answered), before saturation:
    /// the latency of a request alone.
    #[arg(long)]
    pub alone: bool,
    /// With `--surreal` or `--db`, measure one server on its embedded store
    /// first, in the same run: the figures to compare the remote store with.
    #[arg(long)]
    pub compare_embedded: bool,
    /// Instead of the scenarios, run each of these transactions (files
    /// `serve --capture-batches` kept, whole or edited) again and again for
    /// `--duration` seconds against a new durable store with the service's
    /// schema, each cancelled instead of committed so that the same rows
    /// run every time, and print the CPU each costs.
    #[arg(long, num_args = 1..)]
    pub replay: Vec<PathBuf>,
    /// Subscribe one webhook endpoint of the Company to every event type
    /// (`*`), delivered to a receiver the benchmark runs on loopback that
    /// answers 200 at once: what reporting every change costs the server.
    #[arg(long)]
    pub webhook: bool,
    /// Print one JSON object instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Also write the report into this directory: `report.json`,
    /// `report.md` and one latency-against-load chart per request type
    /// (`<scenario>.svg`)
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}
