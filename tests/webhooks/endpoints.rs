//! Endpoints: created with a secret shown once, listed without it,
//! changed, given a new secret, deleted; bad input refused and nothing
//! changed.

use super::*;

#[tokio::test]
async fn operators_create_list_change_rotate_and_delete_endpoints() {
    let server = server_allowing_loopback().await;
    let created = operator_json(
        &server,
        &[
            "webhooks",
            "create",
            "--company",
            "demo",
            "--url",
            "http://127.0.0.1:9/hooks",
            "--events",
            "points.changed,prize.won",
            "--description",
            "CRM",
        ],
    )
    .await;
    let id = created["id"].as_str().expect("an id").to_string();
    assert!(id.starts_with("whe_"), "{created}");
    let secret = created["secret"].as_str().expect("the secret").to_string();
    assert!(
        secret.starts_with("whsec_") && secret.len() == 70,
        "{secret}"
    );
    assert_eq!(created["events"], json!(["points.changed", "prize.won"]));
    assert_eq!(created["enabled"], true);
    assert_eq!(created["description"], "CRM");

    // Listed, through the CLI and the API alike, without the secret.
    let listed = operator_json(&server, &["webhooks", "list", "--company", "demo"]).await;
    assert_eq!(listed["endpoints"], listed_endpoints(&server).await);
    let endpoints = listed["endpoints"].as_array().expect("a list");
    assert_eq!(endpoints.len(), 1);
    assert_eq!(endpoints[0]["id"], id.as_str());
    assert!(endpoints[0].get("secret").is_none(), "{listed}");
    assert!(!listed.to_string().contains(&secret));

    // Changed: what is given replaces, the rest stays.
    let changed = operator_json(
        &server,
        &[
            "webhooks",
            "update",
            &id,
            "--company",
            "demo",
            "--events",
            "*",
            "--enabled",
            "false",
        ],
    )
    .await;
    assert_eq!(changed["events"], json!(["*"]));
    assert_eq!(changed["enabled"], false);
    assert_eq!(changed["url"], "http://127.0.0.1:9/hooks");
    assert_eq!(changed["description"], "CRM");
    assert!(changed["updated_at"].as_str() >= created["updated_at"].as_str());

    // A new secret, shown once, unlike the old one.
    let rotated = operator_json(
        &server,
        &["webhooks", "rotate-secret", &id, "--company", "demo"],
    )
    .await;
    let new_secret = rotated["secret"].as_str().expect("a new secret");
    assert_ne!(new_secret, secret);
    assert_eq!(rotated["id"], id.as_str());

    let deleted = operator_json(&server, &["webhooks", "delete", &id, "--company", "demo"]).await;
    assert_eq!(deleted, json!({"id": id, "deleted": true}));
    let (status, gone) = back_office(
        &server,
        reqwest::Method::DELETE,
        &format!("/companies/demo/webhooks/{id}"),
        None,
    )
    .await;
    assert_eq!(
        (status, gone["code"].as_str()),
        (404, Some("webhook_endpoint_not_found"))
    );
    let listed = operator_json(&server, &["webhooks", "list", "--company", "demo"]).await;
    assert_eq!(listed["endpoints"], json!([]));
}

#[tokio::test]
async fn receivers_on_private_addresses_are_refused_without_the_flag() {
    let server = TestServer::start().await;
    for url in [
        "http://127.0.0.1:9/hooks",
        "http://localhost/hooks",
        "http://10.0.0.1/hooks",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hooks",
    ] {
        let body = json!({"url": url, "events": ["*"]});
        let (status, refused) = back_office(
            &server,
            reqwest::Method::POST,
            "/companies/demo/webhooks",
            Some(body),
        )
        .await;
        assert_eq!(status, 422, "{url}: {refused}");
        assert_eq!(refused["code"], "webhook_url_refused", "{url}");
    }
    assert_eq!(
        listed_endpoints(&server).await,
        json!([]),
        "nothing was stored"
    );
}

#[tokio::test]
async fn bad_endpoints_are_refused_with_their_code_and_change_nothing() {
    let server = server_allowing_loopback().await;
    let create = |company: &str, body: Value| {
        let path = format!("/companies/{company}/webhooks");
        let server = &server;
        async move { back_office(server, reqwest::Method::POST, &path, Some(body)).await }
    };
    let refusals = [
        (
            "demo",
            json!({"url": "http://127.0.0.1:9/", "events": ["points.changd"]}),
            400,
            "invalid_request",
        ),
        (
            "demo",
            json!({"url": "http://127.0.0.1:9/", "events": []}),
            400,
            "invalid_request",
        ),
        (
            "demo",
            json!({"url": "ftp://127.0.0.1/", "events": ["*"]}),
            422,
            "webhook_url_refused",
        ),
        (
            "demo",
            json!({"url": "http://127.0.0.1:9/", "events": ["*"], "secret": "mine"}),
            400,
            "invalid_request",
        ),
        (
            "nobody",
            json!({"url": "http://127.0.0.1:9/", "events": ["*"]}),
            404,
            "company_not_found",
        ),
    ];
    for (company, body, status, code) in refusals {
        let (got, answer) = create(company, body.clone()).await;
        assert_eq!(
            (got, answer["code"].as_str()),
            (status, Some(code)),
            "{body}: {answer}"
        );
    }
    assert_eq!(
        listed_endpoints(&server).await,
        json!([]),
        "nothing was stored"
    );

    // A change refused leaves the endpoint as it was.
    let (_, created) = create(
        "demo",
        json!({"url": "http://127.0.0.1:9/", "events": ["*"]}),
    )
    .await;
    let path = format!(
        "/companies/demo/webhooks/{}",
        created["id"].as_str().unwrap()
    );
    for change in [
        json!({"events": ["nope"]}),
        json!({"url": "gopher://127.0.0.1/"}),
        json!({"colour": "red"}),
    ] {
        let (status, _) =
            back_office(&server, reqwest::Method::PATCH, &path, Some(change.clone())).await;
        assert!(status == 400 || status == 422, "{change}: {status}");
    }
    let listed = listed_endpoints(&server).await;
    assert_eq!(listed[0]["events"], json!(["*"]));
    assert_eq!(listed[0]["url"], "http://127.0.0.1:9/");
    let (status, missing) = back_office(
        &server,
        reqwest::Method::PATCH,
        "/companies/demo/webhooks/whe_missing",
        Some(json!({"enabled": false})),
    )
    .await;
    assert_eq!(
        (status, missing["code"].as_str()),
        (404, Some("webhook_endpoint_not_found"))
    );
}
