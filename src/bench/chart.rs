//! Latency against offered load, drawn as SVG: one chart per request type,
//! its p50, p99 and p99.9 at each fixed rate (counted from each request's
//! scheduled start), and the saturation run at the throughput it reached.
//! Written by hand: a few lines and labels need no plotting library.

use std::fmt::Write;

use crate::bench::load::Load;
use crate::bench::report::ScenarioRun;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

/// The percentiles drawn, with their colours.
const SERIES: [(&str, f64, &str); 3] = [
    ("p50", 0.5, "#1f77b4"),
    ("p99", 0.99, "#ff7f0e"),
    ("p99.9", 0.999, "#d62728"),
];

/// The chart of `runs`, all of the request type `title`; `None` when none
/// of them answered anything.
pub fn latency_chart(title: &str, runs: &[&ScenarioRun]) -> Option<String> {
    let answered: Vec<&ScenarioRun> = runs
        .iter()
        .copied()
        .filter(|run| run.result.statuses.values().sum::<u64>() > 0)
        .collect();
    if answered.is_empty() {
        return None;
    }
    let x_of = |run: &ScenarioRun| match run.result.load {
        Load::Rate(rate) => f64::from(rate),
        Load::Saturation(_) | Load::Alone => run.result.throughput(),
    };
    let latencies: Vec<f64> = answered
        .iter()
        .flat_map(|run| SERIES.map(|(_, q, _)| run.result.percentile_ms(q)))
        .filter(|ms| *ms > 0.0)
        .collect();
    let low = latencies.iter().copied().fold(f64::MAX, f64::min).max(0.01);
    let high = latencies
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .max(low * 10.0);
    let (y_min, y_max) = (low.log10().floor(), high.log10().ceil());
    let x_max = answered.iter().map(|run| x_of(run)).fold(1.0, f64::max) * 1.08;
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let x = |value: f64| LEFT + value / x_max * plot_width;
    let y = |ms: f64| {
        let position = (ms.max(10f64.powf(y_min)).log10() - y_min) / (y_max - y_min);
        TOP + plot_height * (1.0 - position)
    };

    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{}: latency against offered load</text>
"##,
        escape(title)
    );
    // Axes, decades of latency and tenths of load.
    for decade in (y_min as i32)..=(y_max as i32) {
        let ms = 10f64.powi(decade);
        let at = y(ms);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{at:.1}" x2="{:.1}" y2="{at:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{} ms</text>"##,
            LEFT + plot_width,
            LEFT - 6.0,
            at + 4.0,
            format_ms(ms)
        );
    }
    for tenth in 0..=10 {
        let value = x_max / 1.08 * f64::from(tenth) / 10.0;
        let at = x(value);
        let _ = writeln!(
            svg,
            r##"<line x1="{at:.1}" y1="{TOP}" x2="{at:.1}" y2="{:.1}" stroke="#eee"/><text x="{at:.1}" y="{:.1}" text-anchor="middle">{value:.0}</text>"##,
            TOP + plot_height,
            TOP + plot_height + 16.0
        );
    }
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_width}" height="{plot_height}" fill="none" stroke="#333"/>
<text x="{:.1}" y="{:.1}" text-anchor="middle">offered load (requests/s; saturation: the throughput reached)</text>"##,
        LEFT + plot_width / 2.0,
        HEIGHT - 18.0
    );
    // The fixed rates as lines, the saturation runs as hollow marks.
    let mut fixed: Vec<&ScenarioRun> = answered
        .iter()
        .copied()
        .filter(|run| matches!(run.result.load, Load::Rate(_)))
        .collect();
    fixed.sort_by(|a, b| x_of(a).total_cmp(&x_of(b)));
    for (index, (name, q, colour)) in SERIES.iter().enumerate() {
        let points: Vec<String> = fixed
            .iter()
            .map(|run| format!("{:.1},{:.1}", x(x_of(run)), y(run.result.percentile_ms(*q))))
            .collect();
        if points.len() > 1 {
            let _ = writeln!(
                svg,
                r##"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"##,
                points.join(" ")
            );
        }
        for run in &answered {
            let (cx, cy) = (x(x_of(run)), y(run.result.percentile_ms(*q)));
            let fill = match run.result.load {
                Load::Rate(_) => colour,
                Load::Saturation(_) | Load::Alone => "white",
            };
            let _ = writeln!(
                svg,
                r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="4" fill="{fill}" stroke="{colour}" stroke-width="2"/>"##
            );
        }
        let legend_y = TOP + 14.0 + 20.0 * index as f64;
        let legend_x = LEFT + plot_width + 16.0;
        let _ = writeln!(
            svg,
            r##"<line x1="{legend_x:.1}" y1="{legend_y:.1}" x2="{:.1}" y2="{legend_y:.1}" stroke="{colour}" stroke-width="2"/><text x="{:.1}" y="{:.1}">{name}</text>"##,
            legend_x + 22.0,
            legend_x + 28.0,
            legend_y + 4.0
        );
    }
    let legend_x = LEFT + plot_width + 16.0;
    let _ = writeln!(
        svg,
        r##"<circle cx="{:.1}" cy="{:.1}" r="4" fill="white" stroke="#333" stroke-width="2"/><text x="{:.1}" y="{:.1}">saturation</text>"##,
        legend_x + 11.0,
        TOP + 74.0,
        legend_x + 28.0,
        TOP + 78.0
    );
    // What a run did not record, under its mark; labels of neighbouring
    // runs alternate between two lines.
    let mut by_load = answered.clone();
    by_load.sort_by(|a, b| x_of(a).total_cmp(&x_of(b)));
    let mut labelled = 0;
    for run in by_load {
        let failed = run.result.failures();
        if failed == 0 {
            continue;
        }
        let total = run.result.statuses.values().sum::<u64>() + run.result.transport_errors;
        let share = failed as f64 * 100.0 / total.max(1) as f64;
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#d62728">{share:.0}% not recorded</text>"##,
            x(x_of(run)),
            TOP + plot_height - 8.0 - 14.0 * f64::from(labelled % 2)
        );
        labelled += 1;
    }
    svg.push_str("</svg>\n");
    Some(svg)
}

/// `ms` as an axis label: no decimals from 1 ms up.
fn format_ms(ms: f64) -> String {
    if ms >= 1.0 {
        format!("{ms:.0}")
    } else {
        format!("{ms}")
    }
}

/// `text` safe inside SVG markup.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bench::Scenario;
    use crate::bench::load::RunResult;
    use std::collections::BTreeMap;
    use std::time::Duration;

    fn run(load: Load, latencies_ms: &[u64], refused: u64) -> ScenarioRun {
        run_on(
            crate::bench::nodes::BenchStore::Embedded,
            load,
            latencies_ms,
            refused,
        )
    }

    /// A run of carts on `store` answered in `latencies_ms` over 10 s, and
    /// `refused` more refused with 503.
    pub(crate) fn run_on(
        store: crate::bench::nodes::BenchStore,
        load: Load,
        latencies_ms: &[u64],
        refused: u64,
    ) -> ScenarioRun {
        let mut latencies_us: Vec<u64> = latencies_ms.iter().map(|ms| ms * 1000).collect();
        latencies_us.sort_unstable();
        let mut statuses = BTreeMap::from([(200, latencies_ms.len() as u64)]);
        if refused > 0 {
            statuses.insert(503, refused);
        }
        ScenarioRun {
            scenario: Scenario::CartsRealtime,
            result: RunResult {
                load,
                elapsed: Duration::from_secs(10),
                latencies_us,
                statuses,
                transport_errors: 0,
            },
            store,
            usage: Default::default(),
        }
    }

    #[test]
    fn draws_each_percentile_over_the_rates_and_marks_saturation_and_refusals() {
        let runs = [
            run(Load::Rate(100), &[5, 6, 7, 40], 0),
            run(Load::Rate(500), &[9, 12, 20, 90], 0),
            run(Load::Saturation(32), &[100, 200, 300], 0),
            run(Load::Rate(1000), &[300, 400, 500], 3),
        ];
        let refs: Vec<&ScenarioRun> = runs.iter().collect();
        let svg = latency_chart("POST /carts/realtime", &refs).unwrap();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        // One line per percentile over the three rates, a mark per run and
        // percentile, and the legend's saturation mark.
        assert_eq!(svg.matches("<polyline").count(), 3);
        assert_eq!(svg.matches("<circle").count(), 4 * 3 + 1);
        assert_eq!(svg.matches("fill=\"white\" stroke").count(), 3 + 1);
        assert!(svg.contains("50% not recorded"), "{svg}");
        assert!(svg.contains("1 ms") && svg.contains("1000 ms"), "{svg}");
    }

    #[test]
    fn nothing_answered_draws_nothing() {
        let empty = run(Load::Rate(100), &[], 0);
        assert!(latency_chart("GET /check", &[&empty]).is_none());
    }
}
