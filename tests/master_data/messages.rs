//! Messages: campaigns' messages come with the events they apply to, in
//! the Customer's language; POST /messages/print gives their printable
//! text and records them, a `once` message printed once however many tills
//! print it at the same moment; every refusal changes nothing.

use super::*;

/// Points on carts over 5 with three messages; a message-only campaign
/// for app opens; a campaign that never applies.
const FILES: [(&str, &str); 3] = [
    (
        "thanks.yaml",
        "id: 401\nkind: points\nname: Thanks\non: cart\nwhen: cart.total > 5.0\npoints: { fixed: 1 }\nmessages:\n  - key: welcome\n    text: { en: Welcome to the club!, es: ¡Bienvenido al club! }\n    once: true\n  - key: big_spender\n    text: { en: Thank you for shopping with us today, es: Gracias por comprar hoy con nosotros }\n    when: cart.total >= 20.0\n    channel: receipt\n",
    ),
    (
        "app.yaml",
        "id: 402\nkind: message\nname: App\non: { custom_event: app_open }\nmessages:\n  - key: hello\n    text: Hello again\n    channel: app\n",
    ),
    (
        "never.yaml",
        "id: 403\nkind: points\nname: Never\non: cart\nwhen: cart.total > 1000.0\npoints: { fixed: 1 }\nmessages:\n  - key: rich\n    text: Wow\n",
    ),
];

/// A Customer speaking `language`; their id.
async fn customer(server: &TestServer, key: &CreatedApiKey, email: &str, language: &str) -> String {
    let created = ok(
        server,
        key,
        "POST",
        "/customers",
        Some(json!({"email": email, "language": language})),
    )
    .await;
    created["id"].as_str().unwrap().to_string()
}

/// Records a cart of `total` for `customer`; its answer.
async fn buy(
    server: &TestServer,
    key: &CreatedApiKey,
    customer: &str,
    code: &str,
    total: f64,
) -> Value {
    ok(
        server,
        key,
        "POST",
        "/carts/realtime",
        Some(json!({
            "customer_id": customer, "code": code,
            "lines": [{"product_code": "A", "quantity": 1, "price": total}]
        })),
    )
    .await
}

/// (id, text, language) of each message of `answer`.
fn messages(answer: &Value) -> Vec<(String, String, String)> {
    answer["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                m["text"].as_str().unwrap().to_string(),
                m["language"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn ids(answer: &Value) -> Vec<String> {
    messages(answer).into_iter().map(|(id, _, _)| id).collect()
}

#[tokio::test]
async fn events_show_their_campaigns_messages_until_a_once_one_is_printed() {
    let (server, _dir) = server_with(&FILES, "2026-11-23T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com", "es").await;
    let bob = customer(&server, &key, "bob@example.com", "fr").await;

    // Under 5 nothing applies; at 8 the welcome, in Ana's language.
    assert!(ids(&buy(&server, &key, &ana, "T1", 3.0).await).is_empty());
    let answer = buy(&server, &key, &ana, "T2", 8.0).await;
    assert_eq!(
        messages(&answer),
        [(
            "401:welcome".to_string(),
            "¡Bienvenido al club!".to_string(),
            "es".to_string()
        )]
    );
    assert_eq!(answer["messages"][0]["once"], true);
    assert_eq!(answer["messages"][0]["channel"], "any");
    // Bob's language has no text: the response language.
    let answer = buy(&server, &key, &bob, "T3", 25.0).await;
    assert_eq!(
        messages(&answer)
            .iter()
            .map(|(id, _, language)| (id.as_str(), language.as_str()))
            .collect::<Vec<_>>(),
        [("401:welcome", "en"), ("401:big_spender", "en")]
    );
    assert_eq!(answer["messages"][1]["channel"], "receipt");
    // A message-only campaign on a Custom Event.
    let event = ok(
        &server,
        &key,
        "POST",
        "/custom_events",
        Some(json!({"customer_id": ana, "type": "app_open"})),
    )
    .await;
    assert_eq!(
        messages(&event),
        [(
            "402:hello".to_string(),
            "Hello again".to_string(),
            "es".to_string()
        )]
    );

    // Printing: wrapped to 20 columns, in Ana's language, recorded.
    let printed = ok(
        &server,
        &key,
        "POST",
        "/messages/print",
        Some(json!({"customer_id": ana, "messages": ["401:big_spender", "401:welcome"], "width": 20})),
    )
    .await;
    assert_eq!(
        printed["text"],
        "Gracias por comprar\nhoy con nosotros\n\n¡Bienvenido al club!"
    );
    assert_eq!(printed["messages"][1]["printed"], true);
    // The welcome is no longer shown to Ana; the others still are.
    assert_eq!(
        ids(&buy(&server, &key, &ana, "T4", 25.0).await),
        ["401:big_spender"]
    );
    assert_eq!(
        ids(&buy(&server, &key, &bob, "T5", 8.0).await),
        ["401:welcome"]
    );
    // Printed again: the welcome is left out and says why.
    let again = ok(
        &server,
        &key,
        "POST",
        "/messages/print",
        Some(json!({"customer_id": ana, "messages": ["401:welcome", "401:big_spender"]})),
    )
    .await;
    assert_eq!(again["text"], "Gracias por comprar hoy con nosotros");
    assert_eq!(again["messages"][0]["printed"], false);
    assert_eq!(again["messages"][0]["reason"], "already_printed");
    assert_eq!(again["messages"][1]["printed"], true);
    // Without a Customer: the response language, nothing recorded.
    let anonymous = ok(
        &server,
        &key,
        "POST",
        "/messages/print",
        Some(json!({"messages": ["401:welcome"]})),
    )
    .await;
    assert_eq!(anonymous["text"], "Welcome to the club!");
    assert_eq!(
        ids(&buy(&server, &key, &bob, "T6", 8.0).await),
        ["401:welcome"]
    );
}

#[tokio::test]
async fn a_bad_print_is_refused_and_records_nothing() {
    let (server, _dir) = server_with(&FILES, "2026-11-23T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com", "es").await;
    let print = |body: Value| server.call_as("POST", "/messages/print", &key, Some(body));

    // A message of no campaign: nothing printed, the welcome still due.
    assert_error(
        &print(json!({"customer_id": ana, "messages": ["401:welcome", "401:nope"]})).await,
        404,
        "message_not_found",
    );
    assert_error(
        &print(json!({"customer_id": ana, "messages": ["999:welcome"]})).await,
        404,
        "message_not_found",
    );
    assert_error(
        &print(json!({"customer_id": "cus_missing", "messages": ["401:welcome"]})).await,
        404,
        "customer_not_found",
    );
    for bad in [
        json!({"customer_id": ana, "messages": []}),
        json!({"customer_id": ana, "messages": ["401:welcome", "401:welcome"]}),
        json!({"customer_id": ana, "messages": ["401:welcome"], "width": 8}),
        json!({"customer_id": ana}),
    ] {
        assert_error(&print(bad.clone()).await, 400, "invalid_request");
    }
    assert_eq!(
        ids(&buy(&server, &key, &ana, "T1", 8.0).await),
        ["401:welcome"]
    );
}

#[tokio::test]
async fn a_once_message_printed_by_many_tills_at_once_prints_once() {
    let (server, _dir) = server_with(&FILES, "2026-11-23T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com", "es").await;
    let requests = (0..12)
        .map(|_| {
            server
                .request_as("POST", "/messages/print", &key)
                .json(&json!({"customer_id": ana, "messages": ["401:welcome", "402:hello"]}))
        })
        .collect();
    let answers = common::all_at_once(requests).await;
    let mut printed_welcome = 0;
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
        // What is not once is printed every time.
        assert_eq!(body["messages"][1]["printed"], true, "{body}");
        if body["messages"][0]["printed"] == true {
            printed_welcome += 1;
            assert_eq!(body["text"], "¡Bienvenido al club!\n\nHello again");
        } else {
            assert_eq!(body["text"], "Hello again");
        }
    }
    assert_eq!(printed_welcome, 1, "{answers:?}");
    assert!(ids(&buy(&server, &key, &ana, "T1", 8.0).await).is_empty());
}
