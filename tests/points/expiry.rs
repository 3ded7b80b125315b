//! Points expiry: first in, first out, once.

use super::*;

#[tokio::test]
async fn points_expire_first_in_first_out_once() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "expiry@example.com").await;
    let soon =
        loyalty::common::time::Timestamp::from(chrono::Utc::now() + chrono::Duration::hours(1));
    let (status, body) = post(
        &server,
        &key,
        "/scores/trigger",
        json!({"customer_id": id, "points": 100, "expires_at": soon}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    credit(&server, &key, &id, 50).await;
    let (status, _) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 30}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, expiring) = server
        .get_as(&format!("/customers/{id}/points_expiring"), &key)
        .await;
    assert_eq!(status, 200, "{expiring}");
    assert_eq!(
        expiring["expiring"],
        json!([{"expires_at": soon, "points": 70}]),
        "the redemption used the oldest points first"
    );

    let later =
        loyalty::common::time::Timestamp::from(soon.as_datetime() + chrono::Duration::seconds(1));
    let services = &server.running.services;
    assert_eq!(services.expire_points(later).await.unwrap(), 1);
    assert_eq!(balances(&server, &key, &id).await.0, 50);
    assert_eq!(
        services.expire_points(later).await.unwrap(),
        0,
        "idempotent"
    );
    let (_, page) = server
        .get_as(&format!("/points/transactions?customer_id={id}"), &key)
        .await;
    assert_eq!(page["transactions"][0]["reason"], "expiry");
    assert_eq!(page["transactions"][0]["points"], -70);
    let (_, expiring) = server
        .get_as(&format!("/customers/{id}/points_expiring"), &key)
        .await;
    assert_eq!(expiring["expiring"], json!([]));
    assert_ledger_consistent(&server, &id).await;

    // A credit written after a run, expiring before that run's instant, is
    // still expired by the next run.
    let (status, _) = post(
        &server,
        &key,
        "/scores/trigger",
        json!({"customer_id": id, "points": 9, "expires_at": soon}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(services.expire_points(later).await.unwrap(), 1);
    assert_eq!(balances(&server, &key, &id).await.0, 50);

    let past = json!({"customer_id": id, "points": 5, "expires_at": "2020-01-01T00:00:00Z"});
    let (status, body) = post(&server, &key, "/scores/trigger", past).await;
    assert_error(status, &body, 400, "invalid_request");
}
