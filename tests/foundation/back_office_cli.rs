//! The back office and its commands: Companies, keys and limits, through
//! the listener and on a stopped store.

use super::*;

/// The key printed by `keys create --json`, as the tests' helpers take it.
fn created_key(created: &Value) -> loyalty::resources::companies::model::CreatedApiKey {
    serde_json::from_value(created.clone()).expect("a created key")
}

#[tokio::test]
async fn operators_manage_companies_and_keys_while_the_server_runs() {
    let server = TestServer::start().await;

    let company = operator_json(
        &server,
        &[
            "companies",
            "create",
            "acme",
            "--environment",
            "production",
            "--language",
            "es",
            "--languages",
            "es,en",
        ],
    )
    .await;
    assert_eq!(company["slug"], "acme");
    assert_eq!(company["default_language"], "es");
    assert_eq!(company["languages"], json!(["es", "en"]));
    let companies = operator_json(&server, &["companies", "list"]).await;
    let slugs: Vec<&str> = companies["companies"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|c| c["slug"].as_str())
        .collect();
    assert_eq!(slugs, ["acme", "demo"]);

    let created = operator_json(
        &server,
        &[
            "keys",
            "create",
            "--company",
            "acme",
            "--description",
            "POS store 12",
        ],
    )
    .await;
    let key = created["key"].as_str().expect("key").to_string();
    let secret = created["secret"].as_str().expect("secret").to_string();
    assert_eq!(created["enabled"], true);
    assert_eq!(created["system"], false);
    let check = |expected: u16| {
        let request = server
            .http
            .get(server.url("/check"))
            .header("X-Api-Key", &key)
            .header("X-Api-Secret", &secret)
            .header("X-Api-Version", "1");
        async move {
            let status = request.send().await.expect("sent").status().as_u16();
            assert_eq!(status, expected);
        }
    };
    check(200).await;

    let listed = operator_json(&server, &["keys", "list", "--company", "acme"]).await;
    let keys = listed["keys"].as_array().expect("keys");
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0]["key"], key.as_str());
    assert!(keys[0].get("secret").is_none(), "secrets are never listed");
    assert!(
        keys[0].get("secret_digest").is_none(),
        "digests are never listed"
    );
    assert!(!listed.to_string().contains(&secret));

    let disabled = operator_json(&server, &["keys", "disable", &key]).await;
    assert_eq!(disabled["enabled"], false);
    check(403).await;
    let enabled = operator_json(&server, &["keys", "enable", &key]).await;
    assert_eq!(enabled["enabled"], true);
    check(200).await;

    let limited = operator_json(
        &server,
        &[
            "companies",
            "limits",
            "acme",
            "--critical",
            "120",
            "--moderate",
            "50",
            "--low",
            "20",
        ],
    )
    .await;
    assert_eq!(
        limited["rate_limits"],
        json!({"critical": 120, "moderate": 50, "low": 20})
    );
    let response = server
        .request_as("GET", "/check", &created_key(&created))
        .send()
        .await
        .expect("sent");
    assert_eq!(
        response
            .headers()
            .get("ratelimit-policy")
            .and_then(|v| v.to_str().ok()),
        Some("\"tier2\";q=50;w=1"),
        "the new limit applies to the next request"
    );

    let disabled_from_start = operator_json(
        &server,
        &[
            "keys",
            "create",
            "--company",
            "acme",
            "--description",
            "later",
            "--disabled",
        ],
    )
    .await;
    assert_eq!(disabled_from_start["enabled"], false);
}

#[tokio::test]
async fn system_keys_cannot_be_edited() {
    let server = TestServer::start().await;
    let system_key = server.bootstrap_key().key.key;
    let admin_url = server.admin_url();
    for action in ["disable", "enable"] {
        let (ok, stdout, stderr) = loyalty(&[
            "keys",
            action,
            &system_key,
            "--admin-url",
            &admin_url,
            "--admin-token",
            OPERATOR_TOKEN,
        ])
        .await;
        assert!(!ok, "{action} of a system key must fail");
        assert!(stdout.is_empty());
        assert!(stderr.contains("system key"), "clear message: {stderr}");
        assert!(stderr.contains("system_key_not_editable"), "{stderr}");
    }
    let listed = operator_json(&server, &["keys", "list"]).await;
    assert_eq!(listed["keys"][0]["system"], true);
    assert_eq!(
        listed["keys"][0]["enabled"], true,
        "the system key is unchanged"
    );
    assert_eq!(
        server.get_as("/check", &server.bootstrap_key()).await.0,
        200
    );
}

#[tokio::test]
async fn a_companys_currency_and_time_zone_are_set_and_changed() {
    let server = TestServer::start().await;
    let created = operator_json(
        &server,
        &[
            "companies",
            "create",
            "madrid",
            "--environment",
            "sandbox",
            "--time-zone",
            "Europe/Madrid",
        ],
    )
    .await;
    assert_eq!(created["currency"], "EUR");
    assert_eq!(created["minor_units"], 2);
    assert_eq!(created["time_zone"], "Europe/Madrid");

    // A new currency brings its minor unit, unless one is given.
    let yen = operator_json(
        &server,
        &["companies", "update", "madrid", "--currency", "JPY"],
    )
    .await;
    assert_eq!(
        (yen["currency"].clone(), yen["minor_units"].clone()),
        (json!("JPY"), json!(0))
    );
    assert_eq!(yen["time_zone"], "Europe/Madrid", "what is not given stays");
    let moved = operator_json(
        &server,
        &[
            "companies",
            "update",
            "madrid",
            "--time-zone",
            "Atlantic/Canary",
            "--minor-units",
            "1",
        ],
    )
    .await;
    assert_eq!(moved["time_zone"], "Atlantic/Canary");
    assert_eq!(moved["minor_units"], 1);
    assert_eq!(moved["currency"], "JPY");

    let demo = &operator_json(&server, &["companies", "list"]).await["companies"][0];
    assert_eq!(
        (demo["currency"].clone(), demo["time_zone"].clone()),
        (json!("EUR"), json!("UTC"))
    );
}

#[tokio::test]
async fn bad_operator_input_fails_clearly_and_changes_nothing() {
    let server = TestServer::start().await;
    let admin_url = server.admin_url();
    let remote = [
        "--admin-url",
        admin_url.as_str(),
        "--admin-token",
        OPERATOR_TOKEN,
    ];
    let attempts: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["keys", "create", "--company", "nope", "--description", "x"],
            "company_not_found",
        ),
        (vec!["keys", "disable", "lk_nope"], "api_key_not_found"),
        (
            vec!["companies", "create", "demo", "--environment", "sandbox"],
            "company_already_exists",
        ),
        (
            vec![
                "companies",
                "create",
                "bad slug",
                "--environment",
                "sandbox",
            ],
            "invalid_request",
        ),
        (
            vec![
                "companies",
                "create",
                "x",
                "--environment",
                "sandbox",
                "--language",
                "Spanish",
            ],
            "invalid_request",
        ),
        (
            vec![
                "companies",
                "create",
                "x",
                "--environment",
                "sandbox",
                "--time-zone",
                "Mars/Olympus",
            ],
            "invalid_request",
        ),
        (
            vec![
                "companies",
                "create",
                "x",
                "--environment",
                "sandbox",
                "--currency",
                "euro",
            ],
            "invalid_request",
        ),
        (
            vec!["companies", "update", "demo", "--minor-units", "9"],
            "invalid_request",
        ),
        (
            vec!["companies", "update", "nope", "--time-zone", "UTC"],
            "company_not_found",
        ),
    ];
    for (args, code) in attempts {
        let mut full = args.clone();
        full.extend(remote);
        let (ok, _, stderr) = loyalty(&full).await;
        assert!(!ok, "{args:?} must fail");
        assert!(stderr.contains(code), "{args:?}: {stderr}");
    }
    let (ok, _, stderr) = loyalty(&[
        "keys",
        "list",
        "--admin-url",
        &admin_url,
        "--admin-token",
        "wrong",
    ])
    .await;
    assert!(!ok);
    assert!(stderr.contains("operator_unauthorized"), "{stderr}");

    let companies = operator_json(&server, &["companies", "list"]).await;
    assert_eq!(companies["companies"].as_array().map(Vec::len), Some(1));
    let keys = operator_json(&server, &["keys", "list"]).await;
    assert_eq!(keys["keys"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn without_a_server_the_commands_open_the_store_directly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("surrealkv://{}", dir.path().join("store").display());
    // Nothing listens on this port: bind and drop to find a free one.
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let admin_url = format!("http://{}", free.local_addr().expect("addr"));
    drop(free);
    let offline = [
        "--db",
        db.as_str(),
        "--admin-url",
        admin_url.as_str(),
        "--json",
    ];

    let mut create_company = vec!["companies", "create", "shop", "--environment", "sandbox"];
    create_company.extend(offline);
    let (ok, _, stderr) = loyalty(&create_company).await;
    assert!(ok, "{stderr}");
    let mut create_key = vec![
        "keys",
        "create",
        "--company",
        "shop",
        "--description",
        "batch",
    ];
    create_key.extend(offline);
    let (ok, stdout, stderr) = loyalty(&create_key).await;
    assert!(ok, "{stderr}");
    let created: Value = serde_json::from_str(&stdout).expect("json");

    // The server then starts on that store and accepts the key.
    let server = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
    assert!(
        server.running.bootstrap.is_none(),
        "the store already had a Company"
    );
    let request = server
        .http
        .get(server.url("/check"))
        .header("X-Api-Key", created["key"].as_str().expect("key"))
        .header("X-Api-Secret", created["secret"].as_str().expect("secret"))
        .header("X-Api-Version", "1");
    let (status, body) = server.send(request).await;
    assert_eq!(status, 200);
    assert_eq!(body["company"], "shop");
    server.running.shutdown().await.expect("shutdown");
}
