//! The service foundation over real HTTP on loopback, with a real SurrealDB:
//! authentication, error bodies, /check, the OpenAPI document, the back-office
//! and its CLI, and durability across restarts.

#[path = "foundation/authentication.rs"]
mod authentication;
#[path = "foundation/back_office_cli.rs"]
mod back_office_cli;
#[path = "foundation/blank_ids.rs"]
mod blank_ids;
#[path = "foundation/broken_restart.rs"]
mod broken_restart;
mod common;
#[path = "foundation/crash_runs.rs"]
mod crash_runs;
#[path = "foundation/crashes.rs"]
mod crashes;
#[path = "foundation/docs.rs"]
mod docs;
#[path = "foundation/durability.rs"]
mod durability;
#[path = "foundation/error_bodies.rs"]
mod error_bodies;
#[path = "foundation/first_start.rs"]
mod first_start;
#[path = "foundation/full_disk.rs"]
mod full_disk;
#[path = "foundation/hostile_input.rs"]
mod hostile_input;
#[path = "foundation/idempotency.rs"]
mod idempotency;
#[path = "foundation/logging.rs"]
mod logging;
#[path = "foundation/observability.rs"]
mod observability;
#[path = "foundation/openapi.rs"]
mod openapi;
#[path = "foundation/page.rs"]
mod page;
#[path = "foundation/rate_limits.rs"]
mod rate_limits;
#[path = "foundation/tenants.rs"]
mod tenants;
#[path = "foundation/torn_log.rs"]
mod torn_log;
#[path = "foundation/torture.rs"]
mod torture;

use common::{OPERATOR_TOKEN, TestServer, all_at_once, loyalty, operator_json, read};
use loyalty::resources::companies::keys::NewKey;
use loyalty::resources::companies::model::Environment;
use loyalty::resources::companies::service::NewCompany;
use loyalty::server::ServerSettings;
use serde_json::{Value, json};

const FORBIDDEN: &str = r#"{"message":"Forbidden"}"#;

/// Sends GET /check with the given headers and returns status and raw body.
async fn check_with(server: &TestServer, headers: &[(&str, &str)]) -> (u16, String) {
    let mut request = server.http.get(server.url("/check"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}
