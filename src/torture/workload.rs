//! The mixed write load of a cycle: concurrent clients each sending keyed
//! writes (carts with draws and Vouchers, cancellations, Custom Events,
//! redemptions and transfers of points, Reward redemptions, game plays)
//! and retries of their own, until the server dies under them. Every write
//! is journaled with its key, its request and the answer it got, if any.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::Rng;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::{Value, json};

use crate::torture::client::{Answer, Client};
use crate::torture::company::{GAME, GAME_PASS, REWARD, customer_code};

/// What a write does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operation {
    /// POST /carts/realtime (a third present one of the Customer's Vouchers).
    Cart,
    /// POST /carts/cancellation of one of the client's carts.
    Cancellation,
    /// POST /custom_events.
    CustomEvent,
    /// POST /points/redeem.
    Redemption,
    /// POST /points/transfer.
    Transfer,
    /// POST /rewards/{id}/redeem of the Reward with a stock.
    Reward,
    /// POST /rewards/{id}/redeem of the Reward giving a game play.
    GamePass,
    /// POST /games/{id}/play.
    GamePlay,
    /// POST /vouchers/redeem.
    VoucherRedemption,
    /// POST /customers/transfer of a Customer set aside for merging into one
    /// of the Customers written about.
    Merge,
}

impl Operation {
    /// The path it is sent to.
    pub fn path(self) -> String {
        match self {
            Operation::Cart => "/carts/realtime".into(),
            Operation::Cancellation => "/carts/cancellation".into(),
            Operation::CustomEvent => "/custom_events".into(),
            Operation::Redemption => "/points/redeem".into(),
            Operation::Transfer => "/points/transfer".into(),
            Operation::Reward => format!("/rewards/{REWARD}/redeem"),
            Operation::GamePass => format!("/rewards/{GAME_PASS}/redeem"),
            Operation::GamePlay => format!("/games/{GAME}/play"),
            Operation::VoucherRedemption => "/vouchers/redeem".into(),
            Operation::Merge => "/customers/transfer".into(),
        }
    }
}

/// One keyed write and what became of it.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// What it does.
    pub operation: Operation,
    /// Its Idempotency-Key.
    pub key: String,
    /// Its body.
    pub body: Value,
    /// Its first final answer, once one came (`None`: cut off by a kill).
    pub answer: Option<Answer>,
}

/// Every write of a run and every broken promise seen while sending.
#[derive(Default)]
pub struct Journal {
    /// The writes, in the order they were sent.
    pub attempts: Mutex<Vec<Attempt>>,
    /// What a client saw that must not happen.
    pub violations: Mutex<Vec<String>>,
}

impl Journal {
    fn record(&self, attempt: Attempt) -> usize {
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        attempts.push(attempt);
        attempts.len() - 1
    }

    fn violation(&self, what: String) {
        self.violations
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(what);
    }
}

/// What the clients of a cycle write about.
pub struct Population {
    /// Customers (their codes are [`customer_code`]).
    pub customers: u64,
    /// Their ids, in the same order.
    pub ids: Vec<String>,
    /// Each Customer's Vouchers.
    pub vouchers: Vec<Vec<String>>,
    /// Customers with points set aside to be merged, each once.
    pub to_merge: Vec<String>,
    /// How many of them a merge took.
    pub merged: AtomicUsize,
}

/// One client of cycle `cycle`: sends writes until one gets no answer (the
/// server was killed), retrying one of its own now and then.
pub async fn client(
    (cycle, number): (u32, u32),
    api: Client,
    population: Arc<Population>,
    journal: Arc<Journal>,
    seed: u64,
) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut mine: Vec<usize> = Vec::new();
    let mut carts: Vec<String> = Vec::new();
    for n in 0.. {
        let retry = !mine.is_empty() && rng.random_bool(0.08);
        let (operation, key, body) = if retry {
            let index = mine[rng.random_range(0..mine.len())];
            let attempts = journal.attempts.lock().unwrap_or_else(|e| e.into_inner());
            let earlier = &attempts[index];
            (earlier.operation, earlier.key.clone(), earlier.body.clone())
        } else {
            let key = format!("c{cycle}-{number}-{n}");
            let picked = pick(&mut rng, !carts.is_empty());
            let (operation, body) = request(picked, &mut rng, &population, &carts, &key);
            (operation, key, body)
        };
        let Some(answer) = api.post(&operation.path(), &key, &body).await else {
            if !retry {
                journal.record(Attempt {
                    operation,
                    key,
                    body,
                    answer: None,
                });
            }
            return;
        };
        if retry {
            let first = {
                let attempts = journal.attempts.lock().unwrap_or_else(|e| e.into_inner());
                attempts
                    .iter()
                    .find(|attempt| attempt.key == key)
                    .and_then(|attempt| attempt.answer.clone())
            };
            if let Some(first) = first.filter(is_final)
                && (!answer.replayed || answer.body != first.body || answer.status != first.status)
            {
                journal.violation(format!(
                    "retry of {key} ({operation:?}) answered {} {} (replayed: {}), not its first answer {} {}",
                    answer.status, answer.body, answer.replayed, first.status, first.body
                ));
            }
            continue;
        }
        if operation == Operation::Cart && answer.succeeded() {
            carts.push(body["code"].as_str().unwrap_or_default().to_string());
        }
        let index = journal.record(Attempt {
            operation,
            key,
            body,
            answer: Some(answer).filter(is_final),
        });
        mine.push(index);
    }
}

/// Whether `answer` is the one its key keeps (not a transient refusal).
pub fn is_final(answer: &Answer) -> bool {
    crate::http::idempotency::is_final_answer(answer.status, &answer.body)
}

fn pick(rng: &mut StdRng, has_carts: bool) -> Operation {
    let roll = rng.random_range(0..100);
    match roll {
        0..40 => Operation::Cart,
        40..48 if has_carts => Operation::Cancellation,
        40..48 => Operation::Cart,
        48..58 => Operation::CustomEvent,
        58..68 => Operation::Redemption,
        68..76 => Operation::Transfer,
        76..83 => Operation::Reward,
        83..88 => Operation::GamePass,
        88..94 => Operation::GamePlay,
        94..97 => Operation::VoucherRedemption,
        _ => Operation::Merge,
    }
}

/// What `operation` sends, and the operation (a merge when none is left to
/// merge becomes a cart).
fn request(
    operation: Operation,
    rng: &mut StdRng,
    population: &Population,
    carts: &[String],
    key: &str,
) -> (Operation, Value) {
    if operation == Operation::Merge {
        if let Some(body) = merge(rng, population) {
            return (operation, body);
        }
        return request(Operation::Cart, rng, population, carts, key);
    }
    let n = rng.random_range(0..population.customers);
    let customer = customer_code(n);
    let voucher = |rng: &mut StdRng| {
        let held = &population.vouchers[n as usize];
        held[rng.random_range(0..held.len())].clone()
    };
    let body = match operation {
        Operation::Cart => {
            let lines: Vec<Value> = (0..rng.random_range(1..4))
                .map(|_| {
                    json!({
                        "product_code": format!("P{}", rng.random_range(1..20)),
                        "quantity": rng.random_range(1..4),
                        "price": f64::from(rng.random_range(100..2_000_i32)) / 100.0,
                    })
                })
                .collect();
            let mut cart =
                json!({"customer_code": customer, "code": key.to_uppercase(), "lines": lines});
            if rng.random_bool(0.3) {
                cart["coupons_desired"] = json!([voucher(rng)]);
            }
            cart
        }
        Operation::Cancellation => {
            json!({"cart_id": carts[rng.random_range(0..carts.len())]})
        }
        Operation::CustomEvent => json!({"customer_code": customer, "type": "app_open"}),
        Operation::Redemption => {
            json!({"customer_code": customer, "points": rng.random_range(1..15)})
        }
        Operation::Transfer => json!({
            "from_customer_code": customer,
            "to_customer_code": customer_code((n + 1) % population.customers),
            "points": rng.random_range(1..10),
        }),
        Operation::Reward | Operation::GamePass | Operation::GamePlay => {
            json!({"customer_code": customer})
        }
        Operation::VoucherRedemption => json!({
            "customer_code": customer,
            "codes": [voucher(rng)],
        }),
        // Made above.
        Operation::Merge => Value::Null,
    };
    (operation, body)
}

/// A merge of the next Customer set aside into one written about; `None`
/// when every one set aside was merged.
fn merge(rng: &mut StdRng, population: &Population) -> Option<Value> {
    let next = population.merged.fetch_add(1, Ordering::Relaxed);
    let from = population.to_merge.get(next)?;
    let into = &population.ids[rng.random_range(0..population.ids.len())];
    Some(json!({"from_customer_id": from, "to_customer_id": into}))
}
