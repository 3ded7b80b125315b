//! Rewards against a model: random sequences of redemptions, rollbacks and
//! credits by two Customers. After every step the stock left plus the
//! units redeemed and not rolled back is the stock, each balance is what the
//! model says, and each balance equals the sum of its ledger entries.

use proptest::prelude::*;

use super::rewards::MONDAY;
use super::*;

/// Stock of the limited Reward (401).
const STOCK: i64 = 3;
/// Its cost, its limit per Customer and the wallet cents it gives.
const LIMITED: (i64, i64, i64) = (40, 2, 10);
/// The cost of the unlimited Reward (402).
const UNLIMITED_COST: i64 = 25;

const FILES: [(&str, &str); 2] = [
    (
        "limited.yaml",
        "id: 401\nkind: reward\nname: Limited\npoints_cost: 40\nstock: 3\nlimit: { count: 2, per: campaign }\ngives: { points: 10, balance: wallet }\n",
    ),
    (
        "unlimited.yaml",
        "id: 402\nkind: reward\nname: Unlimited\npoints_cost: 25\n",
    ),
];

#[derive(Debug, Clone)]
enum Op {
    Redeem { customer: usize, limited: bool },
    Rollback(usize),
    Credit { customer: usize, points: i64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..2usize, any::<bool>()).prop_map(|(customer, limited)| Op::Redeem { customer, limited }),
        2 => (0..8usize).prop_map(Op::Rollback),
        1 => (0..2usize, 1..60i64).prop_map(|(customer, points)| Op::Credit { customer, points }),
    ]
}

#[derive(Debug, Clone, Default)]
struct ModelCustomer {
    points: i64,
    wallet: i64,
    limited_redeemed: i64,
}

#[derive(Debug, Clone)]
struct ModelTransaction {
    id: String,
    customer: usize,
    limited: bool,
    rolled_back: bool,
}

/// The refusal the model expects for a redemption, if any.
fn refusal(customer: &ModelCustomer, limited: bool, taken: i64) -> Option<&'static str> {
    let (cost, limit, _) = LIMITED;
    if limited {
        if taken >= STOCK {
            return Some("reward_out_of_stock");
        }
        if customer.limited_redeemed >= limit {
            return Some("reward_limit_reached");
        }
        (customer.points < cost).then_some("customer_not_enough_score")
    } else {
        (customer.points < UNLIMITED_COST).then_some("customer_not_enough_score")
    }
}

async fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let (server, _dir) = server_with(&FILES, MONDAY).await;
    let key = server.bootstrap_key();
    let mut ids = Vec::new();
    let mut customers = Vec::new();
    for n in 0..2 {
        let id = customer(&server, &key, &format!("c{n}@example.org")).await;
        credit(&server, &key, &id, 100, false).await;
        ids.push(id);
        customers.push(ModelCustomer {
            points: 100,
            ..ModelCustomer::default()
        });
    }
    let mut taken = 0;
    let mut transactions: Vec<ModelTransaction> = Vec::new();
    for (step, op) in ops.into_iter().enumerate() {
        match op {
            Op::Redeem { customer, limited } => {
                let reward = if limited { 401 } else { 402 };
                let (status, body) = server
                    .call_as(
                        "POST",
                        &format!("/rewards/{reward}/redeem"),
                        &key,
                        Some(json!({"customer_id": ids[customer]})),
                    )
                    .await;
                let model = &mut customers[customer];
                match refusal(model, limited, taken) {
                    Some(code) => {
                        prop_assert_eq!(
                            (status, body["code"].as_str()),
                            (422, Some(code)),
                            "step {}: {}",
                            step,
                            body
                        );
                    }
                    None => {
                        prop_assert_eq!(status, 200, "step {}: {}", step, body);
                        if limited {
                            model.points -= LIMITED.0;
                            model.wallet += LIMITED.2;
                            model.limited_redeemed += 1;
                            taken += 1;
                        } else {
                            model.points -= UNLIMITED_COST;
                        }
                        transactions.push(ModelTransaction {
                            id: body["id"].as_str().unwrap().to_string(),
                            customer,
                            limited,
                            rolled_back: false,
                        });
                    }
                }
            }
            Op::Rollback(index) => {
                if transactions.is_empty() {
                    continue;
                }
                let count = transactions.len();
                let transaction = &mut transactions[index % count];
                let (status, body) = server
                    .call_as(
                        "POST",
                        &format!("/rewards/transactions/{}/rollback", transaction.id),
                        &key,
                        Some(json!({})),
                    )
                    .await;
                let model = &mut customers[transaction.customer];
                if transaction.rolled_back {
                    prop_assert_eq!(
                        (status, body["code"].as_str()),
                        (422, Some("reward_transaction_rolled_back")),
                        "step {}: {}",
                        step,
                        body
                    );
                } else if transaction.limited && model.wallet < LIMITED.2 {
                    prop_assert_eq!(
                        (status, body["code"].as_str()),
                        (422, Some("reward_gift_used")),
                        "step {}: {}",
                        step,
                        body
                    );
                } else {
                    prop_assert_eq!(status, 200, "step {}: {}", step, body);
                    transaction.rolled_back = true;
                    if transaction.limited {
                        model.points += LIMITED.0;
                        model.wallet -= LIMITED.2;
                        model.limited_redeemed -= 1;
                        taken -= 1;
                    } else {
                        model.points += UNLIMITED_COST;
                    }
                }
            }
            Op::Credit { customer, points } => {
                credit(&server, &key, &ids[customer], points, false).await;
                customers[customer].points += points;
            }
        }
        let (_, limited) = server.get_as("/rewards/401", &key).await;
        let redeemed_kept = transactions
            .iter()
            .filter(|t| t.limited && !t.rolled_back)
            .count() as i64;
        prop_assert_eq!(
            limited["stock_left"].as_i64().unwrap() + redeemed_kept,
            STOCK,
            "step {}",
            step
        );
        for (id, model) in ids.iter().zip(&customers) {
            prop_assert_eq!(
                balances(&server, &key, id).await,
                (model.points, model.wallet),
                "step {}",
                step
            );
        }
    }
    for id in &ids {
        let (status, ledger) = server
            .get_as(
                &format!("/points/transactions?customer_id={id}&per_page=100"),
                &key,
            )
            .await;
        prop_assert_eq!(status, 200, "{}", ledger);
        let sum = |kind: &str| -> i64 {
            ledger["transactions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|entry| entry["kind"] == kind)
                .map(|entry| entry["points"].as_i64().unwrap())
                .sum()
        };
        prop_assert!(
            ledger.get("next_token_starts_after").is_none(),
            "one page holds it"
        );
        prop_assert_eq!(
            (sum("points"), sum("wallet")),
            balances(&server, &key, id).await
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn any_sequence_keeps_stock_and_balances_as_the_model_says(
        ops in prop::collection::vec(op(), 1..25),
    ) {
        let runtime = common::proptest_runtime();
        runtime.block_on(run(ops))?;
    }
}
