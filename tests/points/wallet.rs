//! The wallet: a balance of its own, and transactions listed page by page.

use super::*;

#[tokio::test]
async fn wallet_money_is_a_balance_of_its_own_and_transactions_page() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "wallet@example.com").await;
    let (status, body) = post(
        &server,
        &key,
        "/scores/trigger",
        json!({"customer_id": id, "points": 500, "kind": "wallet"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    credit(&server, &key, &id, 7).await;
    let (status, body) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 200, "kind": "wallet"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(balances(&server, &key, &id).await, (7, 300));
    let (status, refused) = post(
        &server,
        &key,
        "/points/redeem",
        json!({"customer_id": id, "points": 8}),
    )
    .await;
    assert_error(status, &refused, 422, "customer_not_enough_score");

    let (_, wallet) = server
        .get_as(
            &format!("/points/transactions?customer_id={id}&kind=wallet"),
            &key,
        )
        .await;
    assert_eq!(wallet["transactions"].as_array().unwrap().len(), 2);
    let (_, first) = server
        .get_as(
            &format!("/points/transactions?customer_id={id}&per_page=2"),
            &key,
        )
        .await;
    assert_eq!(first["transactions"].as_array().unwrap().len(), 2);
    let token = first["next_token_starts_after"].as_str().unwrap();
    let (_, rest) = server
        .get_as(
            &format!("/points/transactions?customer_id={id}&per_page=2&starting_after={token}"),
            &key,
        )
        .await;
    assert_eq!(rest["transactions"].as_array().unwrap().len(), 1);
    assert!(rest.get("next_token_starts_after").is_none());
    assert_eq!(
        rest["transactions"][0]["points"], 500,
        "the oldest comes last"
    );
    assert_ledger_consistent(&server, &id).await;
}
