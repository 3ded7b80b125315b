//! Calculated attributes, tiers and audiences of a Customer.

use super::*;
use loyalty::server::ServerSettings;

#[tokio::test]
async fn the_demo_segments_evaluate_for_a_customer() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = create(
        &server,
        &key,
        json!({"email": "ana@example.com", "consents": {"marketing_email": true}}),
    )
    .await;
    let ana_id = ana["id"].as_str().unwrap();
    for n in 0..2 {
        let kid = create(
            &server,
            &key,
            json!({"email": format!("kid{n}@example.com")}),
        )
        .await;
        let (status, _) = server
            .call_as(
                "POST",
                "/associations",
                &key,
                Some(json!({"customer_id": ana_id, "associate_id": kid["id"], "type": "family"})),
            )
            .await;
        assert_eq!(status, 200);
    }

    let (status, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{ana_id}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{attributes}");
    assert_eq!(attributes["lifetime_spend"], 0.0);
    assert_eq!(attributes["cart_count"], 0);
    assert!(attributes["last_purchase_date"].is_null());
    assert_eq!(attributes["points_balance"], 0);
    assert_eq!(
        attributes["custom"],
        json!({"average_cart": 0.0, "household_size": 3})
    );

    let (status, tiers) = server
        .call_as("GET", &format!("/customers/{ana_id}/tiers"), &key, None)
        .await;
    assert_eq!(status, 200, "{tiers}");
    assert_eq!(tiers["current_tier"], "member");
    let reached: Vec<bool> = tiers["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["member"].as_bool().unwrap())
        .collect();
    assert_eq!(reached, [true, false, false]);

    let (status, audiences) = server
        .call_as("GET", &format!("/customers/{ana_id}/audiences"), &key, None)
        .await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = audiences["audiences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["marketing_email", "families"]);

    let (status, validation) = server
        .call_as(
            "GET",
            &format!("/customers/{ana_id}/audience_validation?audience=families"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(validation["member"], true);
    let kid_id = server
        .call_as(
            "GET",
            "/customers/kid0@example.com?search_by=email",
            &key,
            None,
        )
        .await
        .1["id"]
        .clone();
    let (_, kid_validation) = server
        .call_as(
            "GET",
            &format!(
                "/customers/{}/audience_validation?audience=families",
                kid_id.as_str().unwrap()
            ),
            &key,
            None,
        )
        .await;
    assert_eq!(kid_validation["member"], false);

    let (status, body) = server
        .call_as(
            "GET",
            &format!("/customers/{ana_id}/audience_validation?audience=nope"),
            &key,
            None,
        )
        .await;
    assert_error(status, &body, 404, "audience_not_found");
    let (status, body) = server
        .call_as("GET", "/customers/cus_nope/tiers", &key, None)
        .await;
    assert_error(status, &body, 404, "customer_not_found");
    let acme = server.company_with_key("acme").await;
    let (status, body) = server
        .call_as(
            "GET",
            &format!("/customers/{ana_id}/attributes"),
            &acme,
            None,
        )
        .await;
    assert_error(status, &body, 404, "customer_not_found");
}

/// Polls `check` until it holds, for at most ten seconds.
async fn eventually<F, Fut>(mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..100 {
        if check().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("condition not reached within ten seconds");
}

#[tokio::test]
async fn edited_rules_apply_without_a_restart_and_broken_edits_are_not_applied() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("demo")).unwrap();
    let file = dir.path().join("demo").join("segments.yaml");
    std::fs::write(
        &file,
        "audiences:\n  - id: spain\n    name: Spain\n    condition: customer.country == \"ES\"\n",
    )
    .unwrap();
    let mut settings = ServerSettings::for_store("mem://", common::OPERATOR_TOKEN);
    settings.campaigns = dir.path().to_path_buf();
    let server = TestServer::start_with(settings).await;
    let key = server.bootstrap_key();
    let customer = create(&server, &key, json!({"country": "FR"})).await;
    let path = format!("/customers/{}/audiences", customer["id"].as_str().unwrap());
    let (_, before) = server.call_as("GET", &path, &key, None).await;
    assert_eq!(before["audiences"], json!([]));

    std::fs::write(
        &file,
        "audiences:\n  - id: france\n    name: France\n    condition: customer.country == \"FR\"\n",
    )
    .unwrap();
    bump_mtime(&file, 2);
    eventually(|| async {
        let (_, now) = server.call_as("GET", &path, &key, None).await;
        now["audiences"].as_array().is_some_and(|a| a.len() == 1)
    })
    .await;

    // A broken edit is refused; the last good rules keep serving.
    std::fs::write(
        &file,
        "audiences:\n  - id: broken\n    name: Broken\n    condition: customer.country ==\n",
    )
    .unwrap();
    bump_mtime(&file, 4);
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let (_, still) = server.call_as("GET", &path, &key, None).await;
    assert_eq!(still["audiences"][0]["id"], "france");
}

fn bump_mtime(path: &std::path::Path, seconds: u64) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(seconds))
        .unwrap();
}

#[tokio::test]
async fn campaigns_check_reports_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("shop")).unwrap();
    std::fs::write(
        dir.path().join("shop").join("segments.yaml"),
        "tiers:\n  - id: gold\n    name: Gold\n    condition: lifetime_spend >= \n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .args(["campaigns", "check", "--campaigns"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("shop/segments.yaml:4:"), "{stderr}");

    let shipped = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .args(["campaigns", "check", "--campaigns", "campaigns"])
        .output()
        .unwrap();
    assert!(
        shipped.status.success(),
        "{}",
        String::from_utf8_lossy(&shipped.stderr)
    );
}
