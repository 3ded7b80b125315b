//! Deliveries to a receiver on loopback: signed as documented, tried again
//! with the same id until a 2xx, cut at 10 s, sent again on demand.

use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::receiver::{Received, Receiver};
use super::*;

/// Waits until the newest delivery has made `attempts` tries and settled.
async fn settled_after(server: &TestServer, endpoint: &str, attempts: i64) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let newest = deliveries(server, endpoint).await[0].clone();
        let done = newest["attempts"] == attempts && newest["state"] != "pending";
        if done || tokio::time::Instant::now() >= deadline {
            return newest;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The documented check of a delivery: `v1` is HMAC-SHA256 of
/// `"{t}.{body}"` under the secret.
fn signature_checks(received: &Received, secret: &str) -> bool {
    let header = &received.headers["loyalty-signature"];
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => t = Some(value.to_string()),
            Some(("v1", value)) => v1 = Some(value.to_string()),
            _ => {}
        }
    }
    let (Some(t), Some(v1)) = (t, v1) else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{}", received.body).as_bytes());
    hex::encode(mac.finalize().into_bytes()) == v1
}

/// The endpoint's deliveries, newest first.
async fn deliveries(server: &TestServer, endpoint: &str) -> Vec<Value> {
    let path = format!("/companies/demo/webhooks/{endpoint}/deliveries");
    let (status, list) = back_office(server, reqwest::Method::GET, &path, None).await;
    assert_eq!(status, 200, "{list}");
    list["deliveries"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_test_event_arrives_signed_as_documented() {
    let server = server_allowing_loopback().await;
    let receiver = Receiver::start(Vec::new(), Duration::ZERO).await;
    let (endpoint, secret) = endpoint_at(&server, &receiver, json!(["*"])).await;
    let path = format!("/companies/demo/webhooks/{endpoint}/test");
    let (status, pending) = back_office(&server, reqwest::Method::POST, &path, None).await;
    assert_eq!(status, 200, "{pending}");
    assert_eq!(pending["type"], "webhook.test");

    let received = receiver.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(received.len(), 1);
    let delivery = &received[0];
    assert!(signature_checks(delivery, &secret), "{delivery:?}");
    assert!(!signature_checks(delivery, "whsec_another"));
    let body: Value = serde_json::from_str(&delivery.body).expect("a JSON body");
    assert_eq!(delivery.headers["content-type"], "application/json");
    assert_eq!(
        delivery.headers["loyalty-event-id"],
        body["id"].as_str().unwrap()
    );
    assert_eq!(delivery.headers["loyalty-event-type"], "webhook.test");
    assert_eq!(body["id"], pending["event_id"]);
    assert!(body["id"].as_str().unwrap().starts_with("evt_"));
    assert_eq!(body["type"], "webhook.test");
    assert_eq!(body["company"], "demo");
    assert!(body["created_at"].is_string());
    assert_eq!(body["data"]["endpoint_id"], endpoint.as_str());

    let settled = settled_after(&server, &endpoint, 1).await;
    assert_eq!(settled["state"], "delivered", "{settled}");
    assert_eq!(settled["attempts"], 1);
    assert_eq!(settled["last_status"], 200);
}

#[tokio::test]
async fn a_failing_receiver_gets_the_same_event_until_it_answers_2xx() {
    let server = server_allowing_loopback().await;
    let receiver = Receiver::start(vec![Some(500), Some(500), Some(503)], Duration::ZERO).await;
    let (endpoint, secret) = endpoint_at(&server, &receiver, json!(["*"])).await;
    let path = format!("/companies/demo/webhooks/{endpoint}/test");
    back_office(&server, reqwest::Method::POST, &path, None).await;
    let services = &server.running.services;
    let series = |name: &str| format!(r#"{name}{{company="demo",endpoint="{endpoint}"}}"#);
    let tries = |outcome: &str| {
        format!(r#"loyalty_webhook_tries_total{{company="demo",outcome="{outcome}"}}"#)
    };

    // Refused once: still waiting, as the metrics tell.
    receiver.wait_for(1, Duration::from_secs(10)).await;
    let waiting = services.metrics_text().await;
    let value = common::metric_sample;
    assert_eq!(
        value(&waiting, &series("loyalty_webhook_outbox_pending")),
        Some(1.0),
        "{waiting}"
    );
    assert!(
        value(&waiting, &tries("retrying")) >= Some(1.0),
        "{waiting}"
    );

    // Tried after 1 s, 2 s and 4 s.
    let received = receiver.wait_for(4, Duration::from_secs(20)).await;
    assert_eq!(received.len(), 4, "four tries");
    let first = &received[0];
    for again in &received {
        assert_eq!(
            again.headers["loyalty-event-id"],
            first.headers["loyalty-event-id"]
        );
        assert_eq!(again.body, first.body);
        assert!(signature_checks(again, &secret));
    }
    let settled = settled_after(&server, &endpoint, 4).await;
    assert_eq!(settled["state"], "delivered", "{settled}");
    assert_eq!(settled["attempts"], 4);
    assert_eq!(settled["last_status"], 200);
    let delivered = services.metrics_text().await;
    assert_eq!(
        value(&delivered, &series("loyalty_webhook_outbox_pending")),
        Some(0.0)
    );
    assert_eq!(
        value(&delivered, &series("loyalty_webhook_outbox_oldest_seconds")),
        Some(0.0)
    );
    assert_eq!(value(&delivered, &tries("retrying")), Some(3.0));
    assert_eq!(value(&delivered, &tries("delivered")), Some(1.0));

    // Sent again on demand: the same event, once more.
    let event = settled["event_id"].as_str().unwrap();
    let path = format!("/companies/demo/webhooks/{endpoint}/deliveries/{event}/resend");
    let (status, resent) = back_office(&server, reqwest::Method::POST, &path, None).await;
    assert_eq!((status, resent["state"].as_str()), (200, Some("pending")));
    let received = receiver.wait_for(5, Duration::from_secs(10)).await;
    assert_eq!(received.len(), 5);
    assert_eq!(received[4].headers["loyalty-event-id"], event);
    let settled = settled_after(&server, &endpoint, 5).await;
    assert_eq!(settled["attempts"], 5, "{settled}");

    let missing = format!("/companies/demo/webhooks/{endpoint}/deliveries/evt_none/resend");
    let (status, refused) = back_office(&server, reqwest::Method::POST, &missing, None).await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (404, Some("webhook_delivery_not_found"))
    );
}

#[tokio::test]
async fn a_receiver_that_hangs_is_cut_at_ten_seconds_and_tried_again() {
    let server = server_allowing_loopback().await;
    let receiver = Receiver::start(vec![None], Duration::from_secs(30)).await;
    let (endpoint, _) = endpoint_at(&server, &receiver, json!(["*"])).await;
    let path = format!("/companies/demo/webhooks/{endpoint}/test");
    back_office(&server, reqwest::Method::POST, &path, None).await;

    // The first try is cut and recorded as such; the next one is answered.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let cut = loop {
        let newest = deliveries(&server, &endpoint).await[0].clone();
        if newest["attempts"] == 1 || tokio::time::Instant::now() >= deadline {
            break newest;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(cut["last_error"], "no answer within 10 s", "{cut}");
    assert!(cut.get("last_status").is_none(), "{cut}");
    let received = receiver.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!(received.len(), 2, "tried again after the cut");
    let settled = settled_after(&server, &endpoint, 2).await;
    assert_eq!(settled["state"], "delivered", "{settled}");
}

/// Changes the endpoint `endpoint` of the demo Company as `change` says.
async fn change_endpoint(server: &TestServer, endpoint: &str, change: Value) {
    let path = format!("/companies/demo/webhooks/{endpoint}");
    let (status, changed) = back_office(server, reqwest::Method::PATCH, &path, Some(change)).await;
    assert_eq!(status, 200, "{changed}");
}

#[tokio::test]
async fn a_disabled_endpoint_keeps_its_deliveries_and_sends_them_once_enabled() {
    let server = server_allowing_loopback().await;
    let key = server.bootstrap_key();
    // The first try fails, so the event is still waiting when the endpoint
    // is disabled.
    let receiver = Receiver::start(vec![Some(503)], Duration::ZERO).await;
    let (endpoint, _) = endpoint_at(&server, &receiver, json!(["customer.created"])).await;
    server
        .create_customer(&key, json!({"email": "held@example.com"}))
        .await;
    let first = receiver.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(first.len(), 1);
    change_endpoint(&server, &endpoint, json!({"enabled": false})).await;
    // While disabled, nothing is sent, and what happens is not reported.
    server
        .create_customer(&key, json!({"email": "unseen@example.com"}))
        .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(receiver.received().len(), 1, "held while disabled");
    let waiting = deliveries(&server, &endpoint).await;
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(
        (waiting[0]["state"].as_str(), &waiting[0]["attempts"]),
        (Some("pending"), &json!(1))
    );

    change_endpoint(&server, &endpoint, json!({"enabled": true})).await;
    let received = receiver.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!(received.len(), 2, "sent again once enabled");
    assert_eq!(
        received[1].headers["loyalty-event-id"],
        received[0].headers["loyalty-event-id"]
    );
    assert!(received[1].body.contains("held@example.com"));
    let settled = settled_after(&server, &endpoint, 2).await;
    assert_eq!(settled["state"], "delivered", "{settled}");
}

#[tokio::test]
async fn a_receiver_that_hangs_holds_up_only_its_own_endpoint() {
    let server = server_allowing_loopback().await;
    let key = server.bootstrap_key();
    let hanging = Receiver::start(vec![None], Duration::from_secs(30)).await;
    let answering = Receiver::start(Vec::new(), Duration::ZERO).await;
    endpoint_at(&server, &hanging, json!(["customer.created"])).await;
    endpoint_at(&server, &answering, json!(["customer.created"])).await;
    server
        .create_customer(&key, json!({"email": "first@example.com"}))
        .await;
    assert_eq!(hanging.wait_for(1, Duration::from_secs(10)).await.len(), 1);
    assert_eq!(
        answering.wait_for(1, Duration::from_secs(10)).await.len(),
        1
    );

    // The hanging receiver holds its try for 10 s; the other endpoint's
    // next event goes out meanwhile.
    server
        .create_customer(&key, json!({"email": "second@example.com"}))
        .await;
    let got = answering.wait_for(2, Duration::from_secs(5)).await;
    assert_eq!(got.len(), 2, "not held up behind the hanging receiver");
    assert!(got[1].body.contains("second@example.com"));
    assert_eq!(hanging.received().len(), 1, "still on its first try");
}

#[tokio::test]
async fn the_readmes_python_check_verifies_a_real_delivery() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = &readme[readme.find("## Webhooks").expect("a Webhooks section")..];
    let start = section.find("```python\n").expect("a Python block") + "```python\n".len();
    let recipe = &section[start..start + section[start..].find("```").expect("its end")];

    let server = server_allowing_loopback().await;
    let receiver = Receiver::start(Vec::new(), Duration::ZERO).await;
    let (endpoint, secret) = endpoint_at(&server, &receiver, json!(["*"])).await;
    let path = format!("/companies/demo/webhooks/{endpoint}/test");
    back_office(&server, reqwest::Method::POST, &path, None).await;
    let received = receiver.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(received.len(), 1);
    let delivery = &received[0];

    let check = |secret: &str, body: &str| {
        let script = format!(
            "{recipe}\nimport os, sys\nprint(verified(os.environ['SECRET'], os.environ['HEADER'], sys.stdin.buffer.read()))\n"
        );
        let mut python = std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .env("SECRET", secret)
            .env("HEADER", &delivery.headers["loyalty-signature"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        use std::io::Write;
        python
            .stdin
            .take()
            .unwrap()
            .write_all(body.as_bytes())
            .unwrap();
        let output = python.wait_with_output().expect("python3 ends");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    };
    assert_eq!(check(&secret, &delivery.body), "True");
    assert_eq!(check("whsec_another", &delivery.body), "False");
    assert_eq!(
        check(&secret, &delivery.body.replace("demo", "dem0")),
        "False"
    );
}
