//! The Company the torture runs: points on carts and app events, an Instant
//! Win on carts whose Reward prize has a small stock, a Reward with a stock
//! and a cost, a game played with participations a Reward gives, and a
//! Coupon of single-use Vouchers.

use serde_json::{Value, json};

use crate::torture::client::{Answer, Client};

/// The Company's slug.
pub const COMPANY: &str = "torture";

/// The Instant Win on carts.
pub const INSTANT_WIN: i64 = 3;
/// Plays of the Instant Win a Customer has a day.
pub const ONCE_LIMIT: i64 = 2;
/// The Instant Win's Reward prize and its stock.
pub const PRIZE: &str = "coffee";
/// Units of the Instant Win's Reward prize.
pub const PRIZE_STOCK: i64 = 5;
/// The Reward given as a prize (no cost, no stock of its own).
pub const PRIZE_REWARD: i64 = 11;
/// The Reward redeemed with points, and its stock.
pub const REWARD: i64 = 10;
/// Units of [`REWARD`].
pub const REWARD_STOCK: i64 = 25;
/// What [`REWARD`] costs.
pub const REWARD_COST: i64 = 20;
/// The Reward that gives a play of [`GAME`].
pub const GAME_PASS: i64 = 12;
/// The game.
pub const GAME: i64 = 40;
/// The Coupon of single-use Vouchers.
pub const COUPON: i64 = 30;
/// Vouchers each Customer holds.
pub const VOUCHERS_EACH: u64 = 3;

/// The campaign files: name and text.
pub fn campaign_files() -> Vec<(&'static str, String)> {
    vec![
        (
            "points.yaml",
            "id: 1\nkind: points\nname: A point a euro\non: cart\npoints:\n  per_amount: 1\n".into(),
        ),
        (
            "app.yaml",
            "id: 2\nkind: points\nname: App opened\non: { custom_event: app_open }\npoints:\n  fixed: 3\n"
                .into(),
        ),
        (
            "scratch.yaml",
            format!(
                "id: {INSTANT_WIN}\nkind: instant_win\nname: Scratch\non: cart\nonce: day\nonce_limit: {ONCE_LIMIT}\n\
                 instant_win:\n  instant_win_prizes:\n\
                 \x20   - id: {PRIZE}\n      name: Coffee\n      outcome: {{ promotion_type: reward, promotion_id: {PRIZE_REWARD} }}\n      weight: 0.3\n      stock: {PRIZE_STOCK}\n\
                 \x20   - id: points\n      name: Five points\n      outcome: {{ promotion_type: points, promotion_id: 4 }}\n      weight: 0.2\n\
                 \x20   - id: none\n      name: Nothing\n      weight: 0.5\n"
            ),
        ),
        (
            "prize-points.yaml",
            "id: 4\nkind: points\nname: Prize points\npoints:\n  fixed: 5\n".into(),
        ),
        (
            "prize-coffee.yaml",
            format!("id: {PRIZE_REWARD}\nkind: reward\nname: Prize coffee\n"),
        ),
        (
            "reward.yaml",
            format!(
                "id: {REWARD}\nkind: reward\nname: Tote bag\npoints_cost: {REWARD_COST}\nstock: {REWARD_STOCK}\n"
            ),
        ),
        (
            "game-pass.yaml",
            format!(
                "id: {GAME_PASS}\nkind: reward\nname: A roll\npoints_cost: 5\ngives: {{ game: {GAME} }}\n"
            ),
        ),
        (
            "dice.yaml",
            format!(
                "id: {GAME}\nkind: game\nname: Dice\ninstant_win:\n  instant_win_prizes:\n\
                 \x20   - id: points\n      name: Five points\n      outcome: {{ promotion_type: points, promotion_id: 4 }}\n      weight: 0.5\n\
                 \x20   - id: none\n      name: Nothing\n      weight: 0.5\n"
            ),
        ),
        (
            "coupon.yaml",
            format!(
                "id: {COUPON}\nkind: coupon\nname: Five off\ncoupon:\n  discount: {{ amount: 5 }}\n  code_pattern: T-########\n  uses_per_voucher: 1\n"
            ),
        ),
    ]
}

/// The code of Customer `n`.
pub fn customer_code(n: u64) -> String {
    format!("T{n:04}")
}

/// Sends a seeding write, which must succeed; its answer.
async fn seeded(client: &Client, path: &str, key: &str, body: Value) -> anyhow::Result<Answer> {
    let answer = client.post(path, key, &body).await;
    match answer {
        Some(answer) if answer.succeeded() => Ok(answer),
        other => anyhow::bail!("seeding {key} ({path} {body}): {other:?}"),
    }
}

/// Creates `customers` Customers with points to spend and Vouchers to use;
/// the codes of each one's Vouchers.
pub async fn seed(client: &Client, customers: u64) -> anyhow::Result<Vec<Vec<String>>> {
    let mut vouchers = Vec::new();
    for n in 0..customers {
        let code = customer_code(n);
        let customer = json!({"code": code, "email": format!("t{n}@example.com")});
        seeded(
            client,
            "/customers",
            &format!("seed-customer-{n}"),
            customer,
        )
        .await?;
        let points = json!({"customer_code": code, "points": 300, "description": "seed"});
        seeded(
            client,
            "/scores/trigger",
            &format!("seed-points-{n}"),
            points,
        )
        .await?;
        let mut held = Vec::new();
        for v in 0..VOUCHERS_EACH {
            let trigger = json!({"customer_code": code, "coupon_id": COUPON});
            let issued = seeded(
                client,
                "/discounts/trigger",
                &format!("seed-voucher-{n}-{v}"),
                trigger,
            )
            .await?;
            held.push(
                issued.json()["code"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
        vouchers.push(held);
    }
    Ok(vouchers)
}

/// Creates `count` Customers with points, set aside to be merged; their ids.
pub async fn seed_to_merge(client: &Client, count: usize) -> anyhow::Result<Vec<String>> {
    let mut ids = Vec::new();
    for n in 0..count {
        let customer = json!({"email": format!("m{n}@example.com")});
        let created = seeded(client, "/customers", &format!("seed-merged-{n}"), customer).await?;
        let id = created.json()["id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let points = json!({"customer_id": id, "points": 40, "description": "seed"});
        seeded(
            client,
            "/scores/trigger",
            &format!("seed-merged-points-{n}"),
            points,
        )
        .await?;
        ids.push(id);
    }
    Ok(ids)
}
