//! `loyalty torture`: the crash guarantees under fire. The real server runs
//! on a durable store while concurrent clients send a mixed keyed write
//! load; it is killed with SIGKILL at a random moment, restarted on the
//! same store, and checked from the API alone before the next cycle.
//!
//! - [`company`]: the Company's campaigns and its seeded Customers.
//! - [`client`]: the HTTP client, answers kept whole.
//! - [`workload`]: the clients and the journal of every write and answer.
//! - [`checks`]: what must hold after every restart.
//!
//! A run prints one line per cycle and a summary; it fails on the first
//! cycle that breaks a promise, naming the seed that replays it.

pub mod checks;
pub mod client;
pub mod company;
pub mod workload;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use rand::{Rng, SeedableRng};

use crate::bench::server::ServerProcess;
use crate::bench::setup::unlimited_company;
use crate::secrets::random_hex;
use crate::torture::checks::Checked;
use crate::torture::client::Client;
use crate::torture::company::{COMPANY, campaign_files, customer_code};
use crate::torture::workload::{Journal, Population};

/// How a torture runs.
#[derive(Debug, Clone)]
pub struct TortureOptions {
    /// Kill-and-restart cycles.
    pub cycles: u32,
    /// Concurrent clients writing.
    pub clients: u32,
    /// Customers they write about.
    pub customers: u64,
    /// Longest a cycle runs before its kill (each picks a random moment).
    pub longest_run: Duration,
    /// Seed of the moments, the clients and their requests.
    pub seed: u64,
    /// The `loyalty` binary to run as the server.
    pub binary: PathBuf,
    /// Directory of the store (default: a new temporary one).
    pub dir: Option<PathBuf>,
    /// Keep the directory afterwards.
    pub keep: bool,
}

/// What a whole run did.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    /// Cycles run.
    pub cycles: u32,
    /// Writes sent (retries by the clients not counted).
    pub sent: usize,
    /// The checks of every restart: counts summed, stock and Vouchers as
    /// the last restart saw them.
    pub checked: Checked,
}

impl Summary {
    /// The summary line.
    pub fn line(&self) -> String {
        format!(
            "{} kill cycles: {} writes, {} cut off and retried, {} answers replayed byte for byte, \
             {} balances equal to their ledgers, Reward {}/{} redeemed, prize {}/{} won and delivered once, \
             {} single-use Vouchers redeemed once, {} merges in place; no violation",
            self.cycles,
            self.sent,
            self.checked.retried,
            self.checked.replayed,
            self.checked.balances,
            self.checked.rewards_redeemed,
            company::REWARD_STOCK,
            self.checked.prizes_won,
            company::PRIZE_STOCK,
            self.checked.vouchers_redeemed,
            self.checked.merges
        )
    }
}

/// Runs the torture, `report`ing each cycle's line; the summary, or the
/// first violations with the seed.
pub async fn run(options: &TortureOptions, report: impl Fn(&str)) -> anyhow::Result<Summary> {
    let dir = match &options.dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("loyalty-torture-{}", random_hex(6))),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let outcome = torture(&dir, options, &report).await;
    if options.keep || outcome.is_err() {
        report(&format!("store and server log kept in {}", dir.display()));
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    outcome
}

fn write_campaigns(dir: &Path) -> anyhow::Result<()> {
    let folder = dir.join("campaigns").join(COMPANY);
    std::fs::create_dir_all(&folder)?;
    for (name, text) in campaign_files() {
        std::fs::write(folder.join(name), text)?;
    }
    let (_, loaded) = crate::engine::catalog::Catalog::load(&dir.join("campaigns"));
    if let Some(error) = loaded.errors.first() {
        bail!("the torture's campaign files do not load: {error}");
    }
    Ok(())
}

async fn torture(
    dir: &Path,
    options: &TortureOptions,
    report: &impl Fn(&str),
) -> anyhow::Result<Summary> {
    write_campaigns(dir)?;
    let admin_token = random_hex(16);
    let mut server = ServerProcess::start_binary(&options.binary, dir, &admin_token).await?;
    let (key, _office) = unlimited_company(&server, dir, &admin_token, COMPANY).await?;
    let connect = |server: &ServerProcess| Client::new(&server.api_url, &key.key.key, &key.secret);
    let api = connect(&server)?;
    let vouchers = company::seed(&api, options.customers).await?;
    let mut customers = Vec::new();
    for n in 0..options.customers {
        let customer = api
            .read(&format!("/customers/{}?search_by=code", customer_code(n)))
            .await?;
        customers.push(customer["id"].as_str().unwrap_or_default().to_string());
    }
    // About one merge in thirty writes: three a cycle are plenty.
    let to_merge = company::seed_to_merge(&api, (options.cycles as usize * 3).min(300)).await?;
    let population = Arc::new(Population {
        customers: options.customers,
        ids: customers.clone(),
        vouchers,
        to_merge,
        merged: Default::default(),
    });
    let journal = Arc::new(Journal::default());
    let mut rng = rand::rngs::StdRng::seed_from_u64(options.seed);
    let mut summary = Summary::default();
    let mut verified = 0;
    for cycle in 1..=options.cycles {
        let api = connect(&server)?;
        let clients: Vec<_> = (0..options.clients)
            .map(|number| {
                tokio::spawn(workload::client(
                    (cycle, number),
                    api.clone(),
                    population.clone(),
                    journal.clone(),
                    rng.random(),
                ))
            })
            .collect();
        let longest = options.longest_run.as_millis().max(200) as u64;
        let run_for = Duration::from_millis(rng.random_range(100..longest));
        tokio::time::sleep(run_for).await;
        let sent_before = summary.sent;
        server.stop().await?;
        for client in clients {
            // A client stops at its first write without an answer.
            let _ = tokio::time::timeout(Duration::from_secs(60), client).await;
        }
        server = ServerProcess::start_binary(&options.binary, dir, &admin_token).await?;
        let api = connect(&server)?;
        let checked = checks::after_restart(&api, &journal, &customers, &mut verified).await?;
        summary.sent = journal.attempts.lock().map(|a| a.len()).unwrap_or(0);
        let seen_by_clients: Vec<String> = journal
            .violations
            .lock()
            .map(|v| v.clone())
            .unwrap_or_default();
        report(&cycle_line(
            cycle,
            options,
            run_for,
            summary.sent - sent_before,
            &checked,
        ));
        add(&mut summary, &checked);
        summary.cycles = cycle;
        let violations: Vec<String> = seen_by_clients
            .into_iter()
            .chain(checked.violations)
            .collect();
        if !violations.is_empty() {
            let _ = server.stop().await;
            bail!(
                "cycle {cycle} broke {} promise(s) (replay with --seed {}):\n{}",
                violations.len(),
                options.seed,
                violations.join("\n")
            );
        }
    }
    server.stop().await?;
    Ok(summary)
}

fn cycle_line(
    cycle: u32,
    options: &TortureOptions,
    ran: Duration,
    sent: usize,
    checked: &Checked,
) -> String {
    format!(
        "cycle {cycle}/{}: killed after {} ms and {sent} writes; {} cut off and retried, \
         {} replayed, {} balances = ledgers, Reward {}/{}, prize {}/{} won and delivered, \
         {} Vouchers redeemed once, {} merges, {} violation(s)",
        options.cycles,
        ran.as_millis(),
        checked.retried,
        checked.replayed,
        checked.balances,
        checked.rewards_redeemed,
        company::REWARD_STOCK,
        checked.prizes_won,
        company::PRIZE_STOCK,
        checked.vouchers_redeemed,
        checked.merges,
        checked.violations.len()
    )
}

fn add(summary: &mut Summary, checked: &Checked) {
    let total = &mut summary.checked;
    total.retried += checked.retried;
    total.replayed += checked.replayed;
    total.balances += checked.balances;
    total.rewards_redeemed = checked.rewards_redeemed;
    total.prizes_won = checked.prizes_won;
    total.vouchers_redeemed = checked.vouchers_redeemed;
    total.merges = checked.merges;
}
