//! Points campaigns created, updated and evaluated through the API, and
//! kept across a restart.

use super::*;

#[tokio::test]
async fn points_campaigns_are_created_updated_and_evaluated_through_the_api() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let (status, listed) = server.get_as("/points", &key).await;
    assert_eq!(status, 200, "{listed}");
    let files: Vec<(i64, String)> = listed["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_i64().unwrap(),
                c["source"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(files.iter().all(|(_, source)| source == "file"));
    assert!(files.iter().any(|(id, _)| *id == 201));

    let spec = json!({
        "name": {"en": "Review bonus", "es": "Bonus por reseña"},
        "on": {"custom_event": "review_written"},
        "points": {"fixed": 30, "expires_after_days": 90}
    });
    let (status, created) = post(&server, &key, "/points", spec).await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(
        (&created["id"], &created["source"]),
        (&json!(1_000_000), &json!("api"))
    );
    assert_eq!(
        created["points"],
        json!({"fixed": 30, "expires_after_days": 90})
    );

    let id = customer(&server, &key, "reviewer@example.com").await;
    let (status, answer) = post(
        &server,
        &key,
        "/custom_events",
        json!({"customer_id": id, "type": "review_written"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["effects"][0]["rule_id"], 1_000_000);
    assert_eq!(answer["effects"][0]["points"], 30);
    let (_, page) = server
        .get_as(&format!("/points/transactions?customer_id={id}"), &key)
        .await;
    assert!(page["transactions"][0]["expires_at"].is_string(), "{page}");

    let (status, updated) = server
        .call_as(
            "PATCH",
            "/points/1000000",
            &key,
            Some(json!({"points": {"fixed": 40}})),
        )
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["points"], json!({"fixed": 40}));
    assert_eq!(updated["name"], "Review bonus", "fields not sent are kept");
    let (_, answer) = post(
        &server,
        &key,
        "/custom_events",
        json!({"customer_id": id, "type": "review_written"}),
    )
    .await;
    assert_eq!(
        answer["effects"][0]["points"], 40,
        "the update applies at once"
    );
    let (status, fetched) = server.get_as("/points/1000000", &key).await;
    assert_eq!((status, &fetched["points"]["fixed"]), (200, &json!(40)));

    let (status, second) = post(
        &server,
        &key,
        "/points",
        json!({"name": "Prize points", "points": {"fixed": 5}}),
    )
    .await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["id"], 1_000_001);
    assert!(second.get("on").is_none(), "no `on`: given only as a prize");

    for (method, path, body, status, code) in [
        (
            "POST",
            "/points",
            json!({"points": {"fixed": 5}}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/points",
            json!({"name": "X", "points": {"fixed": 5}, "on": "sometimes"}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/points",
            json!({"name": "X", "points": {"fixed": 5}, "on": "cart", "when": "basket.total > 1.0"}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/points",
            json!({"name": "X", "points": {"fixed": 0}}),
            400,
            "invalid_request",
        ),
        (
            "POST",
            "/points",
            json!({"name": "X", "points": {"fixed": 5}, "colour": "red"}),
            400,
            "invalid_request",
        ),
        (
            "PATCH",
            "/points/201",
            json!({"active": false}),
            403,
            "forbidden_request",
        ),
        (
            "PATCH",
            "/points/1999999",
            json!({"active": false}),
            404,
            "points_campaign_not_found",
        ),
        (
            "PATCH",
            "/points/1000000",
            json!({"points": {"fixed": -3}}),
            400,
            "invalid_request",
        ),
    ] {
        let (got, answer) = server.call_as(method, path, &key, Some(body.clone())).await;
        assert_eq!(
            (got, answer["code"].as_str()),
            (status, Some(code)),
            "{method} {path} {body}: {answer}"
        );
    }
    let (status, body) = server.get_as("/points/abc", &key).await;
    assert_error(status, &body, 404, "points_campaign_not_found");
    let (_, listed) = server.get_as("/points", &key).await;
    assert_eq!(
        listed["points"].as_array().unwrap().len(),
        files.len() + 2,
        "refused requests created nothing"
    );
}

#[tokio::test]
async fn points_campaigns_created_through_the_api_survive_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let store = format!("surrealkv://{}", data.path().join("store").display());
    let settings = || loyalty::server::ServerSettings::for_store(&store, common::OPERATOR_TOKEN);
    let server = TestServer::start_with(settings()).await;
    let key = server.bootstrap_key();
    let spec = json!({"name": "Signup", "on": {"trigger": "signup"}, "points": {"fixed": 15}});
    let (status, created) = post(&server, &key, "/points", spec).await;
    assert_eq!(status, 200, "{created}");
    let id = customer(&server, &key, "durable@example.com").await;
    server.running.shutdown().await.unwrap();

    let restarted = TestServer::start_with(settings()).await;
    let (status, fetched) = restarted.get_as("/points/1000000", &key).await;
    assert_eq!(
        (status, &fetched["name"]),
        (200, &json!("Signup")),
        "{fetched}"
    );
    let (status, answer) = post(
        &restarted,
        &key,
        "/trigger",
        json!({"customer_id": id, "type": "signup"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["effects"][0]["points"], 15);
    let (status, next) = post(
        &restarted,
        &key,
        "/points",
        json!({"name": "Next", "points": {"fixed": 1}}),
    )
    .await;
    assert_eq!(
        (status, &next["id"]),
        (200, &json!(1_000_001)),
        "ids continue after a restart"
    );
    restarted.running.shutdown().await.unwrap();
}
