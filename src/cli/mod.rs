//! What each command does: `serve`, `keys ...` and `companies ...`.

pub mod back_office_client;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use crate::cli::back_office_client::BackOffice;
use crate::config::BackOfficeArgs;
use crate::config::CampaignsCommand;
use crate::config::Cli;
use crate::config::Command;
use crate::config::CompaniesCommand;
use crate::config::InstantWinsCommand;
use crate::config::KeysCommand;
use crate::config::LogFormat;
use crate::config::ScenariosCommand;
use crate::config::ServeArgs;
use crate::engine::catalog::Catalog;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::http::ApiOptions;
use crate::http::back_office::OperatorToken;
use crate::resources::companies::bootstrap::Bootstrap;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::ApiKey;
use crate::resources::companies::model::Company;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::model::RateLimits;
use crate::resources::companies::service::NewCompany;
use crate::secrets::random_hex;
use crate::server;
use crate::server::ServerSettings;
use crate::storage::RemoteAuth;

/// Runs one command line; the process exit code is 0 on `Ok`.
pub async fn run(cli: Cli) -> ApiResult<()> {
    match cli.command {
        Command::Serve(args) => serve(args).await,
        Command::Keys(command) => keys(command).await,
        Command::Companies(command) => companies(command).await,
        Command::InstantWins(command) => instant_wins(command).await,
        Command::Scenarios(ScenariosCommand::Run {
            paths,
            campaigns,
            snapshots,
            update,
        }) => run_scenarios(paths, &campaigns, &snapshots, update).await,
        Command::Campaigns(CampaignsCommand::Check { campaigns }) => check_campaigns(&campaigns),
        Command::Campaigns(CampaignsCommand::Draws {
            file,
            runs,
            seed,
            json,
        }) => simulate_draws(&file, runs, seed, json),
        Command::Bench(args) => bench(args).await,
    }
}

/// Runs `loyalty bench` and prints its report.
async fn bench(args: crate::config::BenchArgs) -> ApiResult<()> {
    init_logging("warn", LogFormat::Text);
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: this is an unoptimised build, 8 to 12 times slower than release; \
             run `cargo run --release -- bench` for figures worth quoting"
        );
    }
    let options = crate::bench::BenchOptions {
        customers: args.customers,
        campaigns: args.campaigns.max(1),
        products: args.products.max(1),
        redeemers: args.redeemers,
        duration: std::time::Duration::from_secs(args.duration.max(1)),
        warmup: std::time::Duration::from_secs(args.warmup),
        rates: args.rates.into_iter().filter(|r| *r > 0).collect(),
        connections: args.connections.max(1),
        scenarios: if args.only.is_empty() {
            crate::bench::Scenario::ALL.to_vec()
        } else {
            args.only
        },
        dir: args.dir,
        keep: args.keep,
        seed: args.seed,
    };
    let report = crate::bench::run(&options)
        .await
        .map_err(|e| ApiError::internal(format!("benchmark: {e:#}")))?;
    if args.json {
        return print_json(&report.json());
    }
    println!("{}", report.markdown());
    Ok(())
}

/// Runs the scenarios under `paths` and prints a pass/fail summary.
async fn run_scenarios(
    paths: Vec<std::path::PathBuf>,
    campaigns: &Path,
    snapshots: &Path,
    update: bool,
) -> ApiResult<()> {
    use crate::scenarios::snapshot;
    let paths = if paths.is_empty() {
        vec![std::path::PathBuf::from("scenarios")]
    } else {
        paths
    };
    let files = crate::scenarios::format::Scenario::files(&paths);
    if files.is_empty() {
        return Err(ApiError::invalid("no scenario files found"));
    }
    let (mut passed, mut failed) = (0, 0);
    for file in files {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", file.display())))?;
        let scenario = match crate::scenarios::format::Scenario::parse(&file, &text) {
            Ok(scenario) => scenario,
            Err(errors) => {
                for error in errors {
                    println!("FAIL {error}");
                }
                failed += 1;
                continue;
            }
        };
        let report = crate::scenarios::run::run_scenario(&scenario, campaigns).await?;
        let answers = snapshot::answers(&report);
        let snapshot_file = snapshot::snapshot_path(snapshots, &file);
        let changed = match snapshot::read(&snapshot_file) {
            _ if update || report.failure.is_some() => None,
            Some(recorded) => snapshot::changes(&recorded, &answers),
            None => None,
        };
        match &report.failure {
            None if changed.is_some() => {
                failed += 1;
                println!(
                    "FAIL {}: {}: the answers changed since {}: {}",
                    file.display(),
                    report.name,
                    snapshot_file.display(),
                    changed.unwrap_or_default()
                );
                println!("  (run with --update to record the new answers)");
            }
            None => {
                passed += 1;
                if update {
                    std::fs::create_dir_all(snapshots).map_err(ApiError::internal)?;
                    std::fs::write(&snapshot_file, snapshot::render(&answers))
                        .map_err(ApiError::internal)?;
                }
                println!(
                    "PASS {}: {} ({} steps)",
                    file.display(),
                    report.name,
                    report.passed
                );
            }
            Some(failure) => {
                failed += 1;
                println!(
                    "FAIL {}:{}: {}: step `{}`: {}",
                    file.display(),
                    failure.line,
                    report.name,
                    failure.step,
                    failure.problem
                );
                if let Some(expected) = &failure.expected {
                    println!("  expected: {expected}");
                }
                println!("  actual:   {} {}", failure.actual.0, failure.actual.1);
                if let Some(explanations) = &failure.explanations {
                    println!("  campaigns: {explanations}");
                }
            }
        }
    }
    println!("\n{passed} passed, {failed} failed");
    if failed > 0 {
        return Err(ApiError::invalid(format!("{failed} scenario(s) failed")));
    }
    Ok(())
}

/// Simulates `runs` draws of the Instant Win in `file` and prints how they went.
fn simulate_draws(file: &Path, runs: usize, seed: u64, json: bool) -> ApiResult<()> {
    if runs == 0 || runs > 100_000_000 {
        return Err(ApiError::invalid("--runs is from 1 to 100000000"));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", file.display())))?;
    let engine = crate::engine::script::ScriptEngine::new();
    let campaign =
        crate::engine::campaign::Campaign::parse(&engine, file, &text).map_err(|errors| {
            for error in &errors {
                eprintln!("{error}");
            }
            ApiError::invalid(format!(
                "{} has {} problem(s)",
                file.display(),
                errors.len()
            ))
        })?;
    let crate::engine::kinds::CampaignKind::InstantWin(instant_win) = &campaign.kind else {
        return Err(ApiError::invalid(format!(
            "{} is a {} campaign, not an instant_win",
            file.display(),
            campaign.kind.name()
        )));
    };
    let simulation =
        crate::resources::instant_wins::rules::fairness::simulate(&instant_win.prizes, runs, seed);
    if json {
        return print_json(&simulation);
    }
    println!(
        "{} draws of campaign {} (seed {}):\n",
        simulation.runs, campaign.id, simulation.seed
    );
    println!(
        "{:<16} {:>8} {:>10} {:>8} {:>8} {:>8}  RAN OUT AT DRAW",
        "PRIZE", "WEIGHT", "OBSERVED", "DRAWN", "WON", "STOCK"
    );
    for prize in &simulation.prizes {
        println!(
            "{:<16} {:>8.4} {:>10.4} {:>8} {:>8} {:>8}  {}",
            prize.id,
            prize.weight,
            prize.drawn as f64 / simulation.runs as f64,
            prize.drawn,
            prize.won,
            prize.stock,
            prize
                .ran_out_at
                .map_or("-".to_string(), |at| at.to_string())
        );
    }
    if simulation.nothing > 0 {
        println!(
            "{:<16} {:>8} {:>10.4} {:>8}",
            "(removed)",
            "",
            simulation.nothing as f64 / simulation.runs as f64,
            simulation.nothing
        );
    }
    println!(
        "\nchi-square over the {} draws before any prize ran out: {:.2} with {} degrees of freedom (critical value {:.2} at significance {}): {}",
        simulation.tested_runs,
        simulation.chi_square,
        simulation.degrees_of_freedom,
        simulation.critical_value,
        crate::resources::instant_wins::rules::fairness::SIGNIFICANCE,
        if simulation.consistent {
            "consistent with the weights"
        } else {
            "NOT consistent with the weights"
        }
    );
    Ok(())
}

/// Compiles every rule file under `dir`, printing problems as `FILE:LINE:COLUMN: message`.
fn check_campaigns(dir: &Path) -> ApiResult<()> {
    if !dir.is_dir() {
        return Err(ApiError::invalid(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    let (catalog, report) = Catalog::load(dir);
    for error in &report.errors {
        eprintln!("{error}");
    }
    if report.errors.is_empty() {
        for company in &report.loaded {
            let rules = catalog.company(company);
            println!(
                "ok: {company}: {} campaigns, {} tiers, {} audiences, {} calculated attributes",
                rules.campaigns.len(),
                rules.segments.tiers.len(),
                rules.segments.audiences.len(),
                rules.segments.attributes.len()
            );
        }
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "{} problem(s) in {}",
            report.errors.len(),
            dir.display()
        )))
    }
}

/// Starts logging to stderr with `filter`.
pub fn init_logging(filter: &str, format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

async fn serve(args: ServeArgs) -> ApiResult<()> {
    init_logging(&args.log_level, args.log_format);
    let admin_token = match &args.admin_token {
        Some(token) => token.clone(),
        None => write_new_token(&args.admin_token_file)?,
    };
    let settings = ServerSettings {
        listen: args.listen,
        admin_listen: args.admin_listen,
        admin_token: OperatorToken(admin_token),
        store_url: args.store.url.clone(),
        remote_auth: args.store.user.clone().map(|username| RemoteAuth {
            username,
            password: args.store.password.clone().unwrap_or_default(),
        }),
        serve_environment: args.environment.map(Into::into),
        api_options: ApiOptions {
            max_body_bytes: args.max_body_bytes,
            request_timeout: Duration::from_millis(args.request_timeout_ms),
            max_in_flight: args.max_in_flight,
            max_queued: args.max_queued,
        },
        shutdown_timeout: Duration::from_secs(args.shutdown_timeout),
        campaigns: args.campaigns.clone(),
        draw_seed: args.draw_seed,
        clock: std::sync::Arc::default(),
        deliver_prizes: !args.hold_prize_delivery,
    };
    let running = server::start(settings).await?;
    if let Some(bootstrap) = &running.bootstrap {
        print_bootstrap(bootstrap, running.api_addr);
    }
    wait_for_stop_signal().await;
    tracing::info!("stopping: finishing in-flight requests");
    running.shutdown().await?;
    tracing::info!("stopped");
    Ok(())
}

/// Generates an operator token and writes it, readable by the owner only.
fn write_new_token(path: &Path) -> ApiResult<String> {
    let token = random_hex(32);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| ApiError::invalid(format!("cannot create {}: {e}", parent.display())))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .map_err(|e| ApiError::invalid(format!("cannot write {}: {e}", path.display())))?;
    file.write_all(token.as_bytes())
        .map_err(|e| ApiError::invalid(format!("cannot write {}: {e}", path.display())))?;
    Ok(token)
}

fn print_bootstrap(bootstrap: &Bootstrap, api_addr: std::net::SocketAddr) {
    let key = &bootstrap.key;
    let host = if api_addr.ip().is_unspecified() {
        format!("127.0.0.1:{}", api_addr.port())
    } else {
        api_addr.to_string()
    };
    println!(
        "\nCreated the demo Company (sandbox) and its system API key.\n\
         The secret is shown only this once; store it safely.\n\n  \
         X-Api-Key:    {}\n  X-Api-Secret: {}\n\nTry it:\n  \
         curl -s http://{host}/check -H 'X-Api-Key: {}' -H 'X-Api-Secret: {}' -H 'X-Api-Version: 1'\n",
        key.key.key, key.secret, key.key.key, key.secret
    );
}

async fn wait_for_stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

async fn back_office(args: &BackOfficeArgs) -> ApiResult<BackOffice> {
    init_logging("warn", LogFormat::Text);
    BackOffice::connect(args).await
}

async fn keys(command: KeysCommand) -> ApiResult<()> {
    match command {
        KeysCommand::Create {
            company,
            description,
            disabled,
            back_office: args,
        } => {
            let created = back_office(&args)
                .await?
                .create_key(NewKey {
                    company,
                    description,
                    enabled: !disabled,
                })
                .await?;
            print_created_key(&created, args.json)
        }
        KeysCommand::List {
            company,
            back_office: args,
        } => {
            let keys = back_office(&args).await?.keys(company.as_deref()).await?;
            if args.json {
                print_json(&serde_json::json!({ "keys": keys }))
            } else {
                print_key_table(&keys);
                Ok(())
            }
        }
        KeysCommand::Disable {
            key,
            back_office: args,
        } => set_enabled(&key, false, &args).await,
        KeysCommand::Enable {
            key,
            back_office: args,
        } => set_enabled(&key, true, &args).await,
    }
}

async fn set_enabled(key: &str, enabled: bool, args: &BackOfficeArgs) -> ApiResult<()> {
    let updated = back_office(args)
        .await?
        .set_key_enabled(key, enabled)
        .await?;
    if args.json {
        print_json(&updated)
    } else {
        let state = if updated.enabled {
            "enabled"
        } else {
            "disabled"
        };
        println!("API key {} is {state}.", updated.key);
        Ok(())
    }
}

fn print_created_key(created: &CreatedApiKey, json: bool) -> ApiResult<()> {
    if json {
        return print_json(created);
    }
    let key = &created.key;
    println!(
        "Created API key for Company {} ({}){}.\n\n  X-Api-Key:    {}\n  X-Api-Secret: {}\n\n\
         The secret is shown only now and cannot be recovered; store it safely.",
        key.company,
        key.environment,
        if key.enabled { "" } else { ", disabled" },
        key.key,
        created.secret
    );
    Ok(())
}

fn print_key_table(keys: &[ApiKey]) {
    println!(
        "{:<36} {:<16} {:<10} {:<8} {:<6} DESCRIPTION",
        "KEY", "COMPANY", "ENV", "ENABLED", "SYSTEM"
    );
    for key in keys {
        println!(
            "{:<36} {:<16} {:<10} {:<8} {:<6} {}",
            key.key,
            key.company,
            key.environment,
            if key.enabled { "yes" } else { "no" },
            if key.system { "yes" } else { "no" },
            key.description
        );
    }
}

async fn companies(command: CompaniesCommand) -> ApiResult<()> {
    match command {
        CompaniesCommand::Create {
            slug,
            environment,
            language,
            languages,
            rate_limits,
            back_office: args,
        } => {
            let rate_limits = match rate_limits.as_deref() {
                None => None,
                Some([critical, moderate, low]) => Some(RateLimits {
                    critical: *critical,
                    moderate: *moderate,
                    low: *low,
                }),
                Some(_) => {
                    return Err(ApiError::invalid(
                        "--rate-limits takes three numbers: tier 1, tier 2 and tier 3, e.g. 60,25,10",
                    ));
                }
            };
            let company = back_office(&args)
                .await?
                .create_company(NewCompany {
                    slug,
                    environment: environment.into(),
                    language: Some(language),
                    languages,
                    rate_limits,
                })
                .await?;
            if args.json {
                print_json(&company)
            } else {
                println!(
                    "Created Company {} ({}), languages: {} (default {}).",
                    company.slug,
                    company.environment,
                    company.languages.join(","),
                    company.default_language
                );
                Ok(())
            }
        }
        CompaniesCommand::Limits {
            slug,
            critical,
            moderate,
            low,
            back_office: args,
        } => {
            let limits = RateLimits {
                critical,
                moderate,
                low,
            };
            let company = back_office(&args)
                .await?
                .set_rate_limits(&slug, limits)
                .await?;
            if args.json {
                print_json(&company)
            } else {
                println!(
                    "Company {} now allows {}/{}/{} requests per second in tiers 1/2/3.",
                    company.slug, critical, moderate, low
                );
                Ok(())
            }
        }
        CompaniesCommand::List { back_office: args } => {
            let companies = back_office(&args).await?.companies().await?;
            if args.json {
                print_json(&serde_json::json!({ "companies": companies }))
            } else {
                print_company_table(&companies);
                Ok(())
            }
        }
    }
}

async fn instant_wins(command: InstantWinsCommand) -> ApiResult<()> {
    let InstantWinsCommand::Assign {
        company,
        rule,
        customers,
        campaigns,
        back_office: args,
    } = command;
    let vouchers = BackOffice::connect_with_rules(&args, Some(&campaigns))
        .await?
        .assign_instant_win(&company, rule, &customers)
        .await?;
    if args.json {
        return print_json(&serde_json::json!({ "vouchers": vouchers }));
    }
    println!(
        "{:<28} {:<20} {:<22} SEND",
        "CUSTOMER", "VOUCHER CODE", "ASSIGNMENT"
    );
    for voucher in &vouchers {
        println!(
            "{:<28} {:<20} {:<22} {}",
            voucher.customer_id,
            voucher.code,
            voucher.loyalty_rule_history_id,
            voucher.campaign_history_id
        );
    }
    Ok(())
}

fn print_company_table(companies: &[Company]) {
    println!(
        "{:<24} {:<10} {:<8} {:<12} LANGUAGES",
        "SLUG", "ENV", "DEFAULT", "RPS T1/T2/T3"
    );
    for company in companies {
        let limits = &company.rate_limits;
        println!(
            "{:<24} {:<10} {:<8} {:<12} {}",
            company.slug,
            company.environment,
            company.default_language,
            format!("{}/{}/{}", limits.critical, limits.moderate, limits.low),
            company.languages.join(",")
        );
    }
}

fn print_json<T: serde::Serialize>(value: &T) -> ApiResult<()> {
    let text = serde_json::to_string(value).map_err(ApiError::internal)?;
    println!("{text}");
    Ok(())
}
