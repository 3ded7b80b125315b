//! Every scenario under `scenarios/` passes against the real service, and
//! each scenario's answers are snapshotted, so a change in effects shows up
//! as a reviewable diff; the authoring tools (`campaigns explain`, the
//! campaign files' JSON Schema in [`schema`]) answer as documented.

mod common;
#[path = "scenarios/customer_files.rs"]
mod customer_files;
#[path = "scenarios/expectations.rs"]
mod expectations;
#[path = "scenarios/schema.rs"]
mod schema;

use std::path::{Path, PathBuf};

use loyalty::scenarios::format::Scenario;
use loyalty::scenarios::run::run_scenario;

#[tokio::test]
async fn every_shipped_scenario_passes_and_its_answers_are_snapshotted() {
    let files = Scenario::files(&[PathBuf::from("scenarios")]);
    assert!(files.len() >= 4, "scenarios ship: {files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let scenario = Scenario::parse(&file, &text)
            .unwrap_or_else(|errors| panic!("{}: {errors:?}", file.display()));
        let report = run_scenario(&scenario, Path::new("campaigns"))
            .await
            .unwrap();
        if let Some(failure) = &report.failure {
            panic!(
                "{}:{}: step `{}`:\n{}",
                file.display(),
                failure.line,
                failure.step,
                failure.details()
            );
        }
        let answers = loyalty::scenarios::snapshot::answers(&report);
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_json_snapshot!(format!("scenario_{name}"), answers);
    }
}

#[test]
fn a_failing_scenario_names_its_step_and_line_and_exits_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.yaml");
    std::fs::write(
        &file,
        "name: Broken\nclock: 2026-05-04T09:30:00Z\ncustomers:\n  ana: { email: ana@example.com }\nsteps:\n  - name: expects a wrong balance\n    get: /customers/{{ana}}/points\n    expect:\n      body: { points: 5 }\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .args(["scenarios", "run"])
        .arg(&file)
        .env("LOYALTY_LOG", "error")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains("broken.yaml:6:") && shown.contains(".points is 0, not 5"),
        "{shown}"
    );
    assert!(shown.contains("0 passed, 1 failed"), "{shown}");
    // The summary names the failed expectation, not an error code.
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("1 scenario(s) failed: ") && said.contains(".points is 0, not 5"),
        "{said}"
    );
    assert!(!said.contains("invalid_request"), "{said}");
}

#[test]
fn a_scenario_without_a_snapshot_says_its_answers_were_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fresh.yaml");
    std::fs::write(
        &file,
        "name: Fresh\nclock: 2026-05-04T09:30:00Z\ncustomers:\n  ana: { email: ana@example.com }\nsteps:\n  - get: /customers/{{ana}}/points\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .args(["scenarios", "run"])
        .arg(&file)
        .arg("--snapshots")
        .arg(dir.path().join("no-snapshots"))
        .env("LOYALTY_LOG", "error")
        .output()
        .unwrap();
    assert!(output.status.success());
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains("its answers were not compared: there is no snapshot at"),
        "{shown}"
    );
    assert!(
        shown.contains("1 scenario(s) passed without their answers being compared"),
        "{shown}"
    );
}

/// Copies `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn an_author_sees_which_answer_a_campaign_edit_changed() {
    let dir = tempfile::tempdir().unwrap();
    let campaigns = dir.path().join("campaigns");
    let snapshots = dir.path().join("snapshots");
    copy_dir(Path::new("campaigns"), &campaigns);
    let run = |update: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"));
        command
            .args([
                "scenarios",
                "run",
                "scenarios/demo/coffee-mornings.yaml",
                "--campaigns",
            ])
            .arg(&campaigns)
            .arg("--snapshots")
            .arg(&snapshots)
            .env("LOYALTY_LOG", "error");
        if update {
            command.arg("--update");
        }
        command.output().unwrap()
    };
    assert!(run(true).status.success());
    assert!(
        run(false).status.success(),
        "unchanged campaigns, unchanged answers"
    );

    let file = campaigns.join("demo/campaigns/coffee-mornings.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("en: Coffee mornings", "en: Coffee hour"),
    )
    .unwrap();
    let output = run(false);
    assert!(!output.status.success());
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains("the answers changed")
            && shown
                .contains(".body.effects[0].rule_name is \"Coffee hour\", not \"Coffee mornings\""),
        "{shown}"
    );
    assert!(
        run(true).status.success(),
        "--update records the new answers"
    );
    assert!(run(false).status.success());
}

/// `loyalty campaigns explain` answers offline what `?explain=true` does:
/// the false part of the condition, where it is written and what it read.
#[tokio::test]
async fn campaigns_explain_names_the_false_part_of_a_file_offline() {
    use loyalty::cli::explain::{ExplainRequest, ExplainedEvent, explanation_of};
    let dir = tempfile::tempdir().unwrap();
    let cart = dir.path().join("cart.json");
    std::fs::write(
        &cart,
        r#"{"code": "T1", "lines": [{"product_code": "COFFEE", "quantity": 1, "price": 2.5}]}"#,
    )
    .unwrap();
    let request = |at: &str| ExplainRequest {
        file: PathBuf::from("campaigns/demo/campaigns/coffee-mornings.yaml"),
        campaigns: PathBuf::from("campaigns"),
        event: ExplainedEvent::Cart(cart.clone()),
        customer: None,
        at: Some(at.to_string()),
        time_zone: None,
        currency: None,
        json: true,
    };
    // A Monday afternoon: the hour decides.
    let (explanation, effects) = explanation_of(&request("2026-05-04T15:00:00Z"))
        .await
        .unwrap();
    assert!(effects.is_empty());
    assert_eq!(
        explanation["reason"],
        "condition is false: `hour < 12` was false: `hour` is 15"
    );
    assert_eq!(
        explanation["at"],
        "campaigns/demo/campaigns/coffee-mornings.yaml:8:55"
    );
    assert_eq!(explanation["parts"][0]["values"]["hour"], 15);
    // A Monday morning: the total does.
    let (explanation, _) = explanation_of(&request("2026-05-04T08:00:00Z"))
        .await
        .unwrap();
    assert_eq!(explanation["parts"][0]["part"], "cart.total >= 5.0");
    assert_eq!(explanation["parts"][0]["values"]["cart.total"], 2.5);
}

#[tokio::test]
async fn the_offline_explain_takes_the_companys_time_zone_and_answers_as_the_service() {
    let coffee = std::fs::read_to_string("campaigns/demo/campaigns/coffee-mornings.yaml").unwrap();
    // 10:30 UTC on a Monday is 12:30 in Madrid: past the coffee mornings' noon.
    let at = "2026-05-04T10:30:00Z";
    let (server, dir) = common::TestServer::start_with_campaigns(
        &[("coffee-mornings.yaml", coffee.as_str())],
        at,
        None,
    )
    .await;
    server
        .back_office()
        .await
        .set_locale(
            "demo",
            loyalty::resources::companies::service::LocaleChange {
                currency: None,
                minor_units: None,
                time_zone: Some("Europe/Madrid".into()),
            },
        )
        .await
        .unwrap();
    let key = server.bootstrap_key();
    let customer = server
        .create_customer(&key, serde_json::json!({"code": "MADRID"}))
        .await;
    let cart = serde_json::json!({"code": "M1", "lines": [{"product_code": "COFFEE", "quantity": 2, "price": 3.0}]});
    let mut body = cart.clone();
    body["customer_id"] = serde_json::json!(customer);
    let (status, answer) = server
        .call_as("POST", "/carts/simulate?explain=true", &key, Some(body))
        .await;
    assert_eq!(status, 200, "{answer}");
    let service = answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == 101)
        .cloned()
        .unwrap();
    let reason = service["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("`hour` is 12"), "{service}");

    let cart_file = dir.path().join("cart.json");
    std::fs::write(&cart_file, cart.to_string()).unwrap();
    let file = dir.path().join("demo").join("coffee-mornings.yaml");
    // The binary calls this test's own server: awaited, not blocking the
    // runtime the server runs on.
    let offline = |extra: Vec<String>| async {
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
            .args(["campaigns", "explain"])
            .arg(&file)
            .arg("--campaigns")
            .arg(dir.path())
            .arg("--cart")
            .arg(&cart_file)
            .args(["--at", at, "--json"])
            .args(extra)
            .env_remove("LOYALTY_ADMIN_URL")
            .env_remove("LOYALTY_ADMIN_TOKEN")
            .output()
            .await
            .expect("binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let printed: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
        printed["explanation"]["reason"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // The Company's time zone read from the server answering at --admin-url.
    let from_server = offline(vec![
        "--admin-url".into(),
        server.admin_url(),
        "--admin-token".into(),
        common::OPERATOR_TOKEN.into(),
    ])
    .await;
    assert_eq!(from_server, reason);
    // No server: --time-zone says it.
    let no_server = vec!["--admin-url".to_string(), "http://127.0.0.1:9".to_string()];
    let mut given = no_server.clone();
    given.extend(["--time-zone".to_string(), "Europe/Madrid".to_string()]);
    assert_eq!(offline(given).await, reason);
    // Neither: UTC, where 10:30 is still morning.
    assert!(!offline(no_server).await.contains("`hour`"));
}
