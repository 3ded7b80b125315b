//! Every scenario under `scenarios/` passes against the real service, and
//! each scenario's answers are snapshotted, so a change in effects shows up
//! as a reviewable diff; the authoring tools (`campaigns explain`, the
//! campaign files' JSON Schema in [`schema`]) answer as documented.

mod common;
#[path = "scenarios/customer_files.rs"]
mod customer_files;
#[path = "scenarios/edits.rs"]
mod edits;
#[path = "scenarios/expectations.rs"]
mod expectations;
#[path = "scenarios/explain.rs"]
mod explain;
#[path = "scenarios/reports.rs"]
mod reports;
#[path = "scenarios/schema.rs"]
mod schema;
#[path = "scenarios/shipped.rs"]
mod shipped;

use std::path::{Path, PathBuf};

use loyalty::scenarios::format::Scenario;
use loyalty::scenarios::run::run_scenario;
