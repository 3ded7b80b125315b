//! Several `loyalty` nodes on one real SurrealDB server: the official server
//! (`surreal`, built from the `surrealdb-server` crate by this repository's
//! `surreal-server` feature) on a loopback port, and nodes started as
//! `loyalty serve --db ws://...` is, each with its own caches, locks and
//! background tasks. Every guarantee one
//! node gives holds across them: the races of the single-node tests are run
//! again with their requests spread over two nodes; keys, campaigns and rate
//! limits are shared; background work is done once; a lost store fails
//! requests fast and comes back by itself; a cart's round trips to the
//! server are counted; each webhook event is delivered once.

#[path = "cluster/background.rs"]
mod background;
mod common;
#[path = "cluster/harness.rs"]
mod harness;
#[path = "cluster/outage.rs"]
mod outage;
#[path = "cluster/races.rs"]
mod races;
#[path = "cluster/rate_limits.rs"]
mod rate_limits;
#[path = "webhooks/receiver.rs"]
mod receiver;
#[path = "cluster/round_trips.rs"]
mod round_trips;
#[path = "cluster/sharing.rs"]
mod sharing;
#[path = "cluster/webhooks.rs"]
mod webhooks;
