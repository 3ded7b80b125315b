//! Nothing acknowledged is lost across kill -9: the real binary, killed
//! between a cart's 200 and the delivery of its event, delivers it once it
//! is started again on the same store.

use std::path::Path;
use std::time::Duration;

use loyalty::bench::server::ServerProcess;
use loyalty::bench::setup::unlimited_company;
use loyalty::resources::webhooks::model::NewWebhookEndpoint;
use loyalty::torture::client::Client;

use super::receiver::Receiver;
use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cart_answered_before_a_kill_is_delivered_after_the_restart() {
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::create_dir_all(dir.path().join("campaigns").join("shop")).expect("campaigns");
    let binary = Path::new(env!("CARGO_BIN_EXE_loyalty"));
    let token = "webhook-crash-operator-token";
    let start = || ServerProcess::start_binary(binary, dir.path(), token);
    // The first try is held unanswered until the process is gone; the
    // next is answered.
    let receiver = Receiver::start(vec![None], Duration::from_secs(60)).await;

    let server = start().await.expect("first start");
    let (key, office) = unlimited_company(&server, dir.path(), token, "shop")
        .await
        .expect("a Company and its key");
    let endpoint = office
        .create_webhook_endpoint(
            "shop",
            NewWebhookEndpoint {
                url: receiver.url(),
                events: vec!["cart.recorded".into()],
                description: None,
                enabled: None,
            },
        )
        .await
        .expect("an endpoint");
    let api = Client::new(&server.api_url, &key.key.key, &key.secret).expect("client");
    let created = api
        .post("/customers", "buyer", &json!({"code": "BUYER"}))
        .await
        .expect("an answer");
    assert!(created.succeeded(), "{created:?}");
    let cart = json!({
        "customer_code": "BUYER",
        "code": "KILLED-1",
        "lines": [{"product_code": "PASTRY", "quantity": 1, "price": 2.5}]
    });
    let answer = api
        .post("/carts/realtime", "killed-1", &cart)
        .await
        .expect("an answer");
    assert!(answer.succeeded(), "{answer:?}");
    let cart_id = answer.json()["cart"]["id"].as_str().unwrap().to_string();
    // The delivery is under way, unanswered, when the process dies.
    assert_eq!(receiver.wait_for(1, Duration::from_secs(20)).await.len(), 1);
    server.stop().await.expect("killed");

    let server = start().await.expect("restart");
    let received = receiver.wait_for(2, Duration::from_secs(30)).await;
    assert_eq!(received.len(), 2, "tried again after the restart");
    assert_eq!(
        received[1].headers["loyalty-event-id"], received[0].headers["loyalty-event-id"],
        "the same event"
    );
    let body: Value = serde_json::from_str(&received[1].body).expect("JSON");
    assert_eq!(
        (body["type"].as_str(), body["data"]["id"].as_str()),
        (Some("cart.recorded"), Some(cart_id.as_str()))
    );
    // Recorded as delivered, and not sent a third time.
    let path = format!(
        "{}/api/companies/shop/webhooks/{}/deliveries",
        server.admin_url, endpoint.endpoint.id
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let listed = loop {
        let listed: Value = reqwest::Client::new()
            .get(&path)
            .bearer_auth(token)
            .send()
            .await
            .expect("the back office answers")
            .json()
            .await
            .expect("JSON");
        let delivered = listed["deliveries"][0]["state"] == "delivered";
        if delivered || tokio::time::Instant::now() >= deadline {
            break listed;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(listed["deliveries"][0]["state"], "delivered", "{listed}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(receiver.received().len(), 2);
    server.stop().await.expect("stopped");
}
