//! `surreal`: the official SurrealDB server, built from the `surrealdb-server`
//! crate at the version of the client `loyalty` uses, with the official
//! command line (`surreal start --user root --pass root --bind
//! 127.0.0.1:8000 memory`, or `surrealkv://PATH`). Several `loyalty serve --db
//! ws://HOST:PORT` nodes share one (docs/deploy.md); the multi-node tests
//! start it on a loopback port (`tests/cluster.rs`).
//!
//! Built only with the `surreal-server` feature:
//! `cargo build --release --features surreal-server --bin surreal`.

// The optimizer's layout of SurrealDB's deepest async functions needs more
// than the default depth in a release build, as in the official binary.
#![recursion_limit = "256"]

use std::process::ExitCode;

use surrealdb_server::core::CommunityComposer;

fn main() -> ExitCode {
    surrealdb_server::init(CommunityComposer())
}
