//! What must hold after every restart, read from the API alone: cut-off
//! writes retried with their key go through (their key is not held by the
//! dead server), every answered write replays its first answer byte for
//! byte and is present, balances equal their ledgers and are never
//! negative, stock is never exceeded, every prize won is delivered exactly
//! once, a single-use Voucher is redeemed once, no Customer plays the
//! Instant Win more than its daily limit, and every game play used a
//! participation given, and every merge answered is in place.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::torture::client::Client;
use crate::torture::company::{
    GAME, INSTANT_WIN, ONCE_LIMIT, PRIZE, PRIZE_REWARD, PRIZE_STOCK, REWARD, REWARD_STOCK,
};
use crate::torture::workload::{Journal, Operation, is_final};

/// What the checks after one restart saw.
#[derive(Debug, Default, Clone)]
pub struct Checked {
    /// Cut-off writes retried with their key.
    pub retried: usize,
    /// Answered writes whose retry replayed the first answer.
    pub replayed: usize,
    /// Customers whose balance was checked against their ledger.
    pub balances: usize,
    /// Units of the Reward redeemed, of its stock.
    pub rewards_redeemed: i64,
    /// Units of the Instant Win's Reward prize won, of its stock.
    pub prizes_won: i64,
    /// Vouchers redeemed (at most once each).
    pub vouchers_redeemed: usize,
    /// Merges in place.
    pub merges: usize,
    /// Broken promises.
    pub violations: Vec<String>,
}

/// Runs every check on the server `api` answers for; `customers` are the
/// Customers' ids, `verified` how many attempts of the journal were
/// replay-checked before (each is replayed once, after the first restart
/// that follows it).
pub async fn after_restart(
    api: &Client,
    journal: &Journal,
    customers: &[String],
    verified: &mut usize,
) -> anyhow::Result<Checked> {
    let mut checked = Checked::default();
    retry_cut_off(api, journal, &mut checked).await;
    replay(api, journal, verified, &mut checked).await;
    let merged = merges(api, journal, &mut checked).await?;
    let every: Vec<String> = customers.iter().cloned().chain(merged).collect();
    let ledgers = ledgers(api, &every, &mut checked).await?;
    operations_present(api, journal, &ledgers, &mut checked).await?;
    stock(api, journal, customers, &mut checked).await?;
    games(api, journal, customers, &mut checked).await?;
    vouchers_and_draws(journal, &mut checked);
    Ok(checked)
}

fn attempts(
    journal: &Journal,
) -> std::sync::MutexGuard<'_, Vec<crate::torture::workload::Attempt>> {
    journal.attempts.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sends again, with its key, every write the kill cut off: it must run (or
/// replay what ran) at once, its key not held by the dead server.
async fn retry_cut_off(api: &Client, journal: &Journal, checked: &mut Checked) {
    let cut_off: Vec<(usize, Operation, String, Value)> = attempts(journal)
        .iter()
        .enumerate()
        .filter(|(_, attempt)| attempt.answer.is_none())
        .map(|(index, a)| (index, a.operation, a.key.clone(), a.body.clone()))
        .collect();
    for (index, operation, key, body) in cut_off {
        checked.retried += 1;
        let mut last = None;
        for _ in 0..5 {
            let answer = api.post(&operation.path(), &key, &body).await;
            match answer {
                Some(answer) if answer.json()["code"] == "idempotency_key_in_use" => {
                    checked.violations.push(format!(
                        "{key} ({operation:?}) is still held after the restart: {}",
                        answer.body
                    ));
                    break;
                }
                Some(answer) if is_final(&answer) => {
                    attempts(journal)[index].answer = Some(answer);
                    last = None;
                    break;
                }
                // Busy for a moment: the same key again.
                other => last = Some(other),
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        if let Some(other) = last {
            checked.violations.push(format!(
                "{key} ({operation:?}) retried after the restart got {other:?}"
            ));
        }
    }
}

/// Retries every answered write not replay-checked yet: the first answer
/// must come back, byte for byte, as a replay.
async fn replay(api: &Client, journal: &Journal, verified: &mut usize, checked: &mut Checked) {
    let unverified: Vec<_> = attempts(journal)[*verified..]
        .iter()
        .filter_map(|a| {
            Some((
                a.operation,
                a.key.clone(),
                a.body.clone(),
                a.answer.clone()?,
            ))
        })
        .collect();
    let total = attempts(journal).len();
    for (operation, key, body, first) in unverified {
        match api.post(&operation.path(), &key, &body).await {
            Some(again)
                if again.replayed && again.status == first.status && again.body == first.body =>
            {
                checked.replayed += 1
            }
            other => checked.violations.push(format!(
                "{key} ({operation:?}) first answered {} {}, after the restart {other:?}",
                first.status, first.body
            )),
        }
    }
    *verified = total;
}

/// Each Customer's ledger (every entry, oldest last), checked against the
/// balance: equal to the sum, never negative.
async fn ledgers(
    api: &Client,
    customers: &[String],
    checked: &mut Checked,
) -> anyhow::Result<Vec<Value>> {
    let mut every = Vec::new();
    for customer in customers {
        let balance = api.read(&format!("/customers/{customer}/points")).await?["points"]
            .as_i64()
            .unwrap_or(i64::MIN);
        let mut sum = 0;
        let mut after: Option<String> = None;
        loop {
            let mut path = format!("/points/transactions?customer_id={customer}&per_page=100");
            if let Some(after) = &after {
                path.push_str(&format!("&starting_after={after}"));
            }
            let page = api.read(&path).await?;
            for entry in page["transactions"].as_array().into_iter().flatten() {
                if entry["kind"] == "points" {
                    sum += entry["points"].as_i64().unwrap_or(0);
                }
                every.push(entry.clone());
            }
            match page["next_token_starts_after"].as_str() {
                Some(next) => after = Some(next.to_string()),
                None => break,
            }
        }
        if balance < 0 || balance != sum {
            checked.violations.push(format!(
                "Customer {customer}: balance {balance}, its ledger sums to {sum}"
            ));
        }
        checked.balances += 1;
    }
    Ok(every)
}

/// Every answered write is present, once: a redemption's entry, a
/// transfer's two, a Reward's cost; a cart is stored.
async fn operations_present(
    api: &Client,
    journal: &Journal,
    ledger: &[Value],
    checked: &mut Checked,
) -> anyhow::Result<()> {
    let mut entries: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in ledger {
        if let Some(operation) = entry["operation_id"].as_str() {
            *entries.entry(operation).or_default() += 1;
        }
    }
    let answered: Vec<(Operation, String, Value)> = attempts(journal)
        .iter()
        .filter_map(|a| {
            let answer = a.answer.as_ref().filter(|answer| answer.succeeded())?;
            Some((a.operation, a.key.clone(), answer.json()))
        })
        .collect();
    for (operation, key, answer) in answered {
        let (id, expected) = match operation {
            Operation::Redemption => (answer["operation_id"].as_str(), 1),
            Operation::Transfer => (answer["operation_id"].as_str(), 2),
            Operation::Reward => (answer["id"].as_str(), 1),
            Operation::Cart => {
                let code = answer["cart"]["id"].as_str().unwrap_or_default();
                if api.get(&format!("/carts/{code}")).await.map(|a| a.status) != Some(200) {
                    checked
                        .violations
                        .push(format!("{key}: cart {code} was answered but is not stored"));
                }
                continue;
            }
            _ => continue,
        };
        let id = id.unwrap_or_default();
        let found = entries.get(id).copied().unwrap_or(0);
        if found != expected {
            checked.violations.push(format!(
                "{key} ({operation:?}) {id}: {found} ledger entries, not {expected}"
            ));
        }
    }
    Ok(())
}

/// Every merge answered is in place: the Customer merged is inactive and
/// names its target. The Customers merged.
async fn merges(
    api: &Client,
    journal: &Journal,
    checked: &mut Checked,
) -> anyhow::Result<Vec<String>> {
    let answered: Vec<(String, Value)> = attempts(journal)
        .iter()
        .filter(|a| a.operation == Operation::Merge)
        .filter_map(|a| {
            a.answer.as_ref().filter(|answer| answer.succeeded())?;
            Some((a.key.clone(), a.body.clone()))
        })
        .collect();
    let mut merged = Vec::new();
    for (key, body) in answered {
        let from = body["from_customer_id"].as_str().unwrap_or_default();
        let customer = api.read(&format!("/customers/{from}")).await?;
        if customer["active"] != false || customer["merged_into"] != body["to_customer_id"] {
            checked.violations.push(format!(
                "{key}: {from} was merged into {}, but reads {customer}",
                body["to_customer_id"]
            ));
        }
        merged.push(from.to_string());
    }
    checked.merges = merged.len();
    Ok(merged)
}

/// The Customers' Reward transactions.
async fn reward_transactions(api: &Client, customers: &[String]) -> anyhow::Result<Vec<Value>> {
    let mut every = Vec::new();
    for customer in customers {
        let mut after: Option<String> = None;
        loop {
            let mut path = format!("/rewards/transactions?customer_id={customer}&per_page=100");
            if let Some(after) = &after {
                path.push_str(&format!("&starting_after={after}"));
            }
            let page = api.read(&path).await?;
            every.extend(
                page["reward_transactions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .cloned(),
            );
            match page["next_token_starts_after"].as_str() {
                Some(next) => after = Some(next.to_string()),
                None => break,
            }
        }
    }
    Ok(every)
}

/// How many writes of `operation` succeeded, by the Customer their answer
/// names at `customer` (a JSON pointer).
fn successes_by_customer(
    journal: &Journal,
    operation: Operation,
    customer: &str,
) -> BTreeMap<String, i64> {
    let mut counted = BTreeMap::new();
    for attempt in attempts(journal).iter() {
        if attempt.operation != operation {
            continue;
        }
        if let Some(answer) = attempt.answer.as_ref().filter(|a| a.succeeded()) {
            let id = answer
                .json()
                .pointer(customer)
                .and_then(Value::as_str)
                .map(str::to_string);
            *counted.entry(id.unwrap_or_default()).or_default() += 1;
        }
    }
    counted
}

/// Every game play used a participation a Reward gave: for each Customer,
/// the plays left are exactly the passes redeemed less the plays answered.
async fn games(
    api: &Client,
    journal: &Journal,
    customers: &[String],
    checked: &mut Checked,
) -> anyhow::Result<()> {
    let passes = successes_by_customer(journal, Operation::GamePass, "/customer_id");
    let plays = successes_by_customer(journal, Operation::GamePlay, "/customer_id");
    for customer in customers {
        let game = api
            .read(&format!("/games/{GAME}?customer_id={customer}"))
            .await?;
        let left = game["participations_left"].as_i64().unwrap_or(-1);
        let (given, used) = (
            passes.get(customer).copied().unwrap_or(0),
            plays.get(customer).copied().unwrap_or(0),
        );
        if left != given - used || used > given {
            checked.violations.push(format!(
                "Customer {customer}: {given} game passes and {used} plays answered, {left} plays left"
            ));
        }
    }
    Ok(())
}

/// Stock never exceeded, and every Reward redemption answered is there
/// once; every prize won delivered once (the delivery outbox is given a few
/// seconds to catch up after a restart).
async fn stock(
    api: &Client,
    journal: &Journal,
    customers: &[String],
    checked: &mut Checked,
) -> anyhow::Result<()> {
    let reward = api.read(&format!("/rewards/{REWARD}")).await?;
    let left = reward["stock_left"].as_i64().unwrap_or(-1);
    let transactions = reward_transactions(api, customers).await?;
    let redeemed = transactions
        .iter()
        .filter(|t| t["reward_id"] == REWARD && t["state"] == "redeemed")
        .count() as i64;
    let answered: i64 = successes_by_customer(journal, Operation::Reward, "/customer_id")
        .values()
        .sum();
    if left < 0
        || redeemed > REWARD_STOCK
        || redeemed != REWARD_STOCK - left
        || redeemed != answered
    {
        checked.violations.push(format!(
            "Reward {REWARD}: {redeemed} redeemed ({answered} answered), {left} of {REWARD_STOCK} left"
        ));
    }
    checked.rewards_redeemed = redeemed;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let campaign = api.read(&format!("/instant_wins/{INSTANT_WIN}")).await?;
        let prize_left = campaign["instant_win"]["instant_win_prizes"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|prize| prize["id"] == PRIZE)
            .and_then(|prize| prize["stock"].as_i64())
            .unwrap_or(-1);
        let won = PRIZE_STOCK - prize_left;
        let delivered = reward_transactions(api, customers)
            .await?
            .iter()
            .filter(|t| t["reward_id"] == PRIZE_REWARD)
            .count() as i64;
        checked.prizes_won = won;
        if prize_left < 0 || delivered > won {
            checked.violations.push(format!(
                "prize {PRIZE}: {won} won of {PRIZE_STOCK}, {delivered} delivered"
            ));
            return Ok(());
        }
        if delivered == won {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            checked.violations.push(format!(
                "prize {PRIZE}: {won} won, only {delivered} delivered 20 s after the restart"
            ));
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A single-use Voucher is redeemed at most once; a Customer draws the
/// Instant Win at most its daily limit (counted from the answers).
fn vouchers_and_draws(journal: &Journal, checked: &mut Checked) {
    let mut redeemed: BTreeMap<String, usize> = BTreeMap::new();
    let mut draws: BTreeMap<(String, String), i64> = BTreeMap::new();
    for attempt in attempts(journal).iter() {
        let Some(answer) = attempt.answer.as_ref().filter(|a| a.succeeded()) else {
            continue;
        };
        let answer = answer.json();
        match attempt.operation {
            Operation::VoucherRedemption => {
                for redemption in answer["redemptions"].as_array().into_iter().flatten() {
                    let code = redemption["voucher_code"].as_str().unwrap_or_default();
                    *redeemed.entry(code.to_string()).or_default() += 1;
                }
            }
            Operation::Cart => {
                let cart = &answer["cart"];
                let day = cart["date"]
                    .as_str()
                    .unwrap_or_default()
                    .get(..10)
                    .unwrap_or_default();
                let played = answer["effects"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|e| e["type"] == "instant_win" && e["rule_id"] == INSTANT_WIN)
                    .count() as i64;
                let customer = cart["customer_id"].as_str().unwrap_or_default();
                *draws
                    .entry((customer.to_string(), day.to_string()))
                    .or_default() += played;
            }
            _ => {}
        }
    }
    for (code, times) in &redeemed {
        if *times > 1 {
            checked
                .violations
                .push(format!("single-use Voucher {code} redeemed {times} times"));
        }
    }
    for ((customer, day), played) in &draws {
        if *played > ONCE_LIMIT {
            checked.violations.push(format!(
                "Customer {customer} drew the Instant Win {played} times on {day}, its limit is {ONCE_LIMIT}"
            ));
        }
    }
    checked.vouchers_redeemed = redeemed.len();
}
