//! A Customer's carts, Custom Events and ledger entries, recorded at once,
//! list page by page in their documented order: every record once, none
//! skipped where two were made in the same millisecond.

use crate::common::{TestServer, all_at_once};
use crate::{member, morning_cart};
use serde_json::{Value, json};

fn ids(items: &[Value], field: &str) -> Vec<String> {
    items
        .iter()
        .map(|item| item[field].as_str().expect("an id").to_string())
        .collect()
}

#[tokio::test]
async fn a_customers_carts_events_and_ledger_list_in_their_order_page_by_page() {
    let server = TestServer::start_at("2026-05-04T09:30:00Z").await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "lister@example.com").await;
    let other = member(&server, &key, "someone-else@example.com").await;
    // Codes sent out of order, all at once: carts list in code order.
    let codes = [
        "L-07", "L-02", "L-05", "L-01", "L-08", "L-04", "L-06", "L-03",
    ];
    let carts = codes
        .iter()
        .map(|code| {
            server
                .request_as("POST", "/carts/realtime", &key)
                .json(&morning_cart(&customer, code))
        })
        .chain([server
            .request_as("POST", "/carts/realtime", &key)
            .json(&morning_cart(&other, "L-00"))])
        .collect();
    let events = (0..8)
        .map(|n| {
            server
                .request_as("POST", "/custom_events", &key)
                .json(&json!({"customer_id": customer, "type": "visit", "data": {"n": n}}))
        })
        .collect();
    let mut answers = all_at_once(carts).await;
    answers.extend(all_at_once(events).await);
    for (status, answer) in &answers {
        assert_eq!(*status, 200, "{answer}");
    }
    let event_ids: Vec<String> = answers[codes.len() + 1..]
        .iter()
        .map(|(_, answer)| answer["custom_event"]["id"].as_str().unwrap().to_string())
        .collect();

    let listed = server
        .every_page(&key, &format!("/carts?customer_id={customer}"), "carts", 3)
        .await;
    let mut expected: Vec<String> = codes.iter().map(ToString::to_string).collect();
    expected.sort();
    assert_eq!(ids(&listed, "id"), expected);

    let listed = server
        .every_page(
            &key,
            &format!("/custom_events?customer_id={customer}"),
            "custom_events",
            3,
        )
        .await;
    let listed = ids(&listed, "id");
    let mut expected = event_ids.clone();
    expected.sort();
    assert_eq!(listed, expected, "oldest first, each once");

    // Newest first, each entry once, the entries of one cart together.
    let whole = server
        .every_page(
            &key,
            &format!("/points/transactions?customer_id={customer}"),
            "transactions",
            100,
        )
        .await;
    assert!(!whole.is_empty());
    let paged = server
        .every_page(
            &key,
            &format!("/points/transactions?customer_id={customer}"),
            "transactions",
            2,
        )
        .await;
    assert_eq!(paged, whole);
    let entry_ids = ids(&whole, "id");
    assert!(
        entry_ids.windows(2).all(|pair| pair[0] > pair[1]),
        "{entry_ids:?}"
    );
    let carts_in_order: Vec<&str> = whole
        .iter()
        .filter_map(|entry| entry["cart_id"].as_str())
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    for cart in carts_in_order {
        if seen.last() != Some(&cart) {
            assert!(!seen.contains(&cart), "{cart}'s entries apart");
            seen.push(cart);
        }
    }
    assert_eq!(seen.len(), codes.len(), "every cart earned");
    assert!(
        whole
            .iter()
            .all(|entry| entry["customer_id"] == customer.as_str())
    );
}
