//! Challenges against a model: random streams of carts over a few weeks and
//! cancellations of any of them, for "two carts a week, revoked by a
//! return". After every step the Customer's progress is what the carts still
//! counted this week make, the completions that stand are the model's, and
//! the balance holds exactly one grant per week completed and not revoked
//! (a week completed again after a revoke grants nothing more).

use proptest::prelude::*;

use super::rewards::MONDAY;
use super::*;

const WEEKLY: (&str, &str) = (
    "weekly.yaml",
    "id: 604\nkind: challenge\nname: Two a week\non: cart\ngoal: { count: 2 }\nperiod: week\nrepeat: each_period\non_return: revoke\nreward: { points: 100 }\n",
);

#[derive(Debug, Clone)]
enum Op {
    /// A cart, this many days after the one before.
    Cart(u8),
    /// The cancellation of the n-th cart (modulo those made).
    Cancel(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..4).prop_map(Op::Cart),
        1 => (0usize..12).prop_map(Op::Cancel),
    ]
}

#[derive(Debug, Clone)]
struct Completion {
    week: u32,
    carts: Vec<String>,
    granted: bool,
    revoked: bool,
}

#[derive(Debug, Default)]
struct Model {
    week: u32,
    counted: Vec<String>,
    completions: Vec<Completion>,
    points: i64,
}

impl Model {
    fn standing_in(&self, week: u32) -> bool {
        self.completions
            .iter()
            .any(|c| c.week == week && !c.revoked)
    }

    /// A cart `code` in `week`; whether it completed the week and granted.
    fn cart(&mut self, code: &str, week: u32) -> Option<(bool, bool)> {
        if week != self.week {
            self.week = week;
            self.counted.clear();
        }
        if self.standing_in(week) {
            return None;
        }
        self.counted.push(code.to_string());
        if self.counted.len() < 2 {
            return Some((false, false));
        }
        let granted = !self.completions.iter().any(|c| c.week == week && c.granted);
        if granted {
            self.points += 100;
        }
        self.completions.push(Completion {
            week,
            carts: self.counted.clone(),
            granted,
            revoked: false,
        });
        Some((true, granted))
    }

    fn cancel(&mut self, code: &str) {
        self.counted.retain(|c| c != code);
        if let Some(completion) = self
            .completions
            .iter_mut()
            .rev()
            .find(|c| !c.revoked && c.carts.iter().any(|c| c == code))
        {
            completion.revoked = true;
            if completion.granted {
                self.points -= 100;
            }
        }
    }
}

async fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let (server, _dir) = server_with(&[WEEKLY], MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.org").await;
    let monday = chrono::DateTime::parse_from_rfc3339(MONDAY).unwrap();
    let mut days = 0u32;
    let mut carts: Vec<String> = Vec::new();
    let mut cancelled: Vec<String> = Vec::new();
    let mut model = Model::default();
    for (step, op) in ops.into_iter().enumerate() {
        match op {
            Op::Cart(later) => {
                days += u32::from(later);
                let now = monday + chrono::Duration::days(i64::from(days));
                server.set_time(&now.to_rfc3339());
                let code = format!("C{step}");
                let (status, answer) = server
                    .call_as(
                        "POST",
                        "/carts/realtime",
                        &key,
                        Some(json!({"customer_id": ana, "code": code,
                            "lines": [{"product_code": "TEA", "quantity": 1, "price": 3}]})),
                    )
                    .await;
                prop_assert_eq!(status, 200, "step {}: {}", step, answer);
                let effect = answer["effects"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|e| e["type"] == "challenge");
                let expected = model.cart(&code, days / 7);
                let got = effect.map(|e| (e["completed"] == true, e.get("granted").is_some()));
                prop_assert_eq!(got, expected, "step {}: {}", step, answer);
                carts.push(code);
            }
            Op::Cancel(index) => {
                if carts.is_empty() {
                    continue;
                }
                let code = carts[index % carts.len()].clone();
                let (status, answer) = server
                    .call_as(
                        "POST",
                        "/carts/cancellation",
                        &key,
                        Some(json!({"cart_id": code})),
                    )
                    .await;
                if cancelled.contains(&code) {
                    prop_assert_eq!(
                        (status, answer["code"].as_str()),
                        (409, Some("cart_already_cancelled")),
                        "step {}: {}",
                        step,
                        answer
                    );
                    continue;
                }
                prop_assert_eq!(status, 200, "step {}: {}", step, answer);
                cancelled.push(code.clone());
                model.cancel(&code);
            }
        }
        let (status, mine) = server
            .get_as(&format!("/customers/{ana}/challenges/604"), &key)
            .await;
        prop_assert_eq!(status, 200, "step {}: {}", step, mine);
        let week = days / 7;
        let counted_now = if model.week == week {
            model.counted.len()
        } else {
            0
        };
        let progress = if model.standing_in(week) {
            2
        } else {
            counted_now.min(2)
        };
        prop_assert_eq!(
            mine["progress"].as_f64(),
            Some(progress as f64),
            "step {}: {}",
            step,
            mine
        );
        prop_assert_eq!(
            mine["completed"] == true,
            model.standing_in(week),
            "step {}: {}",
            step,
            mine
        );
        let standing = model.completions.iter().filter(|c| !c.revoked).count() as i64;
        prop_assert_eq!(
            mine["completions"].as_i64(),
            Some(standing),
            "step {}: {}",
            step,
            mine
        );
        prop_assert_eq!(
            balances(&server, &key, &ana).await.0,
            model.points,
            "step {}",
            step
        );
        let granted_per_week = model.completions.iter().filter(|c| c.granted).count();
        let weeks: std::collections::BTreeSet<u32> =
            model.completions.iter().map(|c| c.week).collect();
        prop_assert_eq!(
            granted_per_week,
            weeks.len(),
            "one grant per week completed"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn progress_follows_the_carts_that_count_and_each_week_grants_once(
        ops in prop::collection::vec(op(), 1..14)
    ) {
        common::proptest_runtime().block_on(run(ops))?;
    }
}
