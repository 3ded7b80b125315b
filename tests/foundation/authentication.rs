//! Authentication: the three headers, disabled keys, environments and the
//! constant answer to every refusal.

use super::*;

#[tokio::test]
async fn check_answers_with_the_company_of_the_key() {
    let server = TestServer::start().await;
    let (status, body) = server.get_as("/check", &server.bootstrap_key()).await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["company"], "demo");
    assert_eq!(body["environment"], "sandbox");
    assert_eq!(body["api_version"], "1");
    let time = body["time"].as_str().expect("time is a string");
    assert!(
        chrono::NaiveDateTime::parse_from_str(time, "%Y-%m-%dT%H:%M:%SZ").is_ok(),
        "time {time} is not YYYY-MM-DDThh:mm:ssZ"
    );
}

#[tokio::test]
async fn every_credential_failure_is_the_same_403() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let k = key.key.key.as_str();
    let s = key.secret.as_str();
    let other = server
        .back_office()
        .await
        .create_key(NewKey {
            company: "demo".into(),
            description: "other".into(),
            enabled: true,
        })
        .await
        .expect("key created");
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("no headers", vec![]),
        (
            "missing key",
            vec![("X-Api-Secret", s), ("X-Api-Version", "1")],
        ),
        (
            "missing secret",
            vec![("X-Api-Key", k), ("X-Api-Version", "1")],
        ),
        (
            "missing version",
            vec![("X-Api-Key", k), ("X-Api-Secret", s)],
        ),
        (
            "wrong secret",
            vec![
                ("X-Api-Key", k),
                ("X-Api-Secret", "ls_wrong"),
                ("X-Api-Version", "1"),
            ],
        ),
        (
            "empty secret",
            vec![
                ("X-Api-Key", k),
                ("X-Api-Secret", ""),
                ("X-Api-Version", "1"),
            ],
        ),
        (
            "unknown key",
            vec![
                ("X-Api-Key", "lk_unknown"),
                ("X-Api-Secret", s),
                ("X-Api-Version", "1"),
            ],
        ),
        // Sent twice, neither is trusted, whichever comes first.
        (
            "a valid and an invalid key",
            vec![
                ("X-Api-Key", k),
                ("X-Api-Key", "lk_unknown"),
                ("X-Api-Secret", s),
                ("X-Api-Version", "1"),
            ],
        ),
        (
            "the secret twice",
            vec![
                ("X-Api-Key", k),
                ("X-Api-Secret", s),
                ("X-Api-Secret", s),
                ("X-Api-Version", "1"),
            ],
        ),
        (
            "versions 1 and 2",
            vec![
                ("X-Api-Key", k),
                ("X-Api-Secret", s),
                ("X-Api-Version", "1"),
                ("X-Api-Version", "2"),
            ],
        ),
        (
            "secret of another key",
            vec![
                ("X-Api-Key", k),
                ("X-Api-Secret", other.secret.as_str()),
                ("X-Api-Version", "1"),
            ],
        ),
        (
            "version 2",
            vec![
                ("X-Api-Key", k),
                ("X-Api-Secret", s),
                ("X-Api-Version", "2"),
            ],
        ),
        (
            "version 1.0",
            vec![
                ("X-Api-Key", k),
                ("X-Api-Secret", s),
                ("X-Api-Version", "1.0"),
            ],
        ),
        (
            "empty version",
            vec![("X-Api-Key", k), ("X-Api-Secret", s), ("X-Api-Version", "")],
        ),
    ];
    for (case, headers) in cases {
        let (status, body) = check_with(&server, &headers).await;
        assert_eq!((status, body.as_str()), (403, FORBIDDEN), "case: {case}");
    }
    // The same headers, all correct, pass: the failures above are real.
    let (status, _) = check_with(
        &server,
        &[
            ("X-Api-Key", k),
            ("X-Api-Secret", s),
            ("X-Api-Version", "1"),
        ],
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_disabled_key_is_refused_until_enabled_again() {
    let server = TestServer::start().await;
    let back_office = server.back_office().await;
    let created = back_office
        .create_key(NewKey {
            company: "demo".into(),
            description: "till 4".into(),
            enabled: true,
        })
        .await
        .expect("key created");
    assert_eq!(server.get_as("/check", &created).await.0, 200);

    let disabled = back_office
        .set_key_enabled(&created.key.key, false)
        .await
        .expect("disabled");
    assert!(!disabled.enabled);
    let (status, body) = server.get_as("/check", &created).await;
    assert_eq!((status, body.to_string().as_str()), (403, FORBIDDEN));

    // The record is kept while disabled.
    let keys = back_office.keys(Some("demo")).await.expect("listed");
    assert!(keys.iter().any(|k| k.key == created.key.key && !k.enabled));

    back_office
        .set_key_enabled(&created.key.key, true)
        .await
        .expect("enabled");
    assert_eq!(server.get_as("/check", &created).await.0, 200);
}

#[tokio::test]
async fn a_key_created_disabled_grants_nothing() {
    let server = TestServer::start().await;
    let created = server
        .back_office()
        .await
        .create_key(NewKey {
            company: "demo".into(),
            description: "not yet".into(),
            enabled: false,
        })
        .await
        .expect("key created");
    assert_eq!(server.get_as("/check", &created).await.0, 403);
}

#[tokio::test]
async fn keys_act_only_for_their_own_company() {
    let server = TestServer::start().await;
    let back_office = server.back_office().await;
    back_office
        .create_company(NewCompany {
            slug: "acme".into(),
            environment: Environment::Production,
            language: Some("es".into()),
            languages: vec!["en".into()],
            rate_limits: None,
            locale: loyalty::resources::companies::service::LocaleChange::default(),
        })
        .await
        .expect("company created");
    let acme = back_office
        .create_key(NewKey {
            company: "acme".into(),
            description: "acme POS".into(),
            enabled: true,
        })
        .await
        .expect("key created");
    let (status, body) = server.get_as("/check", &acme).await;
    assert_eq!(status, 200);
    assert_eq!(body["company"], "acme");
    assert_eq!(body["environment"], "production");
    let (_, demo) = server.get_as("/check", &server.bootstrap_key()).await;
    assert_eq!(demo["company"], "demo");
}

#[tokio::test]
async fn a_production_deployment_refuses_sandbox_keys_and_the_reverse() {
    let mut settings = ServerSettings::for_store("mem://", OPERATOR_TOKEN);
    settings.serve_environment = Some(Environment::Production);
    let production = TestServer::start_with(settings).await;
    let back_office = production.back_office().await;
    back_office
        .create_company(NewCompany {
            slug: "acme".into(),
            environment: Environment::Production,
            language: None,
            languages: vec![],
            rate_limits: None,
            locale: loyalty::resources::companies::service::LocaleChange::default(),
        })
        .await
        .expect("company created");
    let acme = back_office
        .create_key(NewKey {
            company: "acme".into(),
            description: "acme".into(),
            enabled: true,
        })
        .await
        .expect("key created");
    let sandbox_key = production.bootstrap_key();
    let (status, body) = production.get_as("/check", &sandbox_key).await;
    assert_eq!((status, body.to_string().as_str()), (403, FORBIDDEN));
    assert_eq!(production.get_as("/check", &acme).await.0, 200);

    let mut settings = ServerSettings::for_store("mem://", OPERATOR_TOKEN);
    settings.serve_environment = Some(Environment::Sandbox);
    let sandbox = TestServer::start_with(settings).await;
    assert_eq!(
        sandbox.get_as("/check", &sandbox.bootstrap_key()).await.0,
        200
    );
}

#[tokio::test]
async fn many_concurrent_checks_all_authenticate() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let mut requests = Vec::new();
    for _ in 0..40 {
        let request = server.request_as("GET", "/check", &key);
        requests.push(request);
    }
    let mut answered = 0;
    for (status, body) in all_at_once(requests).await {
        assert_eq!(status, 200, "{body}");
        answered += 1;
    }
    assert_eq!(answered, 40);
}
