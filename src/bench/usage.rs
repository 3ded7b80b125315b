//! What the processes under test used over a run's measured part: their CPU
//! time (the `loyalty` nodes', and the SurrealDB server's when the benchmark
//! started it) from `/proc`, and the store queries the nodes sent and waited
//! on, from their own `GET /metrics`.

use std::time::Duration;

use crate::bench::nodes::Nodes;

/// Counters read at one instant; a difference of two is a [`Usage`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Reading {
    /// CPU clock ticks (1/100 s) of the `loyalty` nodes.
    nodes_ticks: Option<u64>,
    /// CPU clock ticks of the SurrealDB server the benchmark started.
    store_ticks: Option<u64>,
    /// Queries the nodes sent to the store, and the seconds they took.
    queries: Option<(u64, f64)>,
}

/// What the processes under test used over a measured part.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// CPU time of every process under test (nodes and SurrealDB server).
    pub cpu: Option<Duration>,
    /// The SurrealDB server's part of it, when the benchmark started one.
    pub store_cpu: Option<Duration>,
    /// Queries the nodes sent to the store (each a round trip to a server).
    pub queries: Option<u64>,
    /// The time those queries took from sent to answered, summed.
    pub query_time: Option<Duration>,
}

/// Clock ticks are 1/100 s on Linux.
fn ticks_to_time(ticks: u64) -> Duration {
    Duration::from_millis(ticks * 10)
}

impl Reading {
    /// The counters of `nodes` now.
    pub(crate) async fn of(nodes: &Nodes) -> Reading {
        Reading {
            nodes_ticks: nodes.nodes_cpu_ticks(),
            store_ticks: nodes.store_cpu_ticks(),
            queries: nodes.store_queries().await,
        }
    }

    /// What was used from `self` until `later`.
    pub(crate) fn until(self, later: Reading) -> Usage {
        let nodes = later
            .nodes_ticks
            .zip(self.nodes_ticks)
            .map(|(b, a)| b.saturating_sub(a));
        let store = later
            .store_ticks
            .zip(self.store_ticks)
            .map(|(b, a)| b.saturating_sub(a));
        let cpu = match (nodes, store, self.store_ticks) {
            (Some(nodes), Some(store), _) => Some(nodes + store),
            // A store the benchmark did not start is not counted.
            (Some(nodes), None, None) => Some(nodes),
            _ => None,
        };
        let queries = later.queries.zip(self.queries);
        Usage {
            cpu: cpu.map(ticks_to_time),
            store_cpu: store.map(ticks_to_time),
            queries: queries.map(|((b, _), (a, _))| b.saturating_sub(a)),
            query_time: queries.map(|((_, b), (_, a))| Duration::from_secs_f64((b - a).max(0.0))),
        }
    }
}

/// What `nodes` use over the `length` that starts `start` from now.
pub(crate) async fn usage_over(nodes: &Nodes, start: Duration, length: Duration) -> Usage {
    tokio::time::sleep(start).await;
    let before = Reading::of(nodes).await;
    tokio::time::sleep(length).await;
    before.until(Reading::of(nodes).await)
}

/// The value of the sample `name` (without labels) in Prometheus' text
/// format.
pub(crate) fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_read_by_its_exact_name() {
        let text = "# HELP loyalty_store_queries_total Queries\n\
                    loyalty_store_queries_total_extra 9\n\
                    loyalty_store_queries_total 1234\n\
                    loyalty_store_query_seconds_total 2.5\n";
        assert_eq!(sample(text, "loyalty_store_queries_total"), Some(1234.0));
        assert_eq!(sample(text, "loyalty_store_query_seconds_total"), Some(2.5));
        assert_eq!(sample(text, "loyalty_absent"), None);
    }

    #[test]
    fn usage_is_the_difference_and_counts_the_store_only_when_started() {
        let before = Reading {
            nodes_ticks: Some(100),
            store_ticks: Some(50),
            queries: Some((1000, 1.0)),
        };
        let after = Reading {
            nodes_ticks: Some(300),
            store_ticks: Some(150),
            queries: Some((3000, 3.5)),
        };
        let usage = before.until(after);
        assert_eq!(usage.cpu, Some(Duration::from_secs(3)));
        assert_eq!(usage.store_cpu, Some(Duration::from_secs(1)));
        assert_eq!(usage.queries, Some(2000));
        assert_eq!(usage.query_time, Some(Duration::from_millis(2500)));
        let given_store = Reading {
            store_ticks: None,
            ..before
        }
        .until(Reading {
            store_ticks: None,
            ..after
        });
        assert_eq!(given_store.cpu, Some(Duration::from_secs(2)));
        assert_eq!(given_store.store_cpu, None);
        let unreadable = before.until(Reading {
            nodes_ticks: None,
            ..after
        });
        assert_eq!(unreadable.cpu, None);
    }
}
