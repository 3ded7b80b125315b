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
