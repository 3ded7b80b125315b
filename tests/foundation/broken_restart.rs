//! A start that finds a campaign file broken serves the version of it that
//! last loaded, kept in the store by the start before: the real binary,
//! killed and started again on the same store with a typo left in a file.

use loyalty::bench::server::ServerProcess;
use loyalty::bench::setup::unlimited_company;
use loyalty::torture::client::Client;
use serde_json::{Value, json};
use std::path::Path;

const POINTS: &str = "id: 501\nkind: points\nname: Four a cart\non: cart\nwhen: cart.total > 1.0\npoints: { fixed: 4 }\n";
const BONUS: &str = "id: 502\nkind: points\nname: One a cart\non: cart\npoints: { fixed: 1 }\n";

/// The points each campaign gave a cart of `customer`.
async fn cart_points(client: &Client, customer: &str, code: &str) -> Vec<(i64, i64)> {
    let cart = json!({
        "customer_code": customer,
        "code": code,
        "lines": [{"product_code": "PASTRY", "quantity": 1, "price": 2.5}]
    });
    let answer = client
        .post("/carts/realtime", code, &cart)
        .await
        .expect("an answer");
    assert!(answer.succeeded(), "{code}: {answer:?}");
    let mut points: Vec<(i64, i64)> = answer.json()["effects"]
        .as_array()
        .expect("effects")
        .iter()
        .filter_map(|effect| Some((effect["rule_id"].as_i64()?, effect["points"].as_i64()?)))
        .collect();
    points.sort_unstable();
    points
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_with_a_broken_file_serves_its_last_good_version() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let shop = dir.path().join("campaigns").join("shop");
    std::fs::create_dir_all(&shop).expect("the Company's folder");
    std::fs::write(shop.join("points.yaml"), POINTS).expect("points.yaml");
    std::fs::write(shop.join("bonus.yaml"), BONUS).expect("bonus.yaml");
    let binary = Path::new(env!("CARGO_BIN_EXE_loyalty"));
    let token = "broken-restart-operator-token";
    let start = || ServerProcess::start_binary(binary, dir.path(), token);

    let server = start().await.expect("first start");
    let (key, _office) = unlimited_company(&server, dir.path(), token, "shop")
        .await
        .expect("a Company and its key");
    let client = |server: &ServerProcess| {
        Client::new(&server.api_url, &key.key.key, &key.secret).expect("client")
    };
    let api = client(&server);
    let created = api
        .post("/customers", "buyer", &json!({"code": "BUYER"}))
        .await
        .expect("an answer");
    assert!(created.succeeded(), "{created:?}");
    assert_eq!(
        cart_points(&api, "BUYER", "BEFORE").await,
        [(501, 4), (502, 1)]
    );
    server.stop().await.expect("killed");

    // A typo left in one file while the service is down; the other file's
    // edit is good.
    std::fs::write(
        shop.join("points.yaml"),
        POINTS.replace("cart.total", "cart.totl"),
    )
    .expect("broken points.yaml");
    std::fs::write(
        shop.join("bonus.yaml"),
        BONUS.replace("fixed: 1", "fixed: 2"),
    )
    .expect("bonus.yaml edited");
    let server = start().await.expect("start with a broken file");
    let api = client(&server);
    assert_eq!(
        cart_points(&api, "BUYER", "AFTER").await,
        [(501, 4), (502, 2)],
        "the last good points.yaml beside the edited bonus.yaml"
    );

    let status: Value = reqwest::Client::new()
        .get(format!("{}/api/companies/shop/campaigns", server.admin_url))
        .bearer_auth(token)
        .send()
        .await
        .expect("the back office answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(status["state"], "held_back", "{status}");
    assert_eq!(status["campaigns_in_force"], 2, "{status}");
    let serving = status["files_serving_last_good"][0].as_str().unwrap_or("");
    assert!(serving.ends_with("points.yaml"), "{status}");
    assert!(
        status["problems"][0]
            .as_str()
            .unwrap_or("")
            .contains("has no field `totl`"),
        "{status}"
    );
    server.stop().await.expect("stopped");
}
