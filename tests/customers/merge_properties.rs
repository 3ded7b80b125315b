//! Property test: any history of cards, carts and associations merged and
//! unmerged leaves every Customer as a model of merges predicts.

use super::*;
use proptest::prelude::*;

/// A random Company history: customers with cards and carts, and links between them.
#[derive(Debug, Clone)]
struct History {
    cards: Vec<u8>,
    carts: Vec<u8>,
    links: Vec<(usize, usize, u8)>,
    from: usize,
    to: usize,
    new_target: bool,
}

fn history() -> impl Strategy<Value = History> {
    (3usize..6).prop_flat_map(|customers| {
        (
            proptest::collection::vec(0u8..3, customers),
            proptest::collection::vec(0u8..3, customers),
            proptest::collection::vec((0..customers, 0..customers, 0u8..3), 0..8),
            0..customers,
            0..customers,
            any::<bool>(),
        )
            .prop_map(|(cards, carts, links, from, to, new_target)| History {
                cards,
                carts,
                links,
                from,
                to,
                new_target,
            })
    })
}

async fn snapshot(server: &TestServer, key: &CreatedApiKey, ids: &[String]) -> Vec<Value> {
    let mut all = Vec::new();
    for id in ids {
        all.push(merges_footprint(server, key, id).await);
    }
    all
}

async fn merges_footprint(server: &TestServer, key: &CreatedApiKey, id: &str) -> Value {
    let (_, customer) = server
        .call_as("GET", &format!("/customers/{id}"), key, None)
        .await;
    let (_, associates) = server
        .call_as("GET", &format!("/customers/{id}/associates"), key, None)
        .await;
    let mut links: Vec<String> = associates["associates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| format!("{}:{}", a["customer"]["id"], a["type"]))
        .collect();
    links.sort();
    let mut cards: Vec<String> = customer["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["number"].as_str().unwrap().to_string())
        .collect();
    cards.sort();
    let (_, attributes) = server
        .call_as("GET", &format!("/customers/{id}/attributes"), key, None)
        .await;
    json!({
        "active": customer["active"], "merged_into": customer["merged_into"], "email": customer["email"],
        "cards": cards, "links": links,
        "points": attributes["points_balance"], "carts": attributes["cart_count"], "spent": attributes["lifetime_spend"],
    })
}

async fn merge_then_unmerge_restores(history: History) {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let mut ids = Vec::new();
    for (n, cards) in history.cards.iter().enumerate() {
        let cards: Vec<Value> = (0..*cards)
            .map(|c| json!({"number": format!("C{n}-{c}")}))
            .collect();
        let customer = create(
            &server,
            &key,
            json!({"email": format!("c{n}@example.com"), "cards": cards}),
        )
        .await;
        let id = customer["id"].as_str().unwrap().to_string();
        for c in 0..history.carts[n] {
            let cart = json!({
                "customer_id": id, "code": format!("K{n}-{c}"), "date": "2026-05-04T18:00:00Z",
                "lines": [{"product_code": "PASTRY", "quantity": c + 1, "price": 2.5}]
            });
            let (status, body) = server
                .call_as("POST", "/carts/realtime", &key, Some(cart))
                .await;
            assert_eq!(status, 200, "{body}");
        }
        ids.push(id);
    }
    let kinds = ["family", "friends", "company_account"];
    for (a, b, kind) in &history.links {
        if a != b {
            // Duplicates are refused with 409, which is part of the history too.
            server
                .call_as(
                    "POST",
                    "/associations",
                    &key,
                    Some(json!({"customer_id": ids[*a], "associate_id": ids[*b], "type": kinds[*kind as usize]})),
                )
                .await;
        }
    }
    let before = snapshot(&server, &key, &ids).await;
    let (status, merged) = if history.new_target {
        server
            .call_as(
                "POST",
                "/customers/transfer-new",
                &key,
                Some(json!({"from_customer_id": ids[history.from]})),
            )
            .await
    } else {
        server
            .call_as(
                "POST",
                "/customers/transfer",
                &key,
                Some(json!({"from_customer_id": ids[history.from], "to_customer_id": ids[history.to]})),
            )
            .await
    };
    if !history.new_target && history.from == history.to {
        assert_eq!(
            (status, merged["code"].as_str()),
            (422, Some("same_customer"))
        );
        return;
    }
    assert_eq!(status, 200, "{merged}");
    let mut all_ids = ids.clone();
    if history.new_target {
        all_ids.push(merged["target"]["id"].as_str().unwrap().to_string());
    }
    let during = snapshot(&server, &key, &all_ids).await;
    let cards_during: usize = during
        .iter()
        .map(|c| c["cards"].as_array().unwrap().len())
        .sum();
    let cards_before: usize = before
        .iter()
        .map(|c| c["cards"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        cards_during, cards_before,
        "a merge neither loses nor copies cards"
    );

    let (status, unmerged) = server
        .call_as(
            "POST",
            &format!("/customers/{}/unmerge", ids[history.from]),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(unmerged["not_restored"], json!([]));
    assert_eq!(snapshot(&server, &key, &ids).await, before);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn merge_then_unmerge_restores_every_customer(history in history()) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(merge_then_unmerge_restores(history));
    }
}
