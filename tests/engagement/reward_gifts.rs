//! What a Reward gives: a Voucher of a Coupon (usable in a cart, voided by
//! a rollback, which is refused once it was used), points (taken back by a
//! rollback unless spent) and a game participation.

use super::rewards::MONDAY;
use super::*;

const GIFTS: [(&str, &str); 5] = [
    (
        "coupon.yaml",
        "id: 31\nkind: coupon\nname: Five off\ncoupon:\n  discount: { amount: 5 }\n  code_pattern: RWD-######\n",
    ),
    (
        "voucher-reward.yaml",
        "id: 420\nkind: reward\nname: Five off your next basket\npoints_cost: 200\ngives: { voucher: { coupon: 31 } }\n",
    ),
    (
        "wallet-reward.yaml",
        "id: 421\nkind: reward\nname: Points to wallet\npoints_cost: 100\ngives: { points: 250, balance: wallet }\n",
    ),
    (
        "spin-reward.yaml",
        "id: 422\nkind: reward\nname: A spin\npoints_cost: 30\ngives: { game: 501 }\n",
    ),
    ("wheel.yaml", "id: 501\nkind: game\nname: Wheel\n"),
];

async fn redeem_ok(server: &TestServer, key: &CreatedApiKey, reward: i64, customer: &str) -> Value {
    let (status, body) = server
        .call_as(
            "POST",
            &format!("/rewards/{reward}/redeem"),
            key,
            Some(json!({"customer_id": customer})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn rollback(server: &TestServer, key: &CreatedApiKey, id: &Value) -> (u16, Value) {
    server
        .call_as(
            "POST",
            &format!("/rewards/transactions/{}/rollback", id.as_str().unwrap()),
            key,
            Some(json!({})),
        )
        .await
}

#[tokio::test]
async fn a_voucher_reward_issues_a_voucher_that_a_rollback_voids_unless_it_was_used() {
    let (server, _dir) = server_with(&GIFTS, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 400, false).await;

    let first = redeem_ok(&server, &key, 420, &ana).await;
    let code = first["given"]["voucher_code"].as_str().unwrap().to_string();
    assert!(code.starts_with("RWD-"), "{first}");
    assert_eq!(first["given"]["coupon_id"], 31);
    let (status, voucher) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{voucher}");
    assert_eq!(
        (voucher["source"].as_str(), voucher["state"].as_str()),
        (Some("reward"), Some("active"))
    );

    let (status, back) = rollback(&server, &key, &first["id"]).await;
    assert_eq!(status, 200, "{back}");
    let (status, voided) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_error(status, &voided, 422, "voucher_inactive");
    assert_eq!(balances(&server, &key, &ana).await, (400, 0));

    // Used in a cart, the Voucher can no longer be taken back.
    let second = redeem_ok(&server, &key, 420, &ana).await;
    let code = second["given"]["voucher_code"].as_str().unwrap();
    let (status, cart) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(json!({
                "customer_id": ana, "code": "T-1",
                "lines": [{"product_code": "A", "quantity": 1, "price": 20}],
                "coupons_desired": [code],
            })),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(cart["cart"]["discount_total"], 5.0, "{cart}");
    let (status, body) = rollback(&server, &key, &second["id"]).await;
    assert_error(status, &body, 422, "reward_gift_used");
    assert_eq!(
        balances(&server, &key, &ana).await.0,
        200,
        "nothing given back"
    );
    let (_, listed) = server
        .get_as(&format!("/rewards/transactions?customer_id={ana}"), &key)
        .await;
    assert_eq!(listed["reward_transactions"][0]["state"], "redeemed");
}

#[tokio::test]
async fn a_points_reward_credits_its_balance_and_a_rollback_takes_them_back_unless_spent() {
    let (server, _dir) = server_with(&GIFTS, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 200, false).await;
    let first = redeem_ok(&server, &key, 421, &ana).await;
    assert_eq!(
        first["given"],
        json!({"type": "points", "points": 250, "balance": "wallet"})
    );
    assert_eq!(balances(&server, &key, &ana).await, (100, 250));
    let (status, back) = rollback(&server, &key, &first["id"]).await;
    assert_eq!(status, 200, "{back}");
    assert_eq!(balances(&server, &key, &ana).await, (200, 0));

    let second = redeem_ok(&server, &key, 421, &ana).await;
    let (status, spent) = server
        .call_as(
            "POST",
            "/points/redeem",
            &key,
            Some(json!({"customer_id": ana, "points": 200, "kind": "wallet"})),
        )
        .await;
    assert_eq!(status, 200, "{spent}");
    let (status, body) = rollback(&server, &key, &second["id"]).await;
    assert_error(status, &body, 422, "reward_gift_used");
    assert_eq!(
        balances(&server, &key, &ana).await,
        (100, 50),
        "nothing moved"
    );
}

#[tokio::test]
async fn a_game_reward_gives_a_participation() {
    let (server, _dir) = server_with(&GIFTS, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 100, false).await;
    let spin = redeem_ok(&server, &key, 422, &ana).await;
    assert_eq!(spin["given"], json!({"type": "game", "game_id": 501}));
    let (status, games) = server
        .get_as(&format!("/games?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{games}");
    assert_eq!(games["games"][0]["available_participations"], 1, "{games}");
    let (status, back) = rollback(&server, &key, &spin["id"]).await;
    assert_eq!(status, 200, "{back}");
    let (_, games) = server
        .get_as(&format!("/games?customer_id={ana}"), &key)
        .await;
    assert_eq!(games["games"][0]["available_participations"], 0, "{games}");
    assert_eq!(balances(&server, &key, &ana).await, (100, 0));
}

#[tokio::test]
async fn a_reward_naming_a_campaign_that_is_not_there_is_refused_at_load_with_its_line() {
    let engine = loyalty::engine::script::ScriptEngine::new();
    let files = vec![(
        std::path::PathBuf::from("r.yaml"),
        "id: 430\nkind: reward\nname: R\npoints_cost: 5\ngives: { game: 77 }\n".to_string(),
    )];
    let errors = loyalty::engine::campaign::Campaign::load_all(&engine, &files).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].line, 5);
    assert!(errors[0].to_string().contains("game 77"), "{}", errors[0]);
}

/// Reads `customer`'s reward transactions until `count` are there (prizes
/// are delivered right after the event).
async fn transactions(
    server: &TestServer,
    key: &CreatedApiKey,
    customer: &str,
    count: usize,
) -> Vec<Value> {
    for _ in 0..200 {
        let (status, body) = server
            .get_as(
                &format!("/rewards/transactions?customer_id={customer}"),
                key,
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let listed = body["reward_transactions"].as_array().unwrap().clone();
        if listed.len() >= count {
            return listed;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{count} reward transactions never arrived");
}

#[tokio::test]
async fn a_reward_won_or_earned_gives_what_it_gives() {
    let mut files = GIFTS.to_vec();
    files.push((
        "visit-draw.yaml",
        "id: 301\nkind: instant_win\nname: Visit draw\non: { custom_event: visit }\nselect_customers: loyalty\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - { id: wallet, name: Wallet points, outcome: { promotion_type: reward, promotion_id: 421 }, weight: 1 }\n",
    ));
    files.push((
        "visit-voucher.yaml",
        "id: 302\nkind: instant_win\nname: Voucher draw\non: { custom_event: visit }\nselect_customers: loyalty\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - { id: voucher, name: Five off, outcome: { promotion_type: reward, promotion_id: 420 }, weight: 1 }\n",
    ));
    files.push((
        "two-visits.yaml",
        "id: 601\nkind: challenge\nname: Two visits\non: { custom_event: visit }\ngoal: { count: 2 }\nreward: { reward: 421 }\n",
    ));
    let (server, _dir) = server_with(&files, MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    let visit = || {
        server.call_as(
            "POST",
            "/custom_events",
            &key,
            Some(json!({"customer_id": ana, "type": "visit"})),
        )
    };
    let (status, answer) = visit().await;
    assert_eq!(status, 200, "{answer}");
    let won = transactions(&server, &key, &ana, 2).await;
    let given: Vec<&str> = won
        .iter()
        .map(|t| t["given"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(given.len(), 2, "{won:?}");
    assert!(
        given.contains(&"points") && given.contains(&"voucher"),
        "{won:?}"
    );
    assert!(
        won.iter()
            .all(|t| t["source"] == "instant_win" && t["state"] == "available")
    );
    assert_eq!(
        balances(&server, &key, &ana).await,
        (0, 250),
        "the wallet Reward credits"
    );
    let voucher = won
        .iter()
        .find(|t| t["given"]["type"] == "voucher")
        .unwrap();
    let code = voucher["given"]["voucher_code"].as_str().unwrap();
    let (status, held) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{held}");
    assert_eq!(held["customer_id"], ana.as_str(), "{held}");

    // The second visit completes the Challenge: its Reward gives at once.
    server.set_time("2026-11-24T10:00:00Z");
    let (status, answer) = visit().await;
    assert_eq!(status, 200, "{answer}");
    let challenge = answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "challenge")
        .unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(challenge["granted"]["reward_id"], 421, "{answer}");
    let all = transactions(&server, &key, &ana, 5).await;
    let earned = all.iter().find(|t| t["source"] == "challenge").unwrap();
    assert_eq!(earned["given"]["points"], 250, "{earned}");
    // 250 won on Monday, 250 won again on Tuesday, 250 for the Challenge.
    assert_eq!(balances(&server, &key, &ana).await, (0, 750));
}
