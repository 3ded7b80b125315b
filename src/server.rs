//! Starting the service: store, schema, first-start bootstrap, the integrator
//! listener and the back-office listener; and stopping it gracefully.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use poem::listener::{Acceptor, Listener, TcpListener};
use poem::{Endpoint, Server};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::common::clock::Clock;
use crate::common::random::RandomSource;
use crate::engine::catalog::Catalog;
use crate::engine::catalog::GoodFile;
use crate::engine::catalog::LoadReport;
use crate::engine::loader::files::FileSystemLoader;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http;
use crate::http::ApiOptions;
use crate::http::back_office;
use crate::http::back_office::OperatorToken;
use crate::http::idempotency::service::{purge_expired_keys, record_kept_key_outcomes};
use crate::resources::companies::bootstrap::Bootstrap;
use crate::resources::companies::bootstrap::ensure_demo_company;
use crate::resources::companies::model::Environment;
use crate::resources::companies::store::campaign_files::KeptCampaignFile;
use crate::resources::discounts::overlaps::overlapping_exclusives;
use crate::services::Services;
use crate::storage::RemoteAuth;
use crate::storage::Store;
use crate::storage::duties::Duty;
use crate::storage::instances::INSTANCE_RENEWAL;

/// Everything [`start`] needs, already resolved from flags and environment.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// Integrator API address (port 0 picks a free port).
    pub listen: SocketAddr,
    /// Back-office address.
    pub admin_listen: SocketAddr,
    /// Token the back-office accepts.
    pub admin_token: OperatorToken,
    /// Store URL.
    pub store_url: String,
    /// Credentials for a remote store.
    pub remote_auth: Option<RemoteAuth>,
    /// Connections to a remote store.
    pub store_connections: usize,
    /// Only keys of this environment are accepted, when set.
    pub serve_environment: Option<Environment>,
    /// HTTP-layer settings.
    pub api_options: ApiOptions,
    /// Time in-flight requests get to finish on shutdown.
    pub shutdown_timeout: Duration,
    /// Directory of campaign files.
    pub campaigns: PathBuf,
    /// Seed of the Instant Win random source; `None`: the OS generator.
    /// Only for tests and rehearsals: seeded draws are predictable.
    pub draw_seed: Option<u64>,
    /// How far a sent event `date` may be from the clock.
    pub event_dates: crate::pipeline::dates::EventDates,
    /// Where the service reads the time (the system clock but in scenarios).
    pub clock: Arc<Clock>,
    /// Whether won Rewards and game participations are delivered by this
    /// process (operators may hold delivery, e.g. while a prize catalog is
    /// fixed; prizes wait in the outbox).
    pub deliver_prizes: bool,
    /// Unknown Voucher codes one API key may look up within a minute
    /// ([`crate::resources::vouchers::guesses`]).
    pub unknown_codes_per_minute: u32,
    /// Customers kept in memory with their facts (0: none); an embedded
    /// store's only ([`crate::resources::customers::cache`]).
    pub customer_cache: usize,
    /// Keep the group commit's first transactions in this directory
    /// ([`crate::storage::batch_capture`]).
    pub capture_batches: Option<std::path::PathBuf>,
    /// How webhook receivers are treated.
    pub webhooks: crate::resources::webhooks::WebhookSettings,
}

impl ServerSettings {
    /// Settings for tests and tools: the given store, free loopback ports.
    pub fn for_store(store_url: &str, admin_token: &str) -> Self {
        ServerSettings {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            admin_listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            admin_token: OperatorToken(admin_token.to_string()),
            store_url: store_url.to_string(),
            remote_auth: None,
            store_connections: crate::storage::DEFAULT_REMOTE_CONNECTIONS,
            serve_environment: None,
            api_options: ApiOptions::default(),
            shutdown_timeout: Duration::from_secs(5),
            campaigns: PathBuf::from("campaigns"),
            draw_seed: None,
            event_dates: Default::default(),
            clock: Arc::default(),
            deliver_prizes: true,
            unknown_codes_per_minute: crate::resources::vouchers::guesses::UNKNOWN_CODES_PER_MINUTE,
            customer_cache: crate::resources::customers::cache::DEFAULT_CAPACITY,
            capture_batches: None,
            webhooks: Default::default(),
        }
    }
}

/// A started service.
#[derive(Debug)]
pub struct RunningServer {
    /// Where the integrator API listens.
    pub api_addr: SocketAddr,
    /// Where the back-office listens.
    pub admin_addr: SocketAddr,
    /// What the first start of an empty store created, if this was it.
    pub bootstrap: Option<Bootstrap>,
    /// The use-cases both listeners serve.
    pub services: Services,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<std::io::Result<()>>>,
}

impl RunningServer {
    /// Stops accepting connections, lets in-flight requests finish (up to the
    /// shutdown timeout) and waits until both listeners are closed and the
    /// store is released.
    pub async fn shutdown(self) -> ApiResult<()> {
        let _ = self.stop.send(true);
        for task in self.tasks {
            task.await
                .map_err(ApiError::internal)?
                .map_err(ApiError::internal)?;
        }
        // Every request has finished: what this process held is free.
        self.services
            .store
            .retire_instance(&self.services.instance_id)
            .await?;
        // The last handle of an embedded store: it closes, so the next start
        // has no log to replay (`storage/fresh_log.rs`).
        let store = self.services.store.clone();
        drop(self.services);
        store.close().await;
        Ok(())
    }
}

/// Opens the store, bootstraps an empty one and starts both listeners.
pub async fn start(settings: ServerSettings) -> ApiResult<RunningServer> {
    let mut store = Store::connect_with(
        &settings.store_url,
        settings.remote_auth.clone(),
        settings.store_connections,
    )
    .await?;
    store.keep_customers(settings.customer_cache);
    if let Some(dir) = &settings.capture_batches {
        store.capture_batches(dir.clone())?;
    }
    if !settings.campaigns.is_dir() {
        tracing::warn!(campaigns = %settings.campaigns.display(), "campaigns directory not found");
    }
    // A file broken on disk now serves the version that last loaded, kept
    // by an earlier start or another server: one file never stops the tills.
    let last_good = store
        .kept_campaign_files()
        .await?
        .into_iter()
        .map(|kept| GoodFile {
            company: kept.company,
            file: kept.file.into(),
            text: kept.text,
        })
        .collect();
    let (catalog, report) = Catalog::with_last_good(
        Box::new(FileSystemLoader::new(&settings.campaigns)),
        last_good,
    );
    let catalog = Arc::new(catalog);
    let random = match settings.draw_seed {
        Some(seed) => {
            tracing::warn!(
                seed,
                "Instant Win draws use a seeded generator: results are predictable"
            );
            RandomSource::seeded(seed)
        }
        None => RandomSource::Os,
    };
    let services = Services::new(store, settings.serve_environment, catalog.clone())
        .with_random(random)
        .with_clock(settings.clock.clone())
        .with_event_dates(settings.event_dates)
        .with_unknown_codes_per_minute(settings.unknown_codes_per_minute)
        .with_webhooks(settings.webhooks);
    let processes = services
        .store
        .register_instance(&services.instance_id, services.now())
        .await?;
    services.gate.rate_limiters.set_processes(processes);
    log_rules_report(&services, &report);
    keep_good_files(&services, &report).await;
    let bootstrap = ensure_demo_company(&services).await?;
    services.refresh_api_campaigns().await?;
    services.refresh_master_data().await?;
    services.refresh_webhook_subscriptions().await?;
    // A Company serving held-back files is warned about what it serves too.
    let serving = report.held_back.iter().map(|held| &held.company);
    for company in report.loaded.iter().chain(serving) {
        warn_of_campaigns(&services, company);
    }
    services.roll_back_stalled_imports().await?;

    let (stop, stopped) = watch::channel(false);
    let reload_task = tokio::spawn(reload_rules(services.clone(), catalog, stopped.clone()));
    let purge_task = tokio::spawn(purge_idempotency_keys(services.clone(), stopped.clone()));
    let expiry_task = tokio::spawn(expire_points(services.clone(), stopped.clone()));
    let renewal_task = tokio::spawn(renew_instance(services.clone(), stopped.clone()));
    let webhook_task = tokio::spawn(services.clone().run_webhook_delivery(stopped.clone()));
    let mut tasks = vec![
        reload_task,
        purge_task,
        expiry_task,
        renewal_task,
        webhook_task,
    ];
    if settings.deliver_prizes {
        tasks.push(tokio::spawn(
            services.clone().run_prize_delivery(stopped.clone()),
        ));
    } else {
        tracing::warn!("prize delivery is held: won prizes wait in the outbox");
    }
    let (api_addr, api_task) = spawn_listener(
        settings.listen,
        http::app(services.clone(), settings.api_options),
        stopped.clone(),
        settings.shutdown_timeout,
    )
    .await?;
    let (admin_addr, admin_task) = spawn_listener(
        settings.admin_listen,
        back_office::app(services.clone(), settings.admin_token.clone())?,
        stopped,
        settings.shutdown_timeout,
    )
    .await?;
    if !settings.admin_listen.ip().is_loopback() {
        tracing::warn!(%admin_addr, "the back-office listens beyond loopback; keep its token secret");
    }
    tracing::info!(%api_addr, %admin_addr, store = %settings.store_url, "loyalty is serving");
    Ok(RunningServer {
        api_addr,
        admin_addr,
        bootstrap,
        services,
        stop,
        tasks: [api_task, admin_task].into_iter().chain(tasks).collect(),
    })
}

/// How often the campaigns directory is checked for changed files.
const RULES_POLL: Duration = Duration::from_millis(500);

/// Reloads changed rule files until the server stops, so authors see their
/// edits within a second; a broken file is reported and its previous version kept.
async fn reload_rules(
    services: Services,
    catalog: Arc<Catalog>,
    mut stopped: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let mut ticks: u32 = 0;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(RULES_POLL) => {}
            _ = stopped.wait_for(|stop| *stop) => return Ok(()),
        }
        let worker = catalog.clone();
        if let Ok(report) = tokio::task::spawn_blocking(move || worker.reload()).await {
            log_rules_report(&services, &report);
            keep_good_files(&services, &report).await;
            let serving = report.held_back.iter().map(|held| &held.company);
            for company in report.loaded.iter().chain(serving) {
                warn_of_campaigns(&services, company);
            }
        }
        // Master data another server wrote reaches this one within a poll.
        if let Err(error) = services.refresh_master_data().await {
            tracing::warn!(%error, "reading the master data's changes failed");
        }
        // An import a stopped process left half written is taken back.
        if ticks.is_multiple_of(STALLED_IMPORTS_EVERY)
            && let Err(error) = services.roll_back_stalled_imports().await
        {
            tracing::warn!(%error, "taking back an unfinished catalogue import failed");
        }
        ticks = ticks.wrapping_add(1);
        // Campaigns created through the API by another process sharing a
        // remote store apply here within a poll (one small read of their
        // revisions); an embedded store has no other writer.
        if services.store.remote
            && let Err(error) = services.refresh_api_campaigns().await
        {
            tracing::warn!(%error, "reading the campaigns created through the API failed");
        }
    }
}

/// Every how many rule polls unfinished catalogue imports are looked for.
const STALLED_IMPORTS_EVERY: u32 = 120;

/// Renews this process's lease on the store ([`crate::storage::instances`])
/// every second until the server stops: the rate limits are shared among
/// the live processes it counts, and it is the probe that tells whether the
/// store answers ([`crate::storage::health`]).
async fn renew_instance(
    services: Services,
    mut stopped: watch::Receiver<bool>,
) -> std::io::Result<()> {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(INSTANCE_RENEWAL) => {}
            _ = stopped.wait_for(|stop| *stop) => return Ok(()),
        }
        let renewed = services
            .store
            .probe(&services.instance_id, services.now())
            .await;
        match renewed {
            Ok(processes) => {
                services.gate.rate_limiters.set_processes(processes);
                record_kept_key_outcomes(&services).await;
                services.record_key_uses().await;
            }
            // While the store is unreachable, the health says so once.
            Err(error) if services.store_reachable() => {
                tracing::warn!(%error, "renewing this process's lease on the store failed")
            }
            Err(_) => {}
        }
    }
}

/// How often expired Idempotency-Keys are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(15 * 60);

/// Deletes expired Idempotency-Keys at start and then periodically, until the
/// server stops, when this process runs the purge for the cluster.
async fn purge_idempotency_keys(
    services: Services,
    mut stopped: watch::Receiver<bool>,
) -> std::io::Result<()> {
    loop {
        if services.runs_duty(Duty::IdempotencyPurge).await
            && let Err(error) = purge_expired_keys(&services).await
        {
            tracing::warn!(%error, "purging expired idempotency keys failed");
        }
        tokio::select! {
            _ = tokio::time::sleep(PURGE_EVERY) => {}
            _ = stopped.wait_for(|stop| *stop) => return Ok(()),
        }
    }
}

/// How often points expiry runs.
const EXPIRE_EVERY: Duration = Duration::from_secs(60);

/// Expires points whose time has come, at start and then every minute,
/// until the server stops, when this process runs expiry for the cluster;
/// each run is idempotent.
async fn expire_points(
    services: Services,
    mut stopped: watch::Receiver<bool>,
) -> std::io::Result<()> {
    loop {
        if services.runs_duty(Duty::PointsExpiry).await
            && let Err(error) = services.expire_points(services.now()).await
        {
            tracing::warn!(%error, "expiring points failed; the next run retries");
        }
        tokio::select! {
            _ = tokio::time::sleep(EXPIRE_EVERY) => {}
            _ = stopped.wait_for(|stop| *stop) => return Ok(()),
        }
    }
}

/// Keeps the files a load found good as their last good versions; a failure
/// is logged and the files are offered again at their next change.
async fn keep_good_files(services: &Services, report: &LoadReport) {
    let kept: Vec<KeptCampaignFile> = report
        .good_files
        .iter()
        .map(|good| KeptCampaignFile {
            company: good.company.clone(),
            file: good.file.to_string_lossy().into_owned(),
            text: good.text.clone(),
        })
        .collect();
    if let Err(error) = services
        .store
        .keep_campaign_files(&kept, services.now().as_datetime())
        .await
    {
        tracing::warn!(%error, files = report.good_files.len(),
            "keeping the campaign files' last good versions failed");
    }
}

/// Logs what a Company's campaigns load with but an author should know:
/// taxonomies and features the catalogue lacks, and exclusive discounts
/// that may meet on one cart.
fn warn_of_campaigns(services: &Services, company: &str) {
    services.warn_of_unknown_features(company);
    let campaigns = &services.catalog().company(company).campaigns;
    for warning in overlapping_exclusives(campaigns) {
        tracing::warn!(company, %warning, "two exclusive discounts may apply to one cart: only one is given");
    }
}

/// Logs and counts what a load or reload of the campaign files did.
fn log_rules_report(services: &Services, report: &LoadReport) {
    services.metrics.campaigns_reloaded(
        report.loaded.iter().map(String::as_str),
        report.held_back.iter().map(|held| held.company.as_str()),
        report.errors.len(),
    );
    for company in &report.loaded {
        tracing::info!(company, "rules loaded");
    }
    for error in &report.errors {
        tracing::error!(%error, "problem in a campaign file");
    }
    for held in &report.held_back {
        tracing::error!(company = %held.company, files = held.files.len(),
            "campaign files held back: {}", held.summary());
    }
}

async fn spawn_listener<E>(
    addr: SocketAddr,
    endpoint: E,
    mut stopped: watch::Receiver<bool>,
    timeout: Duration,
) -> ApiResult<(SocketAddr, JoinHandle<std::io::Result<()>>)>
where
    E: Endpoint + 'static,
{
    let acceptor = TcpListener::bind(addr).into_acceptor().await.map_err(|e| {
        ApiError::new(
            ErrorCode::ServerError,
            format!("cannot listen on {addr}: {e}"),
        )
    })?;
    let acceptor = http::wire_errors::JsonWireErrors(acceptor);
    let bound = acceptor
        .local_addr()
        .first()
        .and_then(|local| local.as_socket_addr().copied())
        .unwrap_or(addr);
    let task = tokio::spawn(async move {
        Server::new_with_acceptor(acceptor)
            .run_with_graceful_shutdown(
                endpoint,
                async move {
                    let _ = stopped.wait_for(|stop| *stop).await;
                },
                Some(timeout),
            )
            .await
    });
    Ok((bound, task))
}
