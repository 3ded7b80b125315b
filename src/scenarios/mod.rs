//! Scenarios: given/when/then YAML files that prove a Company's campaigns
//! without writing Rust. Each runs against the real service (in-process, an
//! in-memory store, seeded draws, its own clock for event dates) over HTTP.
//!
//! - [`format`](mod@format): the file format, parsed with the line of every step.
//! - `harness`: the service a scenario runs against and its HTTP client.
//! - `customers`: the Customers created first, with balances, purchases and tier.
//! - [`matching`]: partial JSON matching of expectations.
//! - [`run`]: the runner and its report.
//! - `redact`: what changes from run to run, replaced in the answers.
//! - [`snapshot`]: the recorded answers `cargo test` and `--update` share.

mod customers;
pub mod format;
pub(crate) mod harness;
pub mod matching;
pub(crate) mod redact;
pub mod run;
pub mod snapshot;
