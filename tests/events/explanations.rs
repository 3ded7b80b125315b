//! Explanations name every failing part, and a simulation may ask about
//! another day.

use super::*;

#[tokio::test]
async fn explain_names_every_failing_part_and_a_simulation_may_ask_another_day() {
    let segments = "tiers:\n  - id: silver\n    name: Silver\n    condition: history.spent_last_days(365) >= 500.0\n  - id: gold\n    name: Gold\n    condition: history.spent_last_days(365) >= 1500.0\n";
    let sundays = "id: 40\nkind: points\nname: Gold members, Sundays\non: cart\ntiers: [gold]\nrecurrence_type: weekly\nrecurrence_days: [sunday]\nwhen: cart.total > 100.0\npoints: { fixed: 50 }\n";
    // A Friday.
    let (server, _dir) = TestServer::start_with_campaigns(
        &[("segments.yaml", segments), ("sundays.yaml", sundays)],
        "2026-11-27T10:00:00Z",
        None,
    )
    .await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "silver@example.com").await;
    // 600.00 spent this year: silver, not gold.
    let (status, bought) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(json!({
                "customer_id": customer,
                "code": "EARLIER-1",
                "lines": [{"product_code": "TV", "quantity": 1, "price": 600.0}]
            })),
        )
        .await;
    assert_eq!(status, 200, "{bought}");
    let cart = json!({
        "customer_id": customer,
        "code": "FRIDAY-1",
        "lines": [{"product_code": "PASTRY", "quantity": 1, "price": 20.0}]
    });
    let explained = |path: &'static str| {
        let cart = cart.clone();
        let server = &server;
        let key = &key;
        async move {
            let (status, answer) = server.call_as("POST", path, key, Some(cart)).await;
            assert_eq!(status, 200, "{answer}");
            answer["explanations"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["rule_id"] == 40)
                .cloned()
                .expect("campaign 40 explained")
        }
    };
    // On the Friday: the day, the tier and the condition, each at its line.
    let friday = explained("/carts/simulate?explain=true").await;
    let reason = friday["reason"].as_str().unwrap();
    assert!(
        reason.contains("runs only on sunday, and it is friday"),
        "{friday}"
    );
    assert!(
        reason.contains("for tiers gold only, and the Customer is silver"),
        "{friday}"
    );
    assert!(reason.contains("`cart.total` is 20.0"), "{friday}");
    // The tier with the figure its condition read and the threshold.
    assert!(
        reason.contains("gold: `history.spent_last_days(365) >= 1500.0` was false: `history.spent_last_days(365)` is 600"),
        "{friday}"
    );
    let places: Vec<&str> = friday["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part["at"].as_str().unwrap())
        .collect();
    assert_eq!(places.len(), 4, "{friday}");
    assert!(
        places[0].ends_with("sundays.yaml:7"),
        "recurrence_days: {friday}"
    );
    assert!(places[1].ends_with("sundays.yaml:5"), "tiers: {friday}");
    assert!(
        places[2].contains("segments.yaml:7:"),
        "gold's condition: {friday}"
    );
    assert!(places[3].contains("sundays.yaml:8:"), "when: {friday}");
    assert_eq!(friday["parts"][1]["values"]["tier"], "silver", "{friday}");

    // What if it were Sunday: only the tier and the condition are left.
    let sunday = explained("/carts/simulate?explain=true&at=2026-11-29T10:00:00Z").await;
    let reason = sunday["reason"].as_str().unwrap();
    assert!(!reason.contains("runs only on"), "{sunday}");
    assert!(reason.contains("for tiers gold only"), "{sunday}");

    // A recorded cart is evaluated when it is received, never at another time.
    let (status, refused) = server
        .call_as(
            "POST",
            "/carts/realtime?at=2026-11-29T10:00:00Z",
            &key,
            Some(cart.clone()),
        )
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (400, Some("invalid_request")),
        "{refused}"
    );
    let (status, refused) = server
        .call_as(
            "POST",
            "/carts/simulate?at=sunday",
            &key,
            Some(cart.clone()),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
}
