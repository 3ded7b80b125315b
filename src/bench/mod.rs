//! `loyalty bench`: how fast the service is on this machine, measured against
//! the machine's own ceiling in the same run.
//!
//! - [`company`]: the realistic Company (campaigns, segments, catalogue, carts).
//! - [`server`]: the release server under test, a child process on a durable store.
//! - [`nodes`]: one server on its embedded store, or several nodes on a SurrealDB server.
//! - [`setup`]: the Company created, its catalogue imported, its Customers seeded.
//! - [`load`]: the load generator (fixed arrival rates and saturation) and percentiles.
//! - [`ceiling`]: the raw store write rate, with no service in front.
//! - [`floor`]: the store's floor for a cart: the records it writes, written
//!   straight to the store in the group commit's batches.
//! - [`report`]: the tables and ratios printed at the end.
//! - [`requests`]: the requests each scenario sends.
//! - [`soak`]: carts at saturation for a long run, minute by minute.
//! - [`surreal`]: the official SurrealDB server as a child process, which several nodes share.
//! - [`usage`]: the CPU time and store queries of the processes under test over a run.
//!
//! A run writes the Company's campaign files into a fresh directory, measures
//! the raw store and the store's floor for a cart, starts the server there, imports the catalogue (carts then
//! send only codes, quantities and prices; `--catalogue-in-carts` sends it in
//! every line instead), seeds the Customers over HTTP, and
//! drives each scenario at saturation and at each fixed rate.

pub mod ceiling;
pub mod chart;
pub mod company;
pub mod floor;
pub mod load;
pub mod nodes;
pub mod receiver;
pub mod replay;
pub mod report;
pub mod requests;
pub mod server;
pub mod setup;
pub mod soak;
pub mod surreal;
pub mod usage;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::ValueEnum;
use serde_json::json;

use crate::bench::company::customer_code;
use crate::bench::load::Load;
use crate::bench::load::Request;
use crate::bench::load::Target;
use crate::bench::nodes::{BenchStore, Nodes};
use crate::bench::receiver::WebhookReceiver;
use crate::bench::report::Report;
use crate::bench::report::ScenarioRun;
use crate::bench::setup::{create_company, import_catalogue, seed};
use crate::cli::back_office_client::BackOffice;
use crate::resources::webhooks::events::EVERY_EVENT;
use crate::resources::webhooks::model::NewWebhookEndpoint;
use crate::secrets::random_hex;

/// The longest the raw store is measured: its rate varies little.
const RAW_STORE_DURATION: Duration = Duration::from_secs(5);

/// Lines of a `carts-realtime-large` cart: a grocery basket.
pub const LARGE_CART_LINES: usize = 50;

/// The slug of the Company a benchmark creates.
pub const COMPANY: &str = "bench";

/// What a benchmark measures, one request type each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    /// `GET /check`: the trivial endpoint, the server's own ceiling.
    Check,
    /// `GET /customers/{code}?search_by=code`.
    GetCustomer,
    /// `POST /customers/search`, a third each by `email` (an identifier),
    /// by `first_name` (one in a thousand Customers share one) and by
    /// `attributes.segment` (one in two hundred): what a call centre's or a
    /// web login's look-up costs as the Customers grow.
    CustomerSearch,
    /// `POST /carts/simulate`: evaluated, nothing written.
    CartsSimulate,
    /// `POST /carts/realtime`: evaluated and recorded with its points.
    CartsRealtime,
    /// A till's sale, request after request: the Customer looked up by
    /// code, its cart simulated, then recorded (a third of the requests
    /// each), the Customers drawn at random like the other scenarios'.
    TillSale,
    /// `POST /carts/realtime` of the same carts, each presenting three
    /// Vouchers (static codes) of its Customer: what Vouchers add to a sale.
    CartsRealtimeVouchers,
    /// `POST /carts/realtime` of a grocery basket: [`LARGE_CART_LINES`]
    /// lines, for what a cart's size costs beside the other carts'.
    CartsRealtimeLarge,
    /// `POST /custom_events` of a type points campaigns listen to.
    CustomEvents,
    /// `POST /points/redeem` of one point.
    PointsRedeem,
    /// `POST /custom_events` drawing an Instant Win whose one prize every draw competes for.
    InstantWinHotPrize,
    /// `POST /custom_events` drawing an Instant Win of the same odds and
    /// outcome whose prize has an unlimited stock: nothing for draws to
    /// compete for.
    InstantWinColdPrize,
}

impl Scenario {
    /// Every scenario, in the order a run measures them.
    pub const ALL: [Scenario; 12] = [
        Scenario::Check,
        Scenario::GetCustomer,
        Scenario::CustomerSearch,
        Scenario::CartsSimulate,
        Scenario::CartsRealtime,
        Scenario::TillSale,
        Scenario::CartsRealtimeVouchers,
        Scenario::CartsRealtimeLarge,
        Scenario::CustomEvents,
        Scenario::PointsRedeem,
        Scenario::InstantWinHotPrize,
        Scenario::InstantWinColdPrize,
    ];

    /// The request it sends, as a reader knows it.
    pub fn label(self) -> &'static str {
        match self {
            Scenario::Check => "GET /check",
            Scenario::GetCustomer => "GET /customers/{code}",
            Scenario::CustomerSearch => "POST /customers/search",
            Scenario::CartsSimulate => "POST /carts/simulate",
            Scenario::CartsRealtime => "POST /carts/realtime",
            Scenario::TillSale => "till sale: look-up, simulate, realtime",
            Scenario::CartsRealtimeVouchers => "POST /carts/realtime (3 Vouchers)",
            Scenario::CartsRealtimeLarge => "POST /carts/realtime (50 lines)",
            Scenario::CustomEvents => "POST /custom_events",
            Scenario::PointsRedeem => "POST /points/redeem",
            Scenario::InstantWinHotPrize => "POST /custom_events (Instant Win, hot prize)",
            Scenario::InstantWinColdPrize => "POST /custom_events (Instant Win, cold prize)",
        }
    }
}

/// How a benchmark runs.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Customers seeded before measuring.
    pub customers: u64,
    /// Active campaigns of the Company.
    pub campaigns: usize,
    /// Products in the catalogue carts are drawn from.
    pub products: usize,
    /// Customers given points to redeem.
    pub redeemers: u64,
    /// Measured length of each run.
    pub duration: Duration,
    /// Unmeasured start of each run.
    pub warmup: Duration,
    /// Fixed arrival rates each scenario runs at, besides saturation.
    pub rates: Vec<u32>,
    /// Connections of a saturation run (and of seeding).
    pub connections: usize,
    /// Each scenario also runs one request at a time, first.
    pub alone: bool,
    /// The scenarios to run.
    pub scenarios: Vec<Scenario>,
    /// Where the store and campaign files go (a new temporary directory when `None`).
    pub dir: Option<PathBuf>,
    /// Keep the directory afterwards.
    pub keep: bool,
    /// Seed of the generated catalogue and requests.
    pub seed: u64,
    /// Carts describe their lines instead of the catalogue being in the
    /// store.
    pub catalogue_in_carts: bool,
    /// Lines of every cart of the cart request types; `None`: 1 to 15,
    /// drawn at random.
    pub lines: Option<usize>,
    /// After the scenarios, carts at saturation for this long, measured
    /// minute by minute ([`soak`]).
    pub soak: Option<Duration>,
    /// The `loyalty` binary whose `serve` is measured (this one when
    /// `None`): another build measured beside this run's floors.
    pub server_binary: Option<PathBuf>,
    /// Where the servers keep their data, and how many there are: each
    /// measured in turn, on data of its own.
    pub stores: Vec<BenchStore>,
    /// The Company has one webhook endpoint receiving every event type,
    /// on a receiver of the benchmark's ([`receiver`]).
    pub webhook: bool,
}

/// Runs a benchmark as `options` say, printing progress to stderr; the
/// report of every run.
pub async fn run(options: &BenchOptions) -> anyhow::Result<Report> {
    let dir = match &options.dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("loyalty-bench-{}", random_hex(4))),
    };
    if ["store", "raw-store", "floor-store"]
        .iter()
        .any(|name| dir.join(name).exists())
    {
        bail!(
            "{} already holds a store; name an empty directory",
            dir.display()
        );
    }
    let outcome = measure(&dir, options).await;
    if !options.keep {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!("kept {}", dir.display());
    }
    outcome
}

fn write_company(dir: &std::path::Path, campaigns: usize) -> anyhow::Result<()> {
    let company = dir.join("campaigns").join(COMPANY);
    std::fs::create_dir_all(company.join("campaigns"))
        .with_context(|| format!("cannot create {}", company.display()))?;
    for (name, text) in crate::bench::company::campaign_files(campaigns) {
        std::fs::write(company.join("campaigns").join(name), text)?;
    }
    std::fs::write(
        company.join("segments.yaml"),
        crate::bench::company::SEGMENTS,
    )?;
    let (_, loaded) = crate::engine::catalog::Catalog::load(&dir.join("campaigns"));
    if let Some(error) = loaded.errors.first() {
        bail!("the benchmark's campaign files do not load: {error}");
    }
    Ok(())
}

async fn measure(dir: &std::path::Path, options: &BenchOptions) -> anyhow::Result<Report> {
    let mut report = Report::new(options);
    eprintln!("measuring the raw store write rate…");
    report.raw_store = Some(
        crate::bench::ceiling::raw_store_writes(
            &dir.join("raw-store"),
            options.connections,
            options.duration.min(RAW_STORE_DURATION),
        )
        .await?,
    );
    for batch in crate::bench::floor::FLOOR_BATCHES {
        for layout in crate::bench::floor::FloorLayout::ALL {
            eprintln!(
                "measuring the store's floor for a cart ({} layout, {batch} per transaction)…",
                layout.name()
            );
            let floor = crate::bench::floor::store_floor(
                layout,
                batch,
                &dir.join(format!("floor-store-{}-{batch}", layout.name())),
                std::thread::available_parallelism().map_or(2, usize::from),
                options.customers,
                options.duration.min(RAW_STORE_DURATION),
            )
            .await?;
            eprintln!("{}", floor.describe());
            report.store_floors.push(floor);
        }
    }
    let next = Arc::new(AtomicU64::new(0));
    for store in &options.stores {
        // Several stores each get a directory of their own.
        let store_dir = match options.stores.len() {
            1 => dir.to_path_buf(),
            _ => dir.join(store.tag()),
        };
        write_company(&store_dir, options.campaigns)?;
        measure_store(&store_dir, store, options, &next, &mut report).await?;
    }
    Ok(report)
}

/// Starts the servers `store` asks for in `dir`, sets the Company up, runs
/// every scenario against them and adds the runs to `report`.
async fn measure_store(
    dir: &std::path::Path,
    store: &BenchStore,
    options: &BenchOptions,
    next: &Arc<AtomicU64>,
    report: &mut Report,
) -> anyhow::Result<()> {
    eprintln!("starting {} in {}…", store.describe(), dir.display());
    let admin_token = random_hex(16);
    let server = Nodes::start(dir, &admin_token, store, options.server_binary.as_deref()).await?;
    let (target, office) = create_company(&server, dir, &admin_token).await?;
    if !options.catalogue_in_carts {
        eprintln!(
            "importing the {} products of the catalogue…",
            options.products
        );
        import_catalogue(&target, &office, options).await?;
    }
    seed(&target, options).await?;
    // After the seeding, so that the runs measure the carts' events, not
    // the delivery of the seeded Customers'.
    let receiver = match options.webhook {
        true => Some(subscribe_everything(&office).await?),
        false => None,
    };
    let run_tag = random_hex(3);
    for &scenario in &options.scenarios {
        let source = crate::bench::requests::requests(scenario, options, &run_tag);
        let alone = options.alone.then_some(Load::Alone);
        let loads = alone
            .into_iter()
            .chain(std::iter::once(Load::Saturation(options.connections)))
            .chain(options.rates.iter().map(|&rate| Load::Rate(rate)));
        for load in loads {
            // What the servers used over the measured part, beside the load.
            let (result, usage) = tokio::join!(
                crate::bench::load::run(
                    &target,
                    load,
                    options.warmup,
                    options.duration,
                    next,
                    &source
                ),
                crate::bench::usage::usage_over(&server, options.warmup, options.duration)
            );
            let run = ScenarioRun {
                scenario,
                store: store.clone(),
                result,
                usage,
            };
            eprintln!("{}", crate::bench::report::row(&run));
            report.runs.push(run);
            settle(&target, &server).await;
        }
    }
    if let Some(length) = options.soak {
        let source = crate::bench::requests::requests(
            Scenario::CartsRealtime,
            options,
            &format!("{run_tag}s"),
        );
        let store_dir = matches!(store, BenchStore::Embedded).then(|| dir.join("store"));
        report.soak = Some(
            crate::bench::soak::soak(
                &target,
                &server,
                store_dir.as_deref(),
                options.connections,
                length,
                next,
                &source,
            )
            .await,
        );
    }
    if let Some(receiver) = receiver {
        eprintln!(
            "the webhook receiver got {} deliveries",
            receiver.received()
        );
    }
    server.stop().await?;
    Ok(())
}

/// Subscribes one webhook endpoint of the benchmark's Company to every
/// event type, delivered to a receiver on loopback that answers at once.
async fn subscribe_everything(office: &BackOffice) -> anyhow::Result<WebhookReceiver> {
    let receiver = WebhookReceiver::start().await?;
    office
        .create_webhook_endpoint(
            COMPANY,
            NewWebhookEndpoint {
                url: receiver.url.clone(),
                events: vec![EVERY_EVENT.to_string()],
                description: Some("loyalty bench --webhook".into()),
                enabled: Some(true),
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!("{} ({})", e.message, e.code))?;
    eprintln!("every event is delivered to {}", receiver.url);
    Ok(receiver)
}

/// Waits until the server has worked off what an overloaded run left queued
/// (requests still in flight, prizes still to deliver): a read (`GET /check`)
/// and a write (a Custom Event no campaign listens to) answer fast three times
/// in a row, or five minutes pass. Without it, a run would pay for its
/// predecessor's backlog. The write matters: queued writes wait for the
/// store's admission while reads pass, so `/check` alone answers fast long
/// before the backlog is gone. Where the server's CPU time can be read, it
/// must also have used less than a tenth of a core over the last probe:
/// requests the generator gave up on still run, and quick probes can slip
/// between them.
async fn settle(target: &Target, server: &Nodes) {
    let deadline = Instant::now() + Duration::from_secs(300);
    let write = Request::post(
        "/custom_events",
        json!({ "customer_code": customer_code(0), "type": "bench_settle", "data": {} })
            .to_string(),
    );
    let mut fast = 0;
    let mut ticks = server.cpu_ticks();
    let mut since = Instant::now();
    while fast < 3 && Instant::now() < deadline {
        let sent = Instant::now();
        let read = target.send(&Request::get("/check")).await.is_some();
        let read_fast = read && sent.elapsed() < SETTLED_CHECK;
        let sent = Instant::now();
        let written = target.send(&write).await.is_some();
        let write_fast = written && sent.elapsed() < SETTLED_WRITE;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now_ticks = server.cpu_ticks();
        let idle = match (ticks, now_ticks) {
            // Clock ticks are 1/100 s on Linux: a tenth of a core is 10 per second.
            (Some(before), Some(after)) => {
                (after - before) as f64 <= 10.0 * since.elapsed().as_secs_f64() + 1.0
            }
            _ => true,
        };
        (ticks, since) = (now_ticks, Instant::now());
        fast = if read_fast && write_fast && idle {
            fast + 1
        } else {
            0
        };
    }
}

/// A `GET /check` this fast means the server is idle again.
const SETTLED_CHECK: Duration = Duration::from_millis(10);

/// A small write this fast means no backlog of writes waits before it.
const SETTLED_WRITE: Duration = Duration::from_millis(50);
