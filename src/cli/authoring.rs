//! The commands of campaign authors and QA: check campaign files, simulate draws, run scenarios and the benchmark.

use crate::cli::init_logging;
use crate::cli::print_json;
use crate::config::LogFormat;
use crate::error::ApiError;
use crate::error::ApiResult;
use std::path::Path;

/// Runs `loyalty bench` and prints its report.
/// `loyalty bench --replay`: each captured transaction run again and again,
/// and what it costs ([`crate::bench::replay`]).
async fn replay(args: &crate::config::BenchArgs) -> ApiResult<()> {
    let dir = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    for file in &args.replay {
        let replayed = crate::bench::replay::replay(
            file,
            &dir,
            std::time::Duration::from_secs(args.duration.max(1)),
        )
        .await
        .map_err(|e| ApiError::internal(format!("replay: {e:#}")))?;
        println!("{}", replayed.describe());
    }
    Ok(())
}

pub(crate) async fn bench(args: crate::config::BenchArgs) -> ApiResult<()> {
    init_logging("warn", LogFormat::Text);
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: this is an unoptimised build, 8 to 12 times slower than release; \
             run `cargo run --release -- bench` for figures worth quoting"
        );
    }
    if !args.replay.is_empty() {
        return replay(&args).await;
    }
    let stores = bench_stores(&args)?;
    let options = crate::bench::BenchOptions {
        customers: args.customers,
        campaigns: args.campaigns.max(1),
        products: args.products.max(1),
        redeemers: args.redeemers,
        duration: std::time::Duration::from_secs(args.duration.max(1)),
        warmup: std::time::Duration::from_secs(args.warmup),
        rates: args.rates.into_iter().filter(|r| *r > 0).collect(),
        connections: args.connections.max(1),
        alone: args.alone,
        scenarios: match (args.only.is_empty(), args.soak) {
            (true, None) => crate::bench::Scenario::ALL.to_vec(),
            // A soak alone, unless scenarios are named too.
            (true, Some(_)) => Vec::new(),
            (false, _) => args.only,
        },
        dir: args.dir,
        keep: args.keep,
        seed: args.seed,
        catalogue_in_carts: args.catalogue_in_carts,
        lines: args.lines.map(usize::from),
        soak: args
            .soak
            .filter(|seconds| *seconds > 0)
            .map(std::time::Duration::from_secs),
        server_binary: args.server_binary,
        stores,
        webhook: args.webhook,
    };
    let report = crate::bench::run(&options)
        .await
        .map_err(|e| ApiError::internal(format!("benchmark: {e:#}")))?;
    if let Some(out) = &args.out {
        write_report(out, &report)?;
    }
    if args.json {
        return print_json(&report.json());
    }
    println!("{}", report.markdown());
    Ok(())
}

/// The stores `loyalty bench` measures, in order: the embedded store, or
/// each count of nodes on a SurrealDB server (after the embedded store with
/// `--compare-embedded`).
fn bench_stores(
    args: &crate::config::BenchArgs,
) -> ApiResult<Vec<crate::bench::nodes::BenchStore>> {
    use crate::bench::nodes::BenchStore;
    if args.db.is_none() && !args.surreal {
        if args.nodes != [1] || args.compare_embedded {
            return Err(ApiError::invalid(
                "--nodes and --compare-embedded are for a SurrealDB server: add --surreal or --db",
            ));
        }
        return Ok(vec![BenchStore::Embedded]);
    }
    if args.db.is_some() && args.nodes.len() > 1 {
        return Err(ApiError::invalid(
            "a list of --nodes needs a new SurrealDB server for each: use --surreal, not --db",
        ));
    }
    let embedded = args.compare_embedded.then_some(BenchStore::Embedded);
    let remote = args.nodes.iter().map(|&nodes| BenchStore::Remote {
        url: args.db.clone(),
        auth: crate::storage::RemoteAuth {
            username: args.db_user.clone(),
            password: args.db_pass.clone(),
        },
        nodes: nodes.max(1),
    });
    Ok(embedded.into_iter().chain(remote).collect())
}

/// Writes `report` into `dir` (made when missing): its JSON, its Markdown
/// and its charts.
fn write_report(dir: &Path, report: &crate::bench::report::Report) -> ApiResult<()> {
    let written = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).map_err(|e| {
            ApiError::internal(format!("cannot write {}: {e}", dir.join(name).display()))
        })
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| ApiError::internal(format!("cannot make {}: {e}", dir.display())))?;
    let json = serde_json::to_string_pretty(&report.json()).map_err(ApiError::internal)?;
    written("report.json", &json)?;
    written("report.md", &report.markdown())?;
    for (name, svg) in report.charts() {
        written(&name, &svg)?;
    }
    eprintln!("wrote the report and its charts in {}", dir.display());
    Ok(())
}

/// Runs `loyalty torture`: a line per cycle, then the summary; an error
/// (a non-zero exit) on the first violation.
pub(crate) async fn torture(args: crate::config::TortureArgs) -> ApiResult<()> {
    init_logging("warn", LogFormat::Text);
    let options = crate::torture::TortureOptions {
        cycles: args.cycles.max(1),
        clients: args.clients.max(1),
        customers: args.customers.max(2),
        longest_run: std::time::Duration::from_millis(args.longest_run_ms),
        seed: args.seed,
        binary: std::env::current_exe()
            .map_err(|e| ApiError::internal(format!("this binary: {e}")))?,
        dir: args.dir,
        keep: args.keep,
    };
    let summary = crate::torture::run(&options, |line| println!("{line}"))
        .await
        .map_err(|e| ApiError::internal(format!("torture: {e:#}")))?;
    println!("{}", summary.line());
    Ok(())
}

/// Runs the scenarios under `paths` and prints a pass/fail summary; the
/// exit code is 1 when one failed, after every failed expectation.
pub(crate) async fn run_scenarios(
    paths: Vec<std::path::PathBuf>,
    campaigns: &Path,
    snapshots: &Path,
    update: bool,
) -> ApiResult<std::process::ExitCode> {
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
    // What failed, one line each, for the final summary.
    let mut failures: Vec<String> = Vec::new();
    // Scenarios whose answers had no snapshot to be compared with.
    let mut not_compared = 0;
    for file in files {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", file.display())))?;
        let scenario = match crate::scenarios::format::Scenario::parse(&file, &text) {
            Ok(scenario) => scenario,
            Err(errors) => {
                for error in &errors {
                    println!("FAIL {error}");
                }
                failed += 1;
                failures.extend(errors.first().map(ToString::to_string));
                continue;
            }
        };
        let report = crate::scenarios::run::run_scenario(&scenario, campaigns).await?;
        let answers = snapshot::answers(&report);
        let snapshot_file = snapshot::snapshot_path(snapshots, &file);
        let recorded = snapshot::read(&snapshot_file);
        let compared = update || recorded.is_some();
        let changed = match recorded {
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
                failures.push(format!(
                    "{}: the answers changed since {}",
                    file.display(),
                    snapshot_file.display()
                ));
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
                if !compared {
                    not_compared += 1;
                    println!(
                        "  its answers were not compared: there is no snapshot at {} (run with --update to record one)",
                        snapshot_file.display()
                    );
                }
            }
            Some(failure) => {
                failed += 1;
                failures.push(format!(
                    "{}:{}: step `{}`: {}",
                    file.display(),
                    failure.line,
                    failure.step,
                    failure.problem()
                ));
                println!(
                    "FAIL {}:{}: {}: step `{}`:\n{}",
                    file.display(),
                    failure.line,
                    report.name,
                    failure.step,
                    failure.details()
                );
            }
        }
    }
    println!("\n{passed} passed, {failed} failed");
    if not_compared > 0 {
        println!(
            "{not_compared} scenario(s) passed without their answers being compared: no snapshot under {}",
            snapshots.display()
        );
    }
    if failed > 0 {
        eprintln!(
            "error: {failed} scenario(s) failed: {}",
            failures.join("; ")
        );
        return Ok(std::process::ExitCode::FAILURE);
    }
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::bench_stores;
    use crate::bench::nodes::BenchStore;
    use crate::config::{Cli, Command};
    use clap::Parser;

    /// The stores `loyalty bench ARGS` measures, by tag, or its error.
    fn stores(args: &[&str]) -> Result<Vec<String>, String> {
        let cli = Cli::try_parse_from(["loyalty", "bench"].iter().chain(args))
            .map_err(|e| e.to_string())?;
        let Command::Bench(bench) = cli.command else {
            unreachable!("parsed as bench")
        };
        bench_stores(&bench)
            .map(|stores| stores.iter().map(BenchStore::tag).collect())
            .map_err(|e| e.message)
    }

    #[test]
    fn the_bench_measures_the_stores_its_flags_name_in_order() {
        assert_eq!(stores(&[]).unwrap(), ["embedded"]);
        for without_server in [&["--nodes", "2"][..], &["--compare-embedded"]] {
            let refused = stores(without_server).unwrap_err();
            assert!(refused.contains("add --surreal or --db"), "{refused}");
        }
        assert_eq!(stores(&["--surreal"]).unwrap(), ["surreal-1"]);
        assert_eq!(
            stores(&["--surreal", "--compare-embedded", "--nodes", "1,2"]).unwrap(),
            ["embedded", "surreal-1", "surreal-2"]
        );
        assert_eq!(
            stores(&["--db", "ws://db:8000", "--nodes", "2"]).unwrap(),
            ["surreal-2"]
        );
        let refused = stores(&["--db", "ws://db:8000", "--nodes", "1,2"]).unwrap_err();
        assert!(refused.contains("use --surreal"), "{refused}");
    }
}
