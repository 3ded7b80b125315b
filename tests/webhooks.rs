//! Webhooks and exports over real HTTP on loopback, with a real SurrealDB:
//! the endpoints operators set through the back office and `loyalty
//! webhooks`, their deliveries to a receiver on loopback, and the exports
//! of a Company's records and of one Customer's.

#[path = "webhooks/crash.rs"]
mod crash;
#[path = "webhooks/deliveries.rs"]
mod deliveries;
#[path = "webhooks/endpoints.rs"]
mod endpoints;
#[path = "webhooks/events.rs"]
mod events;
#[path = "webhooks/export.rs"]
mod export;
#[path = "webhooks/receiver.rs"]
mod receiver;
#[path = "webhooks/reported.rs"]
mod reported;

mod common;

use common::{OPERATOR_TOKEN, TestServer, operator_json};
use loyalty::server::ServerSettings;
use serde_json::{Value, json};

/// A server accepting receivers on loopback (`--webhooks-allow-private`).
async fn server_allowing_loopback() -> TestServer {
    let mut settings = ServerSettings::for_store("mem://", OPERATOR_TOKEN);
    settings.webhooks.allow_private = true;
    TestServer::start_with(settings).await
}

/// A server accepting receivers on loopback whose demo Company has the
/// campaign files `files` (name, YAML), its clock standing at `at`.
async fn server_with_campaigns(
    files: &[(&str, &str)],
    at: &str,
) -> (TestServer, tempfile::TempDir) {
    let (mut settings, dir) = common::settings_with_campaigns(files, at);
    settings.webhooks.allow_private = true;
    (TestServer::start_with(settings).await, dir)
}

/// Sends `method` `path` of the back office's API with `body`, as the
/// operator.
async fn back_office(
    server: &TestServer,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let url = format!("{}/api{path}", server.admin_url());
    let mut request = server.http.request(method, url).bearer_auth(OPERATOR_TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    server.send(request).await
}

/// An endpoint of the demo Company at `receiver` receiving `events`: its id
/// and signing secret.
async fn endpoint_at(
    server: &TestServer,
    receiver: &receiver::Receiver,
    events: Value,
) -> (String, String) {
    let body = json!({"url": receiver.url(), "events": events});
    let (status, created) = back_office(
        server,
        reqwest::Method::POST,
        "/companies/demo/webhooks",
        Some(body),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let text = |field: &str| created[field].as_str().unwrap().to_string();
    (text("id"), text("secret"))
}

/// The demo Company's endpoints, as the back office lists them.
async fn listed_endpoints(server: &TestServer) -> Value {
    let path = "/companies/demo/webhooks";
    let (status, listed) = back_office(server, reqwest::Method::GET, path, None).await;
    assert_eq!(status, 200, "{listed}");
    listed["endpoints"].clone()
}
