//! `loyalty torture`, short: a few SIGKILL cycles of the real binary on a
//! durable store under a mixed keyed write load, checked from the API after
//! every restart (`loyalty torture --cycles 50` is the long run, in
//! RELIABILITY.md).

use loyalty::torture::{TortureOptions, run};
use std::sync::Mutex;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_cycles_lose_nothing_acknowledged_and_apply_nothing_twice() {
    let options = TortureOptions {
        cycles: 3,
        clients: 6,
        customers: 4,
        longest_run: Duration::from_millis(1_500),
        seed: 7,
        binary: env!("CARGO_BIN_EXE_loyalty").into(),
        dir: None,
        keep: false,
    };
    let lines = Mutex::new(Vec::new());
    let summary = run(&options, |line| {
        lines.lock().unwrap().push(line.to_string());
    })
    .await
    .unwrap_or_else(|error| panic!("{error:#}"));
    let lines = lines.into_inner().unwrap();
    assert_eq!(summary.cycles, 3, "{lines:#?}");
    assert_eq!(lines.len(), 3, "a line per cycle: {lines:#?}");
    assert!(summary.sent >= 30, "writes were sent: {summary:?}");
    assert!(
        summary.checked.replayed >= summary.sent / 2,
        "answered writes were replayed after the restarts: {summary:?}"
    );
    assert!(summary.checked.balances >= 12, "{summary:?}");
}
