//! `loyalty campaigns explain`: offline, what `?explain=true` answers.

use super::*;

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
