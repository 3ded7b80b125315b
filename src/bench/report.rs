//! What a benchmark prints: one row per run, the ceilings, and the service's
//! throughput as fractions of them (ratios survive a noisy machine better
//! than absolute figures).

use serde_json::{Value, json};

use crate::bench::BenchOptions;
use crate::bench::Scenario;
use crate::bench::load::Load;
use crate::bench::load::RunResult;

/// One run of one scenario.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    /// What was sent.
    pub scenario: Scenario,
    /// What was measured.
    pub result: RunResult,
    /// CPU time the server used over the measured part, where it is known.
    pub server_cpu: Option<std::time::Duration>,
}

impl ScenarioRun {
    /// The server's CPU time per answered request, in milliseconds: what a
    /// request costs whatever else shares the machine (the load generator
    /// does here).
    pub fn cpu_ms_per_answer(&self) -> Option<f64> {
        let answered: u64 = self.result.statuses.values().sum();
        let cpu = self.server_cpu?;
        (answered > 0).then(|| cpu.as_secs_f64() * 1000.0 / answered as f64)
    }
}

/// Every run of a benchmark and the machine's ceilings.
#[derive(Debug, Clone)]
pub struct Report {
    /// The set-up, as a reader needs it to compare runs.
    pub setup: Value,
    /// Raw store commits per second, with no service in front.
    pub raw_store: Option<RunResult>,
    /// The runs, in order.
    pub runs: Vec<ScenarioRun>,
}

impl Report {
    /// An empty report of a benchmark run with `options`.
    pub fn new(options: &BenchOptions) -> Report {
        Report {
            setup: json!({
                "customers": options.customers,
                "campaigns": options.campaigns,
                "products": options.products,
                "catalogue": if options.catalogue_in_carts { "in the carts" } else { "in the store" },
                "duration_s": options.duration.as_secs_f64(),
                "warmup_s": options.warmup.as_secs_f64(),
                "connections": options.connections,
                "store": options.store.describe(),
                "cores": std::thread::available_parallelism().map_or(0, usize::from),
                "optimised_build": !cfg!(debug_assertions),
            }),
            raw_store: None,
            runs: Vec::new(),
        }
    }

    /// Saturation throughput of `scenario`, if it ran.
    pub fn saturation(&self, scenario: Scenario) -> Option<f64> {
        self.runs
            .iter()
            .find(|run| run.scenario == scenario && matches!(run.result.load, Load::Saturation(_)))
            .map(|run| run.result.throughput())
    }

    /// The report as Markdown: the runs, then the ceilings and ratios.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        out.push_str(HEADER);
        for run in &self.runs {
            out.push_str(&row(run));
            out.push('\n');
        }
        if let Some(raw) = &self.raw_store {
            out.push_str(&format!(
                "\nRaw store: {:.0} synced commits/s ({} writers), p50 {:.2} ms, p99 {:.2} ms.\n",
                raw.throughput(),
                match raw.load {
                    Load::Saturation(writers) => writers,
                    Load::Rate(_) => 0,
                },
                raw.percentile_ms(0.5),
                raw.percentile_ms(0.99)
            ));
        }
        let check = self.saturation(Scenario::Check);
        let raw = self.raw_store.as_ref().map(RunResult::throughput);
        for scenario in Scenario::ALL {
            if scenario == Scenario::Check {
                continue;
            }
            let Some(throughput) = self.saturation(scenario) else {
                continue;
            };
            let mut parts = Vec::new();
            if let Some(check) = check.filter(|c| *c > 0.0) {
                parts.push(format!("{:.2} of GET /check", throughput / check));
            }
            if let Some(raw) = raw.filter(|r| *r > 0.0) {
                parts.push(format!("{:.2} of raw store commits", throughput / raw));
            }
            if !parts.is_empty() {
                out.push_str(&format!(
                    "{} at saturation: {}.\n",
                    scenario.label(),
                    parts.join(", ")
                ));
            }
        }
        if let Some(line) = self.voucher_cost() {
            out.push_str(&line);
        }
        out
    }

    /// What three Vouchers add to a cart: the server CPU per answer of the
    /// voucher carts over the same carts without them, at each load both ran.
    fn voucher_cost(&self) -> Option<String> {
        let ratios: Vec<String> = self
            .runs
            .iter()
            .filter(|run| run.scenario == Scenario::CartsRealtimeVouchers)
            .filter_map(|with| {
                let without = self.runs.iter().find(|run| {
                    run.scenario == Scenario::CartsRealtime
                        && run.result.load.to_string() == with.result.load.to_string()
                })?;
                let ratio = with.cpu_ms_per_answer()? / without.cpu_ms_per_answer()?;
                Some(format!("{ratio:.2}x at {}", with.result.load))
            })
            .collect();
        (!ratios.is_empty()).then(|| {
            format!(
                "Server CPU per cart with 3 Vouchers over the same carts without: {}.\n",
                ratios.join(", ")
            )
        })
    }

    /// One latency-against-load chart (SVG) per request type that ran, with
    /// the file name it is written under (`<scenario>.svg`).
    pub fn charts(&self) -> Vec<(String, String)> {
        let mut scenarios: Vec<Scenario> = Vec::new();
        for run in &self.runs {
            if !scenarios.contains(&run.scenario) {
                scenarios.push(run.scenario);
            }
        }
        scenarios
            .into_iter()
            .filter_map(|scenario| {
                let runs: Vec<&ScenarioRun> = self
                    .runs
                    .iter()
                    .filter(|run| run.scenario == scenario)
                    .collect();
                let svg = crate::bench::chart::latency_chart(scenario.label(), &runs)?;
                let name = serde_json::to_value(scenario)
                    .ok()
                    .and_then(|value| value.as_str().map(str::to_string))?;
                Some((format!("{name}.svg"), svg))
            })
            .collect()
    }

    /// The report as one JSON object.
    pub fn json(&self) -> Value {
        let run = |result: &RunResult| {
            json!({
                "load": result.load.to_string(),
                "answered": result.statuses.values().sum::<u64>(),
                "failed": result.failures(),
                "statuses": result.statuses.iter().map(|(s, c)| (s.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
                "throughput_per_s": result.throughput(),
                "p50_ms": result.percentile_ms(0.5),
                "p99_ms": result.percentile_ms(0.99),
                "p999_ms": result.percentile_ms(0.999),
                "max_ms": result.percentile_ms(1.0),
            })
        };
        json!({
            "setup": self.setup,
            "raw_store": self.raw_store.as_ref().map(run),
            "runs": self.runs.iter().map(|r| {
                let mut value = run(&r.result);
                value["scenario"] = json!(r.scenario);
                value["server_cpu_ms_per_answer"] = json!(r.cpu_ms_per_answer());
                value
            }).collect::<Vec<_>>(),
        })
    }
}

const HEADER: &str = "| Request | Load | Answered | Failed | Throughput | p50 | p99 | p99.9 | Max | Server CPU per answer |\n\
                      |---|---|---|---|---|---|---|---|---|---|\n";

/// One run as a Markdown table row.
pub fn row(run: &ScenarioRun) -> String {
    let result = &run.result;
    let failed = if result.failures() == 0 {
        "0".to_string()
    } else {
        let statuses: Vec<String> = result
            .statuses
            .iter()
            .filter(|(status, _)| !(200..300).contains(*status))
            .map(|(status, count)| format!("{count}×{status}"))
            .chain(
                (result.transport_errors > 0)
                    .then(|| format!("{}×no answer", result.transport_errors)),
            )
            .collect();
        statuses.join(", ")
    };
    let cpu = run
        .cpu_ms_per_answer()
        .map_or_else(|| "?".to_string(), |ms| format!("{ms:.2} ms"));
    format!(
        "| {} | {} | {} | {} | {:.0}/s | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {cpu} |",
        run.scenario.label(),
        result.load,
        result.statuses.values().sum::<u64>(),
        failed,
        result.throughput(),
        result.percentile_ms(0.5),
        result.percentile_ms(0.99),
        result.percentile_ms(0.999),
        result.percentile_ms(1.0),
    )
}
