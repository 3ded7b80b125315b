//! Master data over HTTP: taxonomies and features of Products and
//! Locations, Products, Locations, legacy Promotions, messages, every
//! refusal and cross-reference rule; campaigns reading the catalogue on
//! carts that send only codes, running where their Locations say, and
//! files naming features the Company lacks; catalogue imports.

mod common;
#[path = "master_data/engine.rs"]
mod engine;
#[path = "master_data/import.rs"]
mod import;
#[path = "master_data/locations.rs"]
mod locations;
#[path = "master_data/messages.rs"]
mod messages;
#[path = "master_data/places.rs"]
mod places;
#[path = "master_data/products.rs"]
mod products;
#[path = "master_data/promotions.rs"]
mod promotions;
#[path = "master_data/taxonomies.rs"]
mod taxonomies;

use common::TestServer;
use loyalty::resources::companies::model::CreatedApiKey;
use serde_json::{Value, json};

/// A server whose `demo` Company has the campaign `files`, its clock at `at`.
async fn server_with(files: &[(&str, &str)], at: &str) -> (TestServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let company = dir.path().join("demo");
    std::fs::create_dir(&company).unwrap();
    for (name, text) in files {
        std::fs::write(company.join(name), text).unwrap();
    }
    let mut settings = loyalty::server::ServerSettings::for_store("mem://", common::OPERATOR_TOKEN);
    settings.campaigns = dir.path().to_path_buf();
    settings.clock = common::manual_clock(at);
    (TestServer::start_with(settings).await, dir)
}

/// Checks an error answer: its status, its code and a message.
fn assert_error(answer: &(u16, Value), status: u16, code: &str) {
    assert_eq!(
        (answer.0, answer.1["code"].as_str()),
        (status, Some(code)),
        "{}",
        answer.1
    );
    assert!(answer.1["error"].is_string(), "{}", answer.1);
}

/// Sends `method path` with `body`, expecting 200; the answer.
async fn ok(
    server: &TestServer,
    key: &CreatedApiKey,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Value {
    let (status, answer) = server.call_as(method, path, key, body).await;
    assert_eq!(status, 200, "{method} {path}: {answer}");
    answer
}

/// A department taxonomy with dairy, cheese under dairy, bakery, and
/// tobacco that no discount may take money off.
async fn departments(server: &TestServer, key: &CreatedApiKey) {
    ok(
        server,
        key,
        "POST",
        "/taxonomies",
        Some(json!({"slug": "department", "name": "Department"})),
    )
    .await;
    for feature in [
        json!({"slug": "dairy", "name": "Dairy"}),
        json!({"slug": "cheese", "name": "Cheese", "parent": "dairy"}),
        json!({"slug": "bakery", "name": "Bakery"}),
        json!({"slug": "tobacco", "name": "Tobacco", "discountable": false}),
    ] {
        ok(
            server,
            key,
            "POST",
            "/taxonomies/department/features",
            Some(feature),
        )
        .await;
    }
}
