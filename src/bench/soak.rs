//! `loyalty bench --soak SECONDS`: carts recorded at saturation for a long
//! run, measured window by window (a minute each), to show whether the
//! service keeps its pace as the store grows, and how many bytes of store a
//! recorded cart costs.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use serde_json::{Value, json};

use crate::bench::load::{Load, RequestSource, RunResult, Target};
use crate::bench::nodes::Nodes;
use crate::bench::usage::Usage;

/// The length of one measured window of a soak.
pub const SOAK_WINDOW: Duration = Duration::from_secs(60);

/// One window of a soak.
#[derive(Debug, Clone)]
pub struct SoakWindow {
    /// What was measured.
    pub result: RunResult,
    /// What the servers used meanwhile.
    pub usage: Usage,
    /// The store's size on disk at its end, when the store is a directory
    /// of this machine.
    pub store_bytes: Option<u64>,
}

/// A soak: its windows in order, and the store's size before the first.
#[derive(Debug, Clone, Default)]
pub struct Soak {
    /// The connections kept busy.
    pub connections: usize,
    /// The store's size on disk before the first window.
    pub store_bytes_before: Option<u64>,
    /// The windows, in order.
    pub windows: Vec<SoakWindow>,
}

impl Soak {
    /// The last window's throughput over the first's.
    pub fn last_over_first(&self) -> Option<f64> {
        let first = self.windows.first()?.result.throughput();
        let last = self.windows.last()?.result.throughput();
        (first > 0.0).then(|| last / first)
    }

    /// Carts recorded over the whole soak.
    pub fn carts(&self) -> u64 {
        self.windows.iter().map(|w| w.result.successes()).sum()
    }

    /// Bytes the store grew by per cart recorded.
    pub fn bytes_per_cart(&self) -> Option<f64> {
        let before = self.store_bytes_before?;
        let after = self.windows.last()?.store_bytes?;
        let carts = self.carts();
        (carts > 0).then(|| after.saturating_sub(before) as f64 / carts as f64)
    }

    /// The soak as lines of the report.
    pub fn describe(&self) -> String {
        let windows: Vec<String> = self
            .windows
            .iter()
            .enumerate()
            .map(|(i, window)| {
                let answered: u64 = window.result.statuses.values().sum();
                let cpu = window
                    .usage
                    .cpu
                    .filter(|_| answered > 0)
                    .map_or_else(String::new, |cpu| {
                        format!(", {:.2} ms", cpu.as_secs_f64() * 1000.0 / answered as f64)
                    });
                format!(
                    "{} {:.0}/s (p99 {:.1} ms{cpu}{})",
                    i + 1,
                    window.result.throughput(),
                    window.result.percentile_ms(0.99),
                    match window.result.failures() {
                        0 => String::new(),
                        failed => format!(", {failed} failed"),
                    }
                )
            })
            .collect();
        let mut out = format!(
            "Soak, POST /carts/realtime at saturation ({} conn.), by minute (throughput, p99, CPU per cart): {}.\n",
            self.connections,
            windows.join("; ")
        );
        if let Some(ratio) = self.last_over_first() {
            out.push_str(&format!(
                "Soak: the last minute ran at {ratio:.2} of the first; {} carts recorded",
                self.carts()
            ));
            match (
                self.bytes_per_cart(),
                self.windows.last().and_then(|w| w.store_bytes),
            ) {
                (Some(per_cart), Some(bytes)) => out.push_str(&format!(
                    "; the store {:.1} MB, {per_cart:.0} bytes per cart recorded.\n",
                    bytes as f64 / 1e6
                )),
                _ => out.push_str(".\n"),
            }
        }
        out
    }

    /// The soak as JSON.
    pub fn json(&self) -> Value {
        json!({
            "connections": self.connections,
            "window_s": SOAK_WINDOW.as_secs(),
            "throughput_per_s": self.windows.iter().map(|w| w.result.throughput()).collect::<Vec<_>>(),
            "p99_ms": self.windows.iter().map(|w| w.result.percentile_ms(0.99)).collect::<Vec<_>>(),
            "failed": self.windows.iter().map(|w| w.result.failures()).collect::<Vec<_>>(),
            "last_over_first": self.last_over_first(),
            "carts": self.carts(),
            "store_bytes_before": self.store_bytes_before,
            "store_bytes_after": self.windows.last().and_then(|w| w.store_bytes),
            "bytes_per_cart": self.bytes_per_cart(),
        })
    }
}

/// Bytes of the files under `dir`, or `None` when it cannot be read.
pub fn directory_bytes(dir: &Path) -> Option<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        let meta = entry.metadata().ok()?;
        total += if meta.is_dir() {
            directory_bytes(&entry.path())?
        } else {
            meta.len()
        };
    }
    Some(total)
}

/// Runs `source` (carts) at saturation over `connections` for `length`, in
/// windows of [`SOAK_WINDOW`] (the last one shorter if `length` says so),
/// reading the size of `store_dir` (when it is on this machine) before and
/// after each.
pub async fn soak(
    target: &Target,
    server: &Nodes,
    store_dir: Option<&Path>,
    connections: usize,
    length: Duration,
    next: &Arc<AtomicU64>,
    source: &RequestSource,
) -> Soak {
    let size = || store_dir.and_then(directory_bytes);
    let mut soak = Soak {
        connections,
        store_bytes_before: size(),
        windows: Vec::new(),
    };
    let mut left = length;
    while !left.is_zero() {
        let window = left.min(SOAK_WINDOW);
        left -= window;
        let (result, usage) = tokio::join!(
            crate::bench::load::run(
                target,
                Load::Saturation(connections),
                Duration::ZERO,
                window,
                next,
                source
            ),
            crate::bench::usage::usage_over(server, Duration::ZERO, window)
        );
        let window = SoakWindow {
            result,
            usage,
            store_bytes: size(),
        };
        eprintln!(
            "soak minute {}: {:.0} carts/s",
            soak.windows.len() + 1,
            window.result.throughput()
        );
        soak.windows.push(window);
    }
    soak
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::chart::tests::run_on;
    use crate::bench::nodes::BenchStore;

    fn window(carts: usize, store_bytes: u64) -> SoakWindow {
        let run = run_on(
            BenchStore::Embedded,
            Load::Saturation(8),
            &vec![5; carts],
            0,
        );
        SoakWindow {
            result: run.result,
            usage: Usage {
                cpu: Some(Duration::from_secs(2)),
                ..Usage::default()
            },
            store_bytes: Some(store_bytes),
        }
    }

    #[test]
    fn a_soak_tells_its_pace_by_minute_and_the_store_per_cart() {
        // 1,000 then 900 carts in 10 s windows; the store grows by 5.7 MB.
        let soak = Soak {
            connections: 8,
            store_bytes_before: Some(300_000),
            windows: vec![window(1_000, 3_000_000), window(900, 6_000_000)],
        };
        assert_eq!(soak.last_over_first(), Some(0.9));
        assert_eq!(soak.bytes_per_cart(), Some(3_000.0));
        let text = soak.describe();
        assert!(
            text.contains("by minute (throughput, p99, CPU per cart): 1 100/s (p99 5.0 ms, 2.00 ms); 2 90/s (p99 5.0 ms, 2.22 ms)."),
            "{text}"
        );
        assert!(
            text.contains("the last minute ran at 0.90 of the first; 1900 carts recorded; the store 6.0 MB, 3000 bytes per cart recorded."),
            "{text}"
        );
        assert_eq!(soak.json()["bytes_per_cart"], 3000.0);
    }

    #[test]
    fn a_directory_is_measured_whole() {
        let dir = tempfile::tempdir().expect("temporary directory");
        std::fs::create_dir(dir.path().join("inner")).unwrap();
        std::fs::write(dir.path().join("a"), [0u8; 100]).unwrap();
        std::fs::write(dir.path().join("inner").join("b"), [0u8; 50]).unwrap();
        assert_eq!(directory_bytes(dir.path()), Some(150));
        assert_eq!(directory_bytes(&dir.path().join("missing")), None);
    }
}
