//! Carts listed by Customer and date page by page, and carried by a merge
//! and given back by its undoing.

use super::*;

#[tokio::test]
async fn carts_are_listed_by_customer_and_date_one_page_at_a_time() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = member(&server, &key, "ana@example.com").await;
    let bob = member(&server, &key, "bob@example.com").await;
    for n in 0..5 {
        let mut cart = morning_cart(&ana, &format!("A-{n}"));
        cart["date"] = json!(format!("2026-05-0{}T09:00:00Z", n + 1));
        server
            .call_as("POST", "/carts/realtime", &key, Some(cart))
            .await;
    }
    server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&bob, "B-0")),
        )
        .await;
    let (status, first) = server
        .call_as(
            "GET",
            &format!("/carts?customer_id={ana}&per_page=2"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["carts"].as_array().unwrap().len(), 2);
    let token = first["next_token_starts_after"].as_str().unwrap();
    let (_, second) = server
        .call_as(
            "GET",
            &format!("/carts?customer_id={ana}&per_page=2&starting_after={token}"),
            &key,
            None,
        )
        .await;
    assert_eq!(second["carts"][0]["id"], "A-2");
    let (_, dated) = server
        .call_as(
            "GET",
            "/carts?from=2026-05-02T00:00:00Z&to=2026-05-03T23:59:59Z",
            &key,
            None,
        )
        .await;
    let ids: Vec<&str> = dated["carts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["A-1", "A-2"]);
    let (status, body) = server.call_as("GET", "/carts/NOPE", &key, None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("cart_not_found"))
    );
    let acme = server.company_with_key("acme").await;
    let (status, _) = server.call_as("GET", "/carts/A-1", &acme, None).await;
    assert_eq!(status, 404, "another Company's cart");
}

#[tokio::test]
async fn a_merge_moves_carts_and_points_and_unmerge_gives_them_back() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let dup = member(&server, &key, "dup@example.com").await;
    let main = member(&server, &key, "main@example.com").await;
    server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&dup, "D-1")),
        )
        .await;
    server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&main, "M-1")),
        )
        .await;
    let attributes = |id: String| {
        let server = &server;
        let key = &key;
        async move {
            let (_, body) = server
                .call_as("GET", &format!("/customers/{id}/attributes"), key, None)
                .await;
            (
                body["points_balance"].as_i64().unwrap(),
                body["cart_count"].as_i64().unwrap(),
            )
        }
    };
    assert_eq!(attributes(dup.clone()).await, (27, 1));

    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": dup, "to_customer_id": main})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["merge"]["points"], 27);
    assert_eq!(merged["merge"]["carts"], json!(["D-1"]));
    assert_eq!(attributes(main.clone()).await, (54, 2));
    assert_eq!(attributes(dup.clone()).await, (0, 0));
    let (_, cart) = server.call_as("GET", "/carts/D-1", &key, None).await;
    assert_eq!(cart["customer_id"], main.as_str());

    let (status, unmerged) = server
        .call_as("POST", &format!("/customers/{dup}/unmerge"), &key, None)
        .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(unmerged["not_restored"], json!([]));
    assert_eq!(attributes(main.clone()).await, (27, 1));
    assert_eq!(attributes(dup.clone()).await, (27, 1));
    // The ledger is append-only: the moves are entries, the balance their sum.
    let ledger = server
        .running
        .services
        .store()
        .raw_documents("ledger_write", "demo")
        .await
        .unwrap();
    let entries = ledger_entries(&ledger);
    assert_eq!(entries.len(), 2 + 2 + 2);
    let sum: i64 = entries.iter().map(|e| e["points"].as_i64().unwrap()).sum();
    assert_eq!(sum, 54);
}
