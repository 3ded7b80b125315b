//! Vouchers earned: a `voucher` campaign issues a Coupon's Voucher in the
//! transaction of the Custom Event, trigger or cart that meets its
//! condition; a later cart uses it; a Coupon's cap per Customer holds under
//! concurrent events; a simulation issues nothing; a campaign naming no
//! Coupon is refused at load with its file and line.

use super::carts::{MONDAY, cart, effects_of, post_cart_ok, post_cart_ok_at};
use super::*;

/// A Company with a Coupon (3 off, at most 2 per Customer) and three
/// `voucher` campaigns issuing it: on a review of 4 stars or more, on the
/// `birthday` trigger, and on a cart of 40 or more.
const CAMPAIGNS: [(&str, &str); 4] = [
    (
        "thanks-coupon.yaml",
        "id: 31\nkind: coupon\nname: Thanks\ncoupon:\n  discount: { amount: 3 }\n  code_pattern: THX-######\n  issues_per_customer: 2\n",
    ),
    (
        "review-voucher.yaml",
        "id: 60\nkind: voucher\nname: A Voucher for a review\non: { custom_event: review_posted }\nwhen: event.data.stars >= 4\nvoucher:\n  coupon: 31\n",
    ),
    (
        "birthday-voucher.yaml",
        "id: 61\nkind: voucher\nname: Birthday Voucher\non: { trigger: birthday }\nvoucher:\n  coupon: 31\n",
    ),
    (
        "big-basket-voucher.yaml",
        "id: 62\nkind: voucher\nname: Big basket\non: cart\nwhen: cart.total >= 40.0\nvoucher:\n  coupon: 31\n",
    ),
];

async fn server_with(files: &[(&str, &str)]) -> (TestServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let company = dir.path().join("demo");
    std::fs::create_dir(&company).unwrap();
    for (name, text) in files {
        std::fs::write(company.join(name), text).unwrap();
    }
    let mut settings = loyalty::server::ServerSettings::for_store("mem://", common::OPERATOR_TOKEN);
    settings.campaigns = dir.path().to_path_buf();
    settings.clock = common::manual_clock(MONDAY);
    (TestServer::start_with(settings).await, dir)
}

fn review(customer: &str, stars: i64) -> Value {
    json!({"customer_id": customer, "type": "review_posted", "data": {"stars": stars}})
}

async fn post_event(server: &TestServer, key: &CreatedApiKey, path: &str, body: Value) -> Value {
    let (status, answer) = server.call_as("POST", path, key, Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

async fn vouchers_of(server: &TestServer, key: &CreatedApiKey, customer: &str) -> Vec<Value> {
    let (status, list) = server
        .get_as(&format!("/vouchers?customer_id={customer}"), key)
        .await;
    assert_eq!(status, 200, "{list}");
    list["vouchers"].as_array().unwrap().clone()
}

fn explanation(answer: &Value, rule_id: i64) -> &Value {
    answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == rule_id)
        .unwrap()
}

#[tokio::test]
async fn a_review_earns_a_voucher_that_a_later_cart_uses() {
    let (server, _dir) = server_with(&CAMPAIGNS).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;

    let lukewarm = post_event(
        &server,
        &key,
        "/custom_events?explain=true",
        review(&ana, 3),
    )
    .await;
    assert!(
        effects_of(&lukewarm, "voucher_issued").is_empty(),
        "{lukewarm}"
    );
    let why = explanation(&lukewarm, 60)["reason"].as_str().unwrap();
    assert!(why.contains("condition is false"), "{why}");
    assert!(vouchers_of(&server, &key, &ana).await.is_empty());

    let glowing = post_event(&server, &key, "/custom_events", review(&ana, 5)).await;
    let issued = effects_of(&glowing, "voucher_issued");
    assert_eq!(issued.len(), 1, "{glowing}");
    let effect = issued[0];
    assert_eq!(effect["rule_id"], 60);
    assert_eq!(effect["rule_name"], "A Voucher for a review");
    let code = effect["voucher_code"].as_str().unwrap().to_string();
    assert!(code.starts_with("THX-"), "{effect}");
    assert_eq!(effect["coupon_info"]["coupon_id"], 31);
    assert_eq!(effect["coupon_info"]["voucher_code"], code.as_str());
    assert_eq!(effect["voucher"]["customer_id"], ana.as_str());
    assert_eq!(effect["voucher"]["source"], "campaign");
    assert!(effect["voucher"]["rule_id"].is_null(), "{effect}");
    assert_eq!(effect["voucher"]["uses_left"], 1);

    // Written with the event: listed, valid, and usable by a later cart.
    let held = vouchers_of(&server, &key, &ana).await;
    assert_eq!(held.len(), 1);
    assert_eq!(held[0]["code"], code.as_str());
    assert_eq!(held[0]["id"], effect["coupon_info"]["voucher_id"]);
    let (status, valid) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_eq!(
        (status, &valid["state"]),
        (200, &json!("active")),
        "{valid}"
    );
    let answer = post_cart_ok(&server, &key, cart(&ana, "E-1", json!([code]))).await;
    let applied = effects_of(&answer, "voucher");
    assert!(!applied.is_empty(), "{answer}");
    let taken: f64 = applied.iter().map(|e| e["value"].as_f64().unwrap()).sum();
    assert_eq!(taken, 3.0);
    let (status, spent) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_error(status, &spent, 422, "voucher_redeemed");
}

#[tokio::test]
async fn triggers_and_carts_issue_vouchers_and_a_simulation_issues_none() {
    let (server, _dir) = server_with(&CAMPAIGNS).await;
    let key = server.bootstrap_key();
    let bob = customer(&server, &key, "bob@example.com").await;

    let birthday = post_event(
        &server,
        &key,
        "/trigger",
        json!({"customer_id": bob, "type": "birthday"}),
    )
    .await;
    assert_eq!(
        effects_of(&birthday, "voucher_issued").len(),
        1,
        "{birthday}"
    );
    assert_eq!(vouchers_of(&server, &key, &bob).await.len(), 1);

    // The test cart (46.50) is worth over 40: a simulation shows the Voucher it
    // would issue and writes none.
    let simulated = post_cart_ok_at(
        &server,
        &key,
        "/carts/simulate",
        cart(&bob, "S-1", json!([])),
    )
    .await;
    let shown = effects_of(&simulated, "voucher_issued");
    assert_eq!(shown.len(), 1, "{simulated}");
    let shown_code = shown[0]["voucher_code"].as_str().unwrap();
    let (status, body) = server
        .get_as(&format!("/vouchers/{shown_code}"), &key)
        .await;
    assert_error(status, &body, 404, "voucher_not_found");
    assert_eq!(vouchers_of(&server, &key, &bob).await.len(), 1);

    let bought = post_cart_ok(&server, &key, cart(&bob, "B-1", json!([]))).await;
    assert_eq!(effects_of(&bought, "voucher_issued").len(), 1, "{bought}");
    assert_eq!(vouchers_of(&server, &key, &bob).await.len(), 2);
}

#[tokio::test]
async fn the_coupons_cap_per_customer_holds_under_concurrent_events() {
    let (server, _dir) = server_with(&CAMPAIGNS).await;
    let key = server.bootstrap_key();
    let cleo = customer(&server, &key, "cleo@example.com").await;
    let requests = (0..12)
        .map(|_| {
            server
                .request_as("POST", "/custom_events?explain=true", &key)
                .json(&review(&cleo, 5))
        })
        .collect();
    let answers = all_at_once(requests).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );
    let issued: usize = answers
        .iter()
        .map(|(_, answer)| effects_of(answer, "voucher_issued").len())
        .sum();
    assert_eq!(issued, 2, "the Coupon issues 2 to one Customer");
    for (_, answer) in &answers {
        if effects_of(answer, "voucher_issued").is_empty() {
            let why = explanation(answer, 60)["reason"].as_str().unwrap();
            assert!(why.contains("holds the 2 Vouchers of Coupon 31"), "{why}");
        }
    }
    let held = vouchers_of(&server, &key, &cleo).await;
    assert_eq!(held.len(), 2);
    // Every event is recorded, with or without its Voucher.
    let (status, events) = server
        .get_as(&format!("/custom_events?customer_id={cleo}"), &key)
        .await;
    assert_eq!(status, 200, "{events}");
    assert_eq!(events["custom_events"].as_array().unwrap().len(), 12);
}

#[tokio::test]
async fn a_voucher_campaign_naming_no_coupon_is_held_back_with_its_file_and_line() {
    let (server, _dir) = server_with(&[(
        "orphan.yaml",
        "id: 70\nkind: voucher\nname: Orphan\non: { trigger: birthday }\nvoucher:\n  coupon: 99\n",
    )])
    .await;
    let key = server.bootstrap_key();
    let dan = customer(&server, &key, "dan@example.com").await;
    let (status, body) = server
        .call_as(
            "POST",
            "/trigger",
            &key,
            Some(json!({"customer_id": dan, "type": "birthday"})),
        )
        .await;
    // The file is held back alone (it never loaded, so it is left out):
    // the trigger is answered, and the load says why.
    assert_eq!(status, 200, "{body}");
    let problems = server
        .running
        .services
        .catalog()
        .problems("demo")
        .expect("the orphan is held back");
    let error = problems[0].to_string();
    assert!(error.contains("orphan.yaml:6:"), "{error}");
    assert!(error.contains("Coupon 99"), "{error}");
}
