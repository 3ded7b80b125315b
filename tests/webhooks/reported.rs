//! Every change a receiver subscribes to is reported, once, by the write
//! that makes it: a Customer's life (created, updated, anonymized, merged),
//! a cart and its cancellation, Vouchers issued, redeemed and rolled back,
//! Rewards redeemed and rolled back, and the points each moved.

use std::time::Duration;

use super::receiver::Receiver;
use super::*;

/// Ten points a cart, and a Reward of 10 points.
const CAMPAIGNS: [(&str, &str); 2] = [
    (
        "points.yaml",
        "id: 30\nkind: points\nname: Ten a cart\non: cart\npoints: { fixed: 10 }\n",
    ),
    (
        "coffee.yaml",
        "id: 401\nkind: reward\nname: Coffee\npoints_cost: 10\n",
    ),
];

/// Sends `method` `path` with `body` as the Company's key; the answer must
/// be a 200.
async fn ok(
    server: &TestServer,
    key: &loyalty::resources::companies::model::CreatedApiKey,
    method: &str,
    path: &str,
    body: Value,
) -> Value {
    let body = (method != "GET").then_some(body);
    let (status, answer) = server.call_as(method, path, key, body).await;
    assert_eq!(status, 200, "{method} {path}: {answer}");
    answer
}

#[tokio::test]
async fn each_change_is_reported_once_by_the_write_that_makes_it() {
    let (server, _dir) = server_with_campaigns(&CAMPAIGNS, "2026-11-02T10:00:00Z").await;
    let key = server.bootstrap_key();
    let receiver = Receiver::start(Vec::new(), Duration::ZERO).await;
    endpoint_at(&server, &receiver, json!(["*"])).await;

    let ana = ok(
        &server,
        &key,
        "POST",
        "/customers",
        json!({"email": "ana@example.com"}),
    )
    .await;
    let ana_id = ana["id"].as_str().unwrap().to_string();
    let updated = ok(
        &server,
        &key,
        "PATCH",
        &format!("/customers/{ana_id}"),
        json!({"first_name": "Ana"}),
    )
    .await;
    // A change that changes nothing reports nothing.
    ok(
        &server,
        &key,
        "PATCH",
        &format!("/customers/{ana_id}"),
        json!({"first_name": "Ana"}),
    )
    .await;
    let cart = json!({"customer_id": ana_id, "code": "R-1", "lines": [{"product_code": "TEA", "quantity": 1, "price": 3.0}]});
    ok(&server, &key, "POST", "/carts/realtime", cart).await;
    let reward = ok(
        &server,
        &key,
        "POST",
        "/rewards/401/redeem",
        json!({"customer_id": ana_id}),
    )
    .await;
    let transaction = reward["id"].as_str().unwrap().to_string();
    let response = server
        .request_as(
            "POST",
            &format!("/rewards/transactions/{transaction}/rollback"),
            &key,
        )
        .json(&json!({"reason": "by mistake"}))
        .send()
        .await
        .expect("request sent");
    assert_eq!(response.status(), 200);
    let coupon = ok(
        &server,
        &key,
        "POST",
        "/coupons",
        json!({"name": "Five off", "discount": {"amount": 5}}),
    )
    .await;
    let voucher = ok(
        &server,
        &key,
        "POST",
        "/discounts/trigger",
        json!({"customer_id": ana_id, "coupon_id": coupon["id"]}),
    )
    .await;
    let redeemed = ok(
        &server,
        &key,
        "POST",
        "/vouchers/redeem",
        json!({"customer_id": ana_id, "codes": [voucher["code"]]}),
    )
    .await;
    let redemption = redeemed["redemptions"][0]["redemption_id"].clone();
    ok(
        &server,
        &key,
        "POST",
        "/vouchers/rollback",
        json!({"redemption_ids": [redemption]}),
    )
    .await;
    let cancelled = ok(
        &server,
        &key,
        "POST",
        "/carts/cancellation",
        json!({"cart_id": "R-1"}),
    )
    .await;
    let bea = ok(
        &server,
        &key,
        "POST",
        "/customers",
        json!({"email": "bea@example.com"}),
    )
    .await;
    let bea_id = bea["id"].as_str().unwrap().to_string();
    ok(
        &server,
        &key,
        "POST",
        "/customers/transfer",
        json!({"from_customer_id": bea_id, "to_customer_id": ana_id}),
    )
    .await;
    let (status_deleted, _) = server
        .call_as("DELETE", &format!("/customers/{ana_id}"), &key, None)
        .await;
    assert_eq!(status_deleted, 200);

    // Ana's, in the order they happened; Bea's (merged into Ana, then
    // anonymized with her) may come in between.
    let anas = [
        "customer.created",
        "customer.updated",
        "cart.recorded",
        "points.changed",
        "reward.redeemed",
        "points.changed",
        "reward.rolled_back",
        "points.changed",
        "voucher.issued",
        "voucher.redeemed",
        "voucher.rolled_back",
        "cart.cancelled",
        "points.changed",
        "customer.anonymized",
    ];
    let beas = ["customer.created", "customer.merged", "customer.anonymized"];
    let total = anas.len() + beas.len();
    let got: Vec<Value> = receiver
        .wait_for(total, Duration::from_secs(30))
        .await
        .iter()
        .map(|r| serde_json::from_str(&r.body).expect("a JSON body"))
        .collect();
    let whose = |body: &Value| {
        let data = &body["data"];
        [&data["customer_id"], &data["merged"]["id"], &data["id"]]
            .into_iter()
            .find_map(|id| id.as_str().filter(|id| id.starts_with("cus_")))
            .map(str::to_string)
    };
    let of = |customer: &str| -> Vec<Value> {
        got.iter()
            .filter(|body| whose(body).as_deref() == Some(customer))
            .cloned()
            .collect()
    };
    let (ana_got, bea_got) = (of(&ana_id), of(&bea_id));
    let types = |bodies: &[Value]| -> Vec<String> {
        bodies
            .iter()
            .map(|b| b["type"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(types(&ana_got), anas);
    assert_eq!(types(&bea_got), beas);
    assert_eq!(
        ana_got[1]["data"], updated,
        "the Customer as the API answers it"
    );
    assert_eq!(ana_got[4]["data"]["id"], reward["id"]);
    assert_eq!(ana_got[6]["data"]["state"], "rolled_back");
    assert_eq!(ana_got[8]["data"]["code"], voucher["code"]);
    assert_eq!(ana_got[9]["data"]["redemption_id"], redemption);
    assert!(ana_got[10]["data"]["rolled_back_at"].is_string());
    assert_eq!(ana_got[11]["data"], cancelled["cart"], "{cancelled}");
    assert_eq!(ana_got[12]["data"]["balance_after"], 0);
    assert!(ana_got[13]["data"]["anonymized_at"].is_string());
    assert_eq!(bea_got[1]["data"]["merge"]["merged_customer_id"], bea_id);
    assert_eq!(bea_got[1]["data"]["target"]["id"], ana_id);
    // Nothing more: each change once.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(receiver.received().len(), total);
}

/// An Instant Win on the Custom Event `scratch` whose one prize is a
/// Reward, a Challenge of two carts, a game played with the participation
/// a Reward gives, and points for every cart.
const ENGAGEMENT: [(&str, &str); 7] = [
    ("scratch.yaml", common::LAST_UNIT_PRIZE),
    ("coffee.yaml", "id: 11\nkind: reward\nname: Coffee\n"),
    (
        "visits.yaml",
        "id: 701\nkind: challenge\nname: Two visits\non: cart\nwhen: cart.total >= 1.0\ngoal: { count: 2 }\nreward: { points: 50 }\n",
    ),
    (
        "dice.yaml",
        "id: 502\nkind: game\nname: Dice\ninstant_win:\n  instant_win_prizes:\n    - id: points\n      name: Fifty points\n      outcome: { promotion_type: points, promotion_id: 204 }\n      weight: 1\n",
    ),
    (
        "prize-points.yaml",
        "id: 204\nkind: points\nname: Prize points\npoints:\n  fixed: 50\n",
    ),
    (
        "dice-roll.yaml",
        "id: 420\nkind: reward\nname: A dice roll\npoints_cost: 1\ngives: { game: 502 }\n",
    ),
    (
        "points.yaml",
        "id: 30\nkind: points\nname: Ten a cart\non: cart\npoints: { fixed: 10 }\n",
    ),
];

#[tokio::test]
async fn prizes_won_and_delivered_challenges_completed_and_games_played_are_reported() {
    let (server, _dir) = server_with_campaigns(&ENGAGEMENT, "2026-11-02T10:00:00Z").await;
    let key = server.bootstrap_key();
    let receiver = Receiver::start(Vec::new(), Duration::ZERO).await;
    endpoint_at(
        &server,
        &receiver,
        json!([
            "prize.won",
            "prize.delivered",
            "challenge.completed",
            "game.played"
        ]),
    )
    .await;
    let customer = ok(
        &server,
        &key,
        "POST",
        "/customers",
        json!({"email": "eve@example.com"}),
    )
    .await;
    let id = customer["id"].as_str().unwrap().to_string();
    for code in ["V-1", "V-2"] {
        let cart = json!({"customer_id": id, "code": code, "lines": [{"product_code": "TEA", "quantity": 1, "price": 3.0}]});
        ok(&server, &key, "POST", "/carts/realtime", cart).await;
    }
    let scratched = ok(
        &server,
        &key,
        "POST",
        "/custom_events",
        json!({"customer_id": id, "type": "scratch"}),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/rewards/420/redeem",
        json!({"customer_id": id}),
    )
    .await;
    let played = ok(
        &server,
        &key,
        "POST",
        "/games/502/play",
        json!({"customer_id": id}),
    )
    .await;

    let got: Vec<Value> = receiver
        .wait_for(5, Duration::from_secs(30))
        .await
        .iter()
        .map(|r| serde_json::from_str(&r.body).expect("a JSON body"))
        .collect();
    let types: Vec<&str> = got.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "challenge.completed",
            "prize.won",
            "prize.delivered",
            "game.played",
            "prize.won"
        ],
        "{scratched} {played}"
    );
    let completed = &got[0]["data"];
    assert_eq!(
        (&completed["rule_id"], &completed["completed"]),
        (&json!(701), &json!(true))
    );
    assert_eq!(completed["cart_id"], "V-2");
    assert_eq!(got[1]["data"]["prize_rule_id"], 11);
    assert_eq!(got[2]["data"]["promotion_id"], 11);
    assert!(got[2]["data"]["delivered_at"].is_string());
    assert_eq!(got[3]["data"], played, "the play as the API answers it");
    assert_eq!(got[4]["data"]["prize_rule_id"], 204);
    assert!(got.iter().all(|b| b["data"]["customer_id"] == id.as_str()));
}
