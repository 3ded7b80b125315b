//! What a benchmark prints: one row per run, the ceilings, and the service's
//! throughput as fractions of them (ratios survive a noisy machine better
//! than absolute figures).

use serde_json::{Value, json};

use crate::bench::BenchOptions;
use crate::bench::Scenario;
use crate::bench::floor::StoreFloor;
use crate::bench::load::Load;
use crate::bench::load::RunResult;
use crate::bench::nodes::BenchStore;
use crate::bench::soak::Soak;
use crate::bench::usage::Usage;

mod ratios;

/// One run of one scenario.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    /// What was sent.
    pub scenario: Scenario,
    /// The servers it was sent to.
    pub store: BenchStore,
    /// What was measured.
    pub result: RunResult,
    /// What the processes under test used over the measured part.
    pub usage: Usage,
}

impl ScenarioRun {
    /// `total` over the answered requests, where there were some.
    fn per_answer(&self, total: Option<f64>) -> Option<f64> {
        let answered: u64 = self.result.statuses.values().sum();
        (answered > 0).then(|| total.map(|total| total / answered as f64))?
    }

    /// The server's CPU time per answered request, in milliseconds: what a
    /// request costs whatever else shares the machine (the load generator
    /// does here). Against a SurrealDB server the benchmark started, its
    /// CPU time is counted too.
    pub fn cpu_ms_per_answer(&self) -> Option<f64> {
        self.per_answer(self.usage.cpu.map(|cpu| cpu.as_secs_f64() * 1000.0))
    }

    /// The SurrealDB server's part of [`ScenarioRun::cpu_ms_per_answer`].
    pub fn store_cpu_ms_per_answer(&self) -> Option<f64> {
        self.per_answer(self.usage.store_cpu.map(|cpu| cpu.as_secs_f64() * 1000.0))
    }

    /// Queries sent to the store per answered request: round trips, on a
    /// SurrealDB server.
    pub fn queries_per_answer(&self) -> Option<f64> {
        self.per_answer(self.usage.queries.map(|queries| queries as f64))
    }

    /// The time requests waited on the store per answered request, in
    /// milliseconds (the queries' times from sent to answered, summed).
    pub fn store_wait_ms_per_answer(&self) -> Option<f64> {
        self.per_answer(
            self.usage
                .query_time
                .map(|time| time.as_secs_f64() * 1000.0),
        )
    }
}

/// Every run of a benchmark and the machine's ceilings.
#[derive(Debug, Clone)]
pub struct Report {
    /// The set-up, as a reader needs it to compare runs.
    pub setup: Value,
    /// Raw store commits per second, with no service in front.
    pub raw_store: Option<RunResult>,
    /// The store's floor for a cart: its records with nothing in front.
    /// The store's floor for a cart, on each layout and batch measured
    /// ([`crate::bench::floor::FloorLayout`], [`crate::bench::floor::FLOOR_BATCHES`]).
    pub store_floors: Vec<StoreFloor>,
    /// Carts at saturation for a long run, when one was asked for.
    pub soak: Option<Soak>,
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
                "stores": options.stores.iter().map(BenchStore::describe).collect::<Vec<_>>(),
                "cores": std::thread::available_parallelism().map_or(0, usize::from),
                "optimised_build": !cfg!(debug_assertions),
            }),
            raw_store: None,
            store_floors: Vec::new(),
            soak: None,
            runs: Vec::new(),
        }
    }

    /// Saturation throughput of `scenario` on the first store it ran on.
    pub fn saturation(&self, scenario: Scenario) -> Option<f64> {
        let store = self.runs.first()?.store.tag();
        self.saturation_on(&store, scenario)
    }

    /// Saturation throughput of `scenario` on the store tagged `store`.
    fn saturation_on(&self, store: &str, scenario: Scenario) -> Option<f64> {
        self.runs
            .iter()
            .find(|run| {
                run.scenario == scenario
                    && run.store.tag() == store
                    && matches!(run.result.load, Load::Saturation(_))
            })
            .map(|run| run.result.throughput())
    }

    /// The stores measured, in order.
    fn stores(&self) -> Vec<&BenchStore> {
        let mut stores: Vec<&BenchStore> = Vec::new();
        for run in &self.runs {
            if !stores.iter().any(|store| store.tag() == run.store.tag()) {
                stores.push(&run.store);
            }
        }
        stores
    }

    /// The report as Markdown: the runs (a table per store when there are
    /// several), then the ceilings and ratios.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let stores = self.stores();
        for store in &stores {
            if stores.len() > 1 {
                out.push_str(&format!("\n{}:\n\n", store.describe()));
            }
            out.push_str(HEADER);
            for run in self
                .runs
                .iter()
                .filter(|run| run.store.tag() == store.tag())
            {
                out.push_str(&row(run));
                out.push('\n');
            }
        }
        if let Some(raw) = &self.raw_store {
            out.push_str(&format!(
                "\nRaw store: {:.0} synced commits/s ({} writers), p50 {:.2} ms, p99 {:.2} ms.\n",
                raw.throughput(),
                match raw.load {
                    Load::Saturation(writers) => writers,
                    Load::Rate(_) | Load::Alone => 0,
                },
                raw.percentile_ms(0.5),
                raw.percentile_ms(0.99)
            ));
        }
        for floor in &self.store_floors {
            out.push_str(&floor.describe());
            out.push('\n');
            out.push_str(&self.floor_multiples(floor));
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
        if let Some(line) = self.cost_over_plain_carts() {
            out.push_str(&line);
        }
        out.push_str(&self.store_ratios());
        if let Some(soak) = &self.soak {
            out.push_str(&soak.describe());
        }
        out
    }

    /// One latency-against-load chart (SVG) per request type that ran, with
    /// the file name it is written under (`<scenario>.svg`).
    /// With several stores, one chart per store and request type
    /// (`<scenario>-<store>.svg`).
    pub fn charts(&self) -> Vec<(String, String)> {
        let mut pairs: Vec<(String, Scenario)> = Vec::new();
        for run in &self.runs {
            let pair = (run.store.tag(), run.scenario);
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        let several = self.stores().len() > 1;
        pairs
            .into_iter()
            .filter_map(|(store, scenario)| {
                let runs: Vec<&ScenarioRun> = self
                    .runs
                    .iter()
                    .filter(|run| run.scenario == scenario && run.store.tag() == store)
                    .collect();
                let svg = crate::bench::chart::latency_chart(scenario.label(), &runs)?;
                let name = serde_json::to_value(scenario)
                    .ok()
                    .and_then(|value| value.as_str().map(str::to_string))?;
                Some(match several {
                    true => (format!("{name}-{store}.svg"), svg),
                    false => (format!("{name}.svg"), svg),
                })
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
            "store_floor": self.store_floors.first().map(StoreFloor::json),
            "store_floors": self.store_floors.iter().map(StoreFloor::json).collect::<Vec<_>>(),
            "soak": self.soak.as_ref().map(Soak::json),
            "runs": self.runs.iter().map(|r| {
                let mut value = run(&r.result);
                value["scenario"] = json!(r.scenario);
                value["store"] = json!(r.store.describe());
                value["store_tag"] = json!(r.store.tag());
                value["server_cpu_ms_per_answer"] = json!(r.cpu_ms_per_answer());
                value["store_server_cpu_ms_per_answer"] = json!(r.store_cpu_ms_per_answer());
                value["queries_per_answer"] = json!(r.queries_per_answer());
                value["store_wait_ms_per_answer"] = json!(r.store_wait_ms_per_answer());
                value
            }).collect::<Vec<_>>(),
        })
    }
}

const HEADER: &str = "| Request | Load | Answered | Failed | Throughput | p50 | p99 | p99.9 | Max | Server CPU per answer | Store queries per answer | Store wait per answer |\n\
                      |---|---|---|---|---|---|---|---|---|---|---|---|\n";

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
    let cpu = match (run.cpu_ms_per_answer(), run.store_cpu_ms_per_answer()) {
        (Some(all), Some(store)) => format!("{all:.2} ms ({store:.2} ms SurrealDB)"),
        (Some(all), None) => format!("{all:.2} ms"),
        (None, _) => "?".to_string(),
    };
    let queries = run
        .queries_per_answer()
        .map_or_else(|| "?".to_string(), |n| format!("{n:.2}"));
    let wait = run
        .store_wait_ms_per_answer()
        .map_or_else(|| "?".to_string(), |ms| format!("{ms:.2} ms"));
    format!(
        "| {} | {} | {} | {} | {:.0}/s | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {cpu} | {queries} | {wait} |",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::chart::tests::run_on;

    fn remote(nodes: usize) -> BenchStore {
        BenchStore::Remote {
            url: None,
            auth: Default::default(),
            nodes,
        }
    }

    /// A report of `runs` alone.
    fn report_of(runs: Vec<ScenarioRun>) -> Report {
        Report {
            setup: json!({}),
            raw_store: None,
            store_floors: Vec::new(),
            soak: None,
            runs,
        }
    }

    #[test]
    fn several_stores_get_a_table_each_and_are_compared_at_saturation() {
        let report = report_of(vec![
            // 300, 200 and 250 answers in 10 s.
            run_on(BenchStore::Embedded, Load::Saturation(32), &[10; 3000], 0),
            run_on(BenchStore::Embedded, Load::Rate(100), &[5; 1000], 0),
            run_on(remote(1), Load::Saturation(32), &[20; 2000], 0),
            run_on(remote(2), Load::Saturation(32), &[20; 2500], 0),
        ]);
        let text = report.markdown();
        assert_eq!(text.matches("| Request |").count(), 3, "{text}");
        assert!(text.contains("\nembedded SurrealKV:\n"), "{text}");
        assert!(
            text.contains("1 node(s) on a SurrealDB server (surrealkv) on this machine 0.67 of the embedded store"),
            "{text}"
        );
        assert!(text.contains(
            "2 node(s) on a SurrealDB server (surrealkv) on this machine 0.83 of the embedded store"
        ));
        assert!(
            text.contains("on this machine 1.25 times 1 node(s)"),
            "{text}"
        );
        let charts: Vec<String> = report.charts().into_iter().map(|(name, _)| name).collect();
        assert_eq!(
            charts,
            [
                "carts_realtime-embedded.svg",
                "carts_realtime-surreal-1.svg",
                "carts_realtime-surreal-2.svg"
            ]
        );
        let json = report.json();
        assert_eq!(json["runs"][2]["store_tag"], "surreal-1");
    }

    #[test]
    fn a_cart_is_told_as_a_multiple_of_the_store_floor() {
        let mut saturated = run_on(BenchStore::Embedded, Load::Saturation(32), &[10; 1000], 0);
        // 1,000 carts in 4 s of CPU: 4 ms each.
        saturated.usage.cpu = Some(std::time::Duration::from_secs(4));
        let floor = StoreFloor {
            layout: crate::bench::floor::FloorLayout::Today,
            carts: 4_000,
            transactions: 250,
            errors: 0,
            elapsed: std::time::Duration::from_secs(5),
            writers: 2,
            batch: 16,
            // 4,000 carts in 2 s of CPU: 0.5 ms each.
            cpu: Some(std::time::Duration::from_secs(2)),
            records_per_cart: vec![("cart".into(), 1.0), ("iw_draws".into(), 1.0)],
            index_entries_per_cart: 2.0,
            store_bytes: Some(12_000_000),
        };
        let report = Report {
            store_floors: vec![
                floor.clone(),
                // The same carts at half the CPU.
                StoreFloor {
                    layout: crate::bench::floor::FloorLayout::OneDocument,
                    cpu: Some(std::time::Duration::from_secs(1)),
                    index_entries_per_cart: 0.0,
                    ..floor.clone()
                },
                // One cart per transaction: told, not a multiple.
                StoreFloor {
                    batch: 1,
                    cpu: Some(std::time::Duration::from_secs(8)),
                    ..floor
                },
            ],
            ..report_of(vec![saturated])
        };
        let text = report.markdown();
        assert!(
            text.contains("Store floor: 800 carts/s, 0.500 ms of CPU per cart (2 writers, 16 carts per transaction, 2.0 records and 2.0 index entries per cart, 3000 bytes of store, 0 errors)."),
            "{text}"
        );
        assert!(
            text.contains("POST /carts/realtime server CPU per cart as a multiple of the floor's: 8.0x at saturation (32 conn.) (4.00 ms, embedded)."),
            "{text}"
        );
        assert!(
            text.contains(
                "Store floor (one document per event): 800 carts/s, 0.250 ms of CPU per cart"
            ),
            "{text}"
        );
        assert!(
            text.contains("POST /carts/realtime server CPU per cart as a multiple of the one-document floor's: 16.0x at saturation"),
            "{text}"
        );
        let json = report.json();
        assert!(
            text.contains("Store floor: 800 carts/s, 2.000 ms of CPU per cart (2 writers, 1 cart per transaction"),
            "{text}"
        );
        assert_eq!(text.matches("as a multiple of").count(), 2, "{text}");
        assert_eq!(json["store_floors"][1]["layout"], "one-document");
        assert_eq!(json["store_floors"][2]["batch"], 1);
        assert_eq!(json["store_floor"]["cpu_ms_per_cart"], 0.5);
        assert_eq!(json["store_floor"]["records_per_cart"]["cart"], 1.0);
    }

    #[test]
    fn one_store_keeps_the_plain_table_and_chart_names() {
        let report = report_of(vec![run_on(
            BenchStore::Embedded,
            Load::Saturation(32),
            &[10; 30],
            0,
        )]);
        let text = report.markdown();
        assert!(text.starts_with("| Request |"), "{text}");
        assert!(!text.contains("of the embedded store"));
        assert_eq!(report.charts()[0].0, "carts_realtime.svg");
    }
}
