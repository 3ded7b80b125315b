//! Custom Events and triggers earning from the campaigns listening to
//! them, and bad events refused.

use super::*;

#[tokio::test]
async fn custom_events_and_triggers_earn_points_from_the_campaigns_listening_to_them() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "events@example.com").await;
    let (status, answer) = server
        .call_as(
            "POST",
            "/custom_events?explain=true",
            &key,
            Some(json!({"customer_id": customer, "type": "profile_completed", "data": {"fields": 12}})),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["effects"].as_array().unwrap().len(), 1);
    assert_eq!(answer["effects"][0]["rule_id"], 202);
    assert_eq!(answer["effects"][0]["points"], 50);
    assert_eq!(answer["custom_event"]["points_earned"], 50);
    assert_eq!(answer["custom_event"]["data"], json!({"fields": 12}));
    let applied: Vec<&Value> = answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["applied"] == true)
        .map(|e| &e["rule_id"])
        .collect();
    assert_eq!(
        applied,
        [&json!(202)],
        "only the welcome campaign listens to profile_completed"
    );
    let id = answer["custom_event"]["id"].as_str().unwrap();
    let (status, stored) = server
        .call_as("GET", &format!("/custom_events/{id}"), &key, None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(stored, answer["custom_event"]);

    let (status, triggered) = server
        .call_as(
            "POST",
            "/trigger",
            &key,
            Some(json!({"customer_id": customer, "type": "birthday"})),
        )
        .await;
    assert_eq!(status, 200, "{triggered}");
    assert_eq!(triggered["effects"][0]["points"], 100);
    assert!(
        triggered.get("custom_event").is_none(),
        "a trigger is not a stored event"
    );

    let (_, other) = server
        .call_as(
            "POST",
            "/custom_events",
            &key,
            Some(json!({"customer_id": customer, "type": "newsletter_opened"})),
        )
        .await;
    assert_eq!(other["effects"], json!([]));

    let (_, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(attributes["points_balance"], 150);
    let (_, listed) = server
        .call_as(
            "GET",
            &format!("/custom_events?customer_id={customer}&type=profile_completed"),
            &key,
            None,
        )
        .await;
    assert_eq!(listed["custom_events"].as_array().unwrap().len(), 1);
    let (_, all) = server
        .call_as(
            "GET",
            &format!("/custom_events?customer_id={customer}"),
            &key,
            None,
        )
        .await;
    assert_eq!(all["custom_events"].as_array().unwrap().len(), 2);
    // A Customer the Company does not have is named, as for carts.
    for path in [
        "/custom_events?customer_id=cus_nobody",
        "/carts?customer_id=cus_nobody",
    ] {
        let (status, refused) = server.call_as("GET", path, &key, None).await;
        assert_eq!(
            (status, refused["code"].as_str()),
            (404, Some("customer_not_found")),
            "{path}: {refused}"
        );
    }
}

#[tokio::test]
async fn bad_events_are_refused() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "bad-events@example.com").await;
    let cases = [
        (
            "/custom_events",
            json!({"customer_id": customer, "type": "bad type"}),
            400,
            "invalid_request",
        ),
        (
            "/custom_events",
            json!({"type": "x"}),
            400,
            "invalid_request",
        ),
        (
            "/trigger",
            json!({"customer_id": "cus_nope", "type": "birthday"}),
            404,
            "customer_not_found",
        ),
    ];
    for (path, body, expected, code) in cases {
        let (status, answer) = server.call_as("POST", path, &key, Some(body)).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (expected, Some(code)),
            "{answer}"
        );
    }
    let (status, answer) = server
        .call_as("GET", "/custom_events/evt_nope", &key, None)
        .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (404, Some("custom_event_not_found"))
    );
    let ledger = server
        .running
        .services
        .store()
        .raw_documents("ledger_write", "demo")
        .await
        .unwrap();
    assert!(ledger.is_empty());
}
