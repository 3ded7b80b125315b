//! The ratios a report draws between its runs: each store against the
//! embedded store and one node fewer, a cart against the store's floor, and
//! the Voucher and large-basket carts against the plain ones.

use crate::bench::Scenario;
use crate::bench::floor::FloorLayout;
use crate::bench::floor::StoreFloor;
use crate::bench::nodes::BenchStore;
use crate::bench::report::Report;
use crate::storage::group_commit::MAX_BATCH;

impl Report {
    /// Each store's saturation throughput against the embedded store's, and
    /// against the store of one node fewer: what a SurrealDB server and
    /// every node added cost or gave, measured in the same run.
    pub(super) fn store_ratios(&self) -> String {
        let stores = self.stores();
        let mut out = String::new();
        for scenario in Scenario::ALL {
            let mut parts = Vec::new();
            for (i, store) in stores.iter().enumerate() {
                let Some(throughput) = self.saturation_on(&store.tag(), scenario) else {
                    continue;
                };
                let embedded = self.saturation_on("embedded", scenario);
                if let (BenchStore::Remote { .. }, Some(embedded)) = (store, embedded) {
                    parts.push(format!(
                        "{} {:.2} of the embedded store",
                        store.describe(),
                        throughput / embedded
                    ));
                }
                let previous = i
                    .checked_sub(1)
                    .and_then(|p| stores.get(p))
                    .filter(|p| matches!(p, BenchStore::Remote { .. }));
                let before =
                    previous.and_then(|p| Some((p, self.saturation_on(&p.tag(), scenario)?)));
                if let Some((previous, before)) = before {
                    parts.push(format!(
                        "{} {:.2} times {}",
                        store.describe(),
                        throughput / before,
                        previous.describe()
                    ));
                }
            }
            if !parts.is_empty() {
                out.push_str(&format!(
                    "{} at saturation: {}.\n",
                    scenario.label(),
                    parts.join("; ")
                ));
            }
        }
        out
    }

    /// The server CPU per recorded cart of every `POST /carts/realtime`
    /// run, as a multiple of the store's floor for a cart on `floor`'s
    /// layout, when the floor was measured at the group commit's batch (a
    /// floor of carts alone is told, not compared).
    pub(super) fn floor_multiples(&self, floor: &StoreFloor) -> String {
        let Some(floor_ms) = floor
            .cpu_ms_per_cart()
            .filter(|ms| *ms > 0.0 && floor.batch == MAX_BATCH)
        else {
            return String::new();
        };
        let multiples: Vec<String> = self
            .runs
            .iter()
            .filter(|run| run.scenario == Scenario::CartsRealtime)
            .filter_map(|run| {
                let cpu = run.cpu_ms_per_answer()?;
                Some(format!(
                    "{:.1}x at {} ({cpu:.2} ms, {})",
                    cpu / floor_ms,
                    run.result.load,
                    run.store.tag()
                ))
            })
            .collect();
        if multiples.is_empty() {
            return String::new();
        }
        let whose = match floor.layout {
            FloorLayout::Today => "the floor's",
            FloorLayout::OneDocument => "the one-document floor's",
        };
        format!(
            "{} server CPU per cart as a multiple of {whose}: {}.\n",
            Scenario::CartsRealtime.label(),
            multiples.join(", ")
        )
    }

    /// What three Vouchers and a large basket add to a cart: the server CPU
    /// per answer of their carts over the plain carts', at each load both ran.
    pub(super) fn cost_over_plain_carts(&self) -> Option<String> {
        let lines: Vec<String> = [
            (Scenario::CartsRealtimeVouchers, "with 3 Vouchers"),
            (Scenario::CartsRealtimeLarge, "of 50 lines"),
        ]
        .into_iter()
        .filter_map(|(scenario, what)| {
            let ratios = self.cpu_over_plain_carts(scenario);
            (!ratios.is_empty()).then(|| {
                format!(
                    "Server CPU per cart {what} over the plain carts: {}.\n",
                    ratios.join(", ")
                )
            })
        })
        .collect();
        (!lines.is_empty()).then(|| lines.concat())
    }

    /// The server CPU per answer of each run of `scenario` over the plain
    /// carts' (`POST /carts/realtime`) at the same load on the same store.
    fn cpu_over_plain_carts(&self, scenario: Scenario) -> Vec<String> {
        self.runs
            .iter()
            .filter(|run| run.scenario == scenario)
            .filter_map(|with| {
                let without = self.runs.iter().find(|run| {
                    run.scenario == Scenario::CartsRealtime
                        && run.store.tag() == with.store.tag()
                        && run.result.load.to_string() == with.result.load.to_string()
                })?;
                let ratio = with.cpu_ms_per_answer()? / without.cpu_ms_per_answer()?;
                Some(format!(
                    "{ratio:.2}x at {} ({})",
                    with.result.load,
                    with.store.tag()
                ))
            })
            .collect()
    }
}
