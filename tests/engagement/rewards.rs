//! The Rewards catalogue, redemptions and their rollback: the "why not"
//! of each Reward for a Customer, every refusal changing nothing, stock,
//! limits and balances holding under concurrent redemptions, a rollback
//! happening once.

use super::*;

/// Monday 23 November 2026, 10:00 UTC.
pub const MONDAY: &str = "2026-11-23T10:00:00Z";

/// A coffee (100 points, 2 in stock), a tote bag (500, or 300 for the
/// `vip` tier, once a month), a Reward given only as a prize, one for VIPs
/// only, and one that starts next year.
pub const CATALOGUE: [(&str, &str); 6] = [
    (
        "coffee.yaml",
        "id: 401\nkind: reward\nname: { en: Coffee, es: Café }\nimage_url: https://example.com/coffee.png\npoints_cost: 100\nstock: 2\n",
    ),
    (
        "tote.yaml",
        "id: 402\nkind: reward\nname: Tote bag\npoints_cost: 500\npoints_cost_by_tier: { vip: 300 }\nlimit: { count: 1, per: month }\ngives: { item: TOTE-01 }\n",
    ),
    ("prize.yaml", "id: 403\nkind: reward\nname: Mystery gift\n"),
    (
        "lounge.yaml",
        "id: 404\nkind: reward\nname: Lounge pass\nwhen: tier == \"vip\"\npoints_cost: 50\n",
    ),
    (
        "next-year.yaml",
        "id: 405\nkind: reward\nname: Next year\navailable_from: 2027-01-01T00:00:00Z\npoints_cost: 10\n",
    ),
    (
        "segments.yaml",
        "tiers:\n  - id: vip\n    name: VIP\n    condition: customer.email.ends_with(\"@vip.org\")\n",
    ),
];

async fn catalogue_server() -> (TestServer, tempfile::TempDir, CreatedApiKey) {
    let (server, dir) = server_with(&CATALOGUE, MONDAY).await;
    let key = server.bootstrap_key();
    (server, dir, key)
}

fn by_id(list: &Value, id: i64) -> Value {
    list["rewards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|reward| reward["id"] == id)
        .unwrap_or_else(|| panic!("no Reward {id} in {list}"))
        .clone()
}

async fn redeem(
    server: &TestServer,
    key: &CreatedApiKey,
    reward: i64,
    customer: &str,
) -> (u16, Value) {
    server
        .call_as(
            "POST",
            &format!("/rewards/{reward}/redeem"),
            key,
            Some(json!({"customer_id": customer, "location_code": "S1"})),
        )
        .await
}

async fn rollback(server: &TestServer, key: &CreatedApiKey, id: &str) -> (u16, Value) {
    let response = server
        .request_as("POST", &format!("/rewards/transactions/{id}/rollback"), key)
        .header("X-Author-Email", "desk@shop.example")
        .json(&json!({"reason": "changed their mind"}))
        .send()
        .await
        .expect("request sent");
    common::read(response).await
}

#[tokio::test]
async fn the_catalogue_says_for_each_reward_whether_a_customer_can_redeem_it_and_why_not() {
    let (server, _dir, key) = catalogue_server().await;
    let (status, list) = server.get_as("/rewards", &key).await;
    assert_eq!(status, 200, "{list}");
    let ids: Vec<i64> = list["rewards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [401, 402, 403, 404, 405]);
    let coffee = by_id(&list, 401);
    assert_eq!(coffee["points_cost"], 100);
    assert_eq!(coffee["stock"], 2);
    assert_eq!(coffee["stock_left"], 2);
    assert_eq!(coffee["image_url"], "https://example.com/coffee.png");
    assert_eq!(coffee["gives"]["type"], "item");
    assert_eq!(coffee.get("can_redeem"), None, "no Customer, no standing");
    let tote = by_id(&list, 402);
    assert_eq!(tote["limit"], json!({"count": 1, "per": "month"}));
    assert_eq!(tote["points_cost_by_tier"], json!({"vip": 300}));
    assert_eq!(tote["gives"], json!({"type": "item", "item": "TOTE-01"}));
    assert_eq!(by_id(&list, 403).get("points_cost"), None);

    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 300, false).await;
    let (status, list) = server
        .get_as(&format!("/rewards?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{list}");
    let standing = |id: i64| {
        let reward = by_id(&list, id);
        (
            reward["can_redeem"].as_bool().unwrap(),
            reward["reason"].as_str().map(str::to_string),
        )
    };
    assert_eq!(standing(401), (true, None));
    assert_eq!(
        standing(402),
        (false, Some("customer_not_enough_score".into()))
    );
    assert_eq!(standing(403), (false, Some("reward_not_redeemable".into())));
    assert_eq!(standing(404), (false, Some("reward_not_available".into())));
    assert_eq!(standing(405), (false, Some("reward_not_available".into())));
    assert!(
        by_id(&list, 402)["reason_message"]
            .as_str()
            .unwrap()
            .contains("costs 500"),
        "{list}"
    );
    assert_eq!(by_id(&list, 402)["customer_cost"], 500);
    assert_eq!(by_id(&list, 402)["redeemed_in_period"], 0);

    // A VIP pays the tier's price and may have the lounge pass.
    let vera = customer(&server, &key, "vera@vip.org").await;
    credit(&server, &key, &vera, 300, false).await;
    let (status, tote) = server
        .get_as(&format!("/rewards/402?customer_id={vera}"), &key)
        .await;
    assert_eq!(status, 200, "{tote}");
    assert_eq!(
        (tote["customer_cost"].as_i64(), tote["can_redeem"].as_bool()),
        (Some(300), Some(true))
    );
    let (status, lounge) = server
        .get_as(&format!("/rewards/404?customer_id={vera}"), &key)
        .await;
    assert_eq!(
        (status, lounge["can_redeem"].as_bool()),
        (200, Some(true)),
        "{lounge}"
    );
    let (status, paid) = redeem(&server, &key, 402, &vera).await;
    assert_eq!(status, 200, "{paid}");
    assert_eq!(paid["points"], 300);
    assert_eq!(balances(&server, &key, &vera).await, (0, 0));

    let (status, body) = server.get_as("/rewards/999", &key).await;
    assert_error(status, &body, 404, "reward_not_found");
    let (status, body) = server
        .get_as("/rewards/401?customer_id=cus_nobody", &key)
        .await;
    assert_error(status, &body, 404, "customer_not_found");
}

#[tokio::test]
async fn a_redemption_pays_takes_stock_counts_against_the_limit_and_is_listed() {
    let (server, _dir, key) = catalogue_server().await;
    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 1_200, false).await;

    let (status, paid) = redeem(&server, &key, 402, &ana).await;
    assert_eq!(status, 200, "{paid}");
    assert!(paid["id"].as_str().unwrap().starts_with("rwt_"), "{paid}");
    assert_eq!(paid["reward_id"], 402);
    assert_eq!(paid["points"], 500);
    assert_eq!(paid["state"], "redeemed");
    assert_eq!(paid["source"], "redemption");
    assert_eq!(paid["location_code"], "S1");
    assert_eq!(paid["given"], json!({"type": "item", "item": "TOTE-01"}));
    assert_eq!(balances(&server, &key, &ana).await, (700, 0));

    // Once a month: refused, and nothing changes.
    let (status, body) = redeem(&server, &key, 402, &ana).await;
    assert_error(status, &body, 422, "reward_limit_reached");
    assert_eq!(balances(&server, &key, &ana).await, (700, 0));
    let (_, tote) = server
        .get_as(&format!("/rewards/402?customer_id={ana}"), &key)
        .await;
    assert_eq!(
        (tote["can_redeem"].as_bool(), tote["reason"].as_str()),
        (Some(false), Some("reward_limit_reached"))
    );
    assert_eq!(tote["redeemed_in_period"], 1);
    // Next month the limit starts again.
    server.set_time("2026-12-01T09:00:00Z");
    let (status, again) = redeem(&server, &key, 402, &ana).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(balances(&server, &key, &ana).await, (200, 0));

    // Two coffees in stock: the third is refused.
    for _ in 0..2 {
        let (status, body) = redeem(&server, &key, 401, &ana).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = redeem(&server, &key, 401, &ana).await;
    assert_error(status, &body, 422, "reward_out_of_stock");
    assert_eq!(balances(&server, &key, &ana).await, (0, 0));
    let (_, coffee) = server.get_as("/rewards/401", &key).await;
    assert_eq!(coffee["stock_left"], 0);

    // Every other refusal.
    for (reward, code, status_wanted) in [
        (403, "reward_not_redeemable", 422),
        (404, "reward_not_available", 422),
        (405, "reward_not_available", 422),
        (999, "reward_not_found", 404),
    ] {
        let (status, body) = redeem(&server, &key, reward, &ana).await;
        assert_error(status, &body, status_wanted, code);
    }
    let (status, body) = redeem(&server, &key, 401, "cus_nobody").await;
    assert_error(status, &body, 404, "customer_not_found");
    let (status, body) = server
        .call_as("POST", "/rewards/401/redeem", &key, Some(json!({})))
        .await;
    assert_error(status, &body, 400, "invalid_request");

    // Newest first, one page at a time.
    let (status, page) = server
        .get_as(
            &format!("/rewards/transactions?customer_id={ana}&per_page=3"),
            &key,
        )
        .await;
    assert_eq!(status, 200, "{page}");
    let listed = page["reward_transactions"].as_array().unwrap();
    assert_eq!(listed.len(), 3);
    assert_eq!(
        listed
            .iter()
            .map(|t| t["reward_id"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        [401, 401, 402]
    );
    let next = page["next_token_starts_after"].as_str().unwrap();
    let (status, rest) = server
        .get_as(
            &format!("/rewards/transactions?customer_id={ana}&per_page=3&starting_after={next}"),
            &key,
        )
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["reward_transactions"][0]["id"], paid["id"]);
    assert_eq!(rest.get("next_token_starts_after"), None, "{rest}");
}

#[tokio::test]
async fn an_inactive_customer_cannot_redeem() {
    let (server, _dir, key) = catalogue_server().await;
    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 500, false).await;
    let (status, body) = server
        .call_as(
            "PATCH",
            &format!("/customers/{ana}"),
            &key,
            Some(json!({"active": false})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = redeem(&server, &key, 401, &ana).await;
    assert_error(status, &body, 422, "customer_inactive");
    let (_, coffee) = server
        .get_as(&format!("/rewards/401?customer_id={ana}"), &key)
        .await;
    assert_eq!(coffee["reason"], "customer_inactive");
    assert_eq!(balances(&server, &key, &ana).await, (500, 0));
}

#[tokio::test]
async fn a_rollback_gives_the_cost_and_the_stock_back_once() {
    let (server, _dir, key) = catalogue_server().await;
    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 600, false).await;
    let (_, tote) = redeem(&server, &key, 402, &ana).await;
    let (_, coffee) = redeem(&server, &key, 401, &ana).await;
    assert_eq!(balances(&server, &key, &ana).await, (0, 0));

    let (status, back) = rollback(&server, &key, tote["id"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["state"], "rolled_back");
    assert_eq!(back["rolled_back_by"], "desk@shop.example");
    assert_eq!(back["rollback_reason"], "changed their mind");
    assert!(back["rolled_back_at"].is_string(), "{back}");
    assert_eq!(balances(&server, &key, &ana).await, (500, 0));
    // The month's redemption is given back with it.
    let (status, again) = redeem(&server, &key, 402, &ana).await;
    assert_eq!(status, 200, "{again}");

    let (status, back) = rollback(&server, &key, coffee["id"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{back}");
    let (_, read) = server.get_as("/rewards/401", &key).await;
    assert_eq!(read["stock_left"], 2, "the unit is back");

    let (status, body) = rollback(&server, &key, coffee["id"].as_str().unwrap()).await;
    assert_error(status, &body, 422, "reward_transaction_rolled_back");
    assert_eq!(
        balances(&server, &key, &ana).await,
        (100, 0),
        "given back once"
    );
    let (status, body) = rollback(&server, &key, "rwt_nothing").await;
    assert_error(status, &body, 404, "reward_transaction_not_found");

    let (_, listed) = server
        .get_as(&format!("/rewards/transactions?customer_id={ana}"), &key)
        .await;
    let states: Vec<&str> = listed["reward_transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["redeemed", "rolled_back", "rolled_back"]);
}

#[tokio::test]
async fn the_last_unit_raced_by_32_customers_goes_to_exactly_one() {
    let (server, _dir) = server_with(
        &[(
            "last.yaml",
            "id: 410\nkind: reward\nname: Last one\npoints_cost: 10\nstock: 1\n",
        )],
        MONDAY,
    )
    .await;
    let key = &server.bootstrap_key();
    let mut customers = Vec::new();
    for n in 0..32 {
        let id = customer(&server, key, &format!("c{n}@example.org")).await;
        credit(&server, key, &id, 10, false).await;
        customers.push(id);
    }
    let answers = all_at_once(
        customers
            .iter()
            .map(|id| {
                server
                    .request_as("POST", "/rewards/410/redeem", key)
                    .json(&json!({"customer_id": id}))
            })
            .collect(),
    )
    .await;
    let won: Vec<&Value> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .map(|(_, body)| body)
        .collect();
    assert_eq!(won.len(), 1, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(*status, body, 422, "reward_out_of_stock");
    }
    let mut paid = 0;
    for id in &customers {
        paid += 10 - balances(&server, key, id).await.0;
    }
    assert_eq!(paid, 10, "one Customer paid");
}

#[tokio::test]
async fn a_balance_that_pays_for_one_redemption_pays_for_one_of_two_racing() {
    let (server, _dir, key) = catalogue_server().await;
    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 150, false).await;
    let answers = all_at_once(
        (0..2)
            .map(|_| {
                server
                    .request_as("POST", "/rewards/401/redeem", &key)
                    .json(&json!({"customer_id": ana}))
            })
            .collect(),
    )
    .await;
    let statuses: Vec<u16> = answers.iter().map(|(status, _)| *status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{answers:?}"
    );
    let (_, refused) = answers.iter().find(|(status, _)| *status != 200).unwrap();
    assert_eq!(refused["code"], "customer_not_enough_score", "{refused}");
    assert_eq!(balances(&server, &key, &ana).await, (50, 0));
    let (_, coffee) = server.get_as("/rewards/401", &key).await;
    assert_eq!(coffee["stock_left"], 1);
}

#[tokio::test]
async fn a_redemption_sent_twice_with_one_idempotency_key_redeems_once() {
    let (server, _dir, key) = catalogue_server().await;
    let ana = customer(&server, &key, "ana@example.org").await;
    credit(&server, &key, &ana, 300, false).await;
    let send = || {
        server
            .request_as("POST", "/rewards/401/redeem", &key)
            .header("Idempotency-Key", "till-7-0042")
            .json(&json!({"customer_id": ana}))
    };
    let (status, first) = server.send(send()).await;
    assert_eq!(status, 200, "{first}");
    let (status, again) = server.send(send()).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(first, again, "the same answer");
    assert_eq!(balances(&server, &key, &ana).await, (200, 0), "paid once");
    let (_, coffee) = server.get_as("/rewards/401", &key).await;
    assert_eq!(coffee["stock_left"], 1);
}

#[tokio::test]
async fn redemptions_move_with_a_merge_and_back_with_the_unmerge() {
    let (server, _dir, key) = catalogue_server().await;
    let ana = customer(&server, &key, "ana@example.org").await;
    let old = customer(&server, &key, "ana.old@example.org").await;
    credit(&server, &key, &old, 100, false).await;
    let (status, coffee) = redeem(&server, &key, 401, &old).await;
    assert_eq!(status, 200, "{coffee}");
    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": old, "to_customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    let listed = |customer: String| {
        let server = &server;
        let key = &key;
        async move {
            let (status, listed) = server
                .get_as(
                    &format!("/rewards/transactions?customer_id={customer}"),
                    key,
                )
                .await;
            assert_eq!(status, 200, "{listed}");
            listed["reward_transactions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    let id = coffee["id"].as_str().unwrap().to_string();
    assert_eq!(listed(ana.clone()).await, std::slice::from_ref(&id));
    let (status, body) = redeem(&server, &key, 401, &old).await;
    assert_error(status, &body, 422, "customer_inactive");
    // A rollback now gives the cost back to the survivor.
    let (status, unmerged) = server
        .call_as("POST", &format!("/customers/{old}/unmerge"), &key, None)
        .await;
    assert_eq!(status, 200, "{unmerged}");
    assert_eq!(listed(old.clone()).await, std::slice::from_ref(&id));
    assert!(listed(ana.clone()).await.is_empty());
    let (status, back) = rollback(&server, &key, &id).await;
    assert_eq!(status, 200, "{back}");
    assert_eq!(balances(&server, &key, &old).await, (100, 0));
}
