//! Points and wallet across a merge and its undoing.

use super::*;

#[tokio::test]
async fn a_merge_moves_points_and_wallet_and_an_unmerge_gives_them_back() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let dup = customer(&server, &key, "dup@example.com").await;
    let main = customer(&server, &key, "main@example.com").await;
    credit(&server, &key, &dup, 40).await;
    let (status, _) = post(
        &server,
        &key,
        "/scores/trigger",
        json!({"customer_id": dup, "points": 300, "kind": "wallet"}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, merged) = post(
        &server,
        &key,
        "/customers/transfer",
        json!({"from_customer_id": dup, "to_customer_id": main}),
    )
    .await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(balances(&server, &key, &main).await, (40, 300));
    assert_eq!(balances(&server, &key, &dup).await, (0, 0));
    let (status, unmerged) = post(
        &server,
        &key,
        &format!("/customers/{dup}/unmerge"),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(balances(&server, &key, &dup).await, (40, 300));
    assert_eq!(balances(&server, &key, &main).await, (0, 0));
    assert_ledger_consistent(&server, &dup).await;
    assert_ledger_consistent(&server, &main).await;
}
