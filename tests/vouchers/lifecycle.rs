//! The Voucher lifecycle against a model: random sequences of issue,
//! select, freeze, unfreeze, redeem (with and without a hold), rollback,
//! cart, cancellation and clock advances. After every step each Voucher's
//! uses and state agree with the model: uses never exceed the Coupon's, a
//! rolled back use returns exactly once (by rollback or by the cart's
//! cancellation, never both), holds end when they should.

use chrono::{DateTime, Duration, Utc};
use proptest::prelude::*;

use super::carts::{MONDAY, cart};
use super::*;

/// Uses each Voucher starts with.
const USES: i64 = 2;
/// Minutes a freeze holds a use.
const HOLD_MINUTES: i64 = 5;
/// When the Coupon ends: reachable by the clock's advances.
const VALID_TO: &str = "2026-07-06T09:30:00Z";

#[derive(Debug, Clone)]
enum Op {
    Issue,
    Select(usize),
    Freeze(usize),
    Unfreeze(usize),
    Redeem(usize),
    RedeemHeld(usize),
    Rollback(usize),
    Cart(usize),
    Cancel(usize),
    Advance(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Issue),
        1 => (0..3usize).prop_map(Op::Select),
        2 => (0..3usize).prop_map(Op::Freeze),
        1 => (0..3usize).prop_map(Op::Unfreeze),
        2 => (0..3usize).prop_map(Op::Redeem),
        1 => (0..3usize).prop_map(Op::RedeemHeld),
        2 => (0..3usize).prop_map(Op::Rollback),
        2 => (0..3usize).prop_map(Op::Cart),
        1 => (0..4usize).prop_map(Op::Cancel),
        1 => (1..20i64).prop_map(Op::Advance),
    ]
}

/// One use taken: by a redemption (its id) or by a cart (its code).
#[derive(Debug, Clone)]
struct Use {
    redemption_id: String,
    cart: Option<String>,
    given_back: bool,
}

#[derive(Debug, Clone)]
struct ModelVoucher {
    code: String,
    uses_left: i64,
    /// Reservation id and when it ends.
    holds: Vec<(String, DateTime<Utc>)>,
    uses: Vec<Use>,
}

impl ModelVoucher {
    fn holds_at(&self, now: DateTime<Utc>) -> usize {
        self.holds.iter().filter(|(_, until)| *until > now).count()
    }

    /// The state the service should show, and the refusal a use without a
    /// hold should get.
    fn state(
        &self,
        now: DateTime<Utc>,
        valid_to: DateTime<Utc>,
    ) -> (&'static str, Option<&'static str>) {
        if self.uses_left <= 0 {
            ("redeemed", Some("voucher_redeemed"))
        } else if self.holds_at(now) as i64 >= self.uses_left {
            ("frozen", Some("voucher_frozen"))
        } else if now > valid_to {
            ("expired", Some("voucher_expired"))
        } else {
            ("active", None)
        }
    }
}

#[derive(Debug, Clone)]
struct ModelCart {
    code: String,
    voucher: usize,
    cancelled: bool,
}

async fn post(server: &TestServer, key: &CreatedApiKey, path: &str, body: Value) -> (u16, Value) {
    server.call_as("POST", path, key, Some(body)).await
}

async fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "One off", "discount": {"amount": 1}, "code_pattern": "ONE-######",
               "uses_per_voucher": USES, "valid_to": VALID_TO}),
    )
    .await;
    let valid_to: DateTime<Utc> = VALID_TO.parse().unwrap();
    let mut now: DateTime<Utc> = MONDAY.parse().unwrap();
    let mut vouchers: Vec<ModelVoucher> = Vec::new();
    let mut carts: Vec<ModelCart> = Vec::new();
    for (step, op) in ops.into_iter().enumerate() {
        let voucher_at = |i: usize| (!vouchers.is_empty()).then(|| i % vouchers.len());
        match op {
            Op::Issue => {
                if vouchers.len() == 3 {
                    continue;
                }
                let (status, body) = post(
                    &server,
                    &key,
                    "/discounts/trigger",
                    json!({"customer_id": ana, "coupon_id": coupon["id"]}),
                )
                .await;
                if now > valid_to {
                    prop_assert_eq!(status, 422, "{}", body);
                    continue;
                }
                prop_assert_eq!(status, 200, "{}", body);
                vouchers.push(ModelVoucher {
                    code: body["code"].as_str().unwrap().to_string(),
                    uses_left: USES,
                    holds: Vec::new(),
                    uses: Vec::new(),
                });
            }
            Op::Select(i) => {
                let Some(v) = voucher_at(i) else { continue };
                let code = &vouchers[v].code;
                let (status, body) = post(
                    &server,
                    &key,
                    &format!("/vouchers/{code}/select"),
                    json!({"customer_id": ana}),
                )
                .await;
                prop_assert!(status == 200 || status == 422, "step {}: {}", step, body);
            }
            Op::Freeze(i) => {
                let Some(v) = voucher_at(i) else { continue };
                let code = vouchers[v].code.clone();
                let (_, refusal) = vouchers[v].state(now, valid_to);
                let (status, body) = post(
                    &server,
                    &key,
                    &format!("/vouchers/{code}/freeze"),
                    json!({"customer_id": ana, "minutes": HOLD_MINUTES}),
                )
                .await;
                match refusal {
                    None => {
                        prop_assert_eq!(status, 200, "step {}: {}", step, body);
                        vouchers[v].holds.push((
                            body["reservation_id"].as_str().unwrap().to_string(),
                            now + Duration::minutes(HOLD_MINUTES),
                        ));
                    }
                    Some(code) => {
                        prop_assert_eq!(
                            (status, body["code"].as_str()),
                            (422, Some(code)),
                            "step {}: {}",
                            step,
                            body
                        );
                    }
                }
            }
            Op::Unfreeze(i) => {
                let Some(v) = voucher_at(i) else { continue };
                let code = vouchers[v].code.clone();
                let (status, body) = post(
                    &server,
                    &key,
                    &format!("/vouchers/{code}/unfreeze"),
                    json!({"customer_id": ana}),
                )
                .await;
                prop_assert_eq!(status, 200, "step {}: {}", step, body);
                vouchers[v].holds.clear();
            }
            Op::Redeem(i) | Op::RedeemHeld(i) => {
                let Some(v) = voucher_at(i) else { continue };
                let code = vouchers[v].code.clone();
                let hold = match op {
                    Op::RedeemHeld(_) => vouchers[v]
                        .holds
                        .iter()
                        .find(|(_, until)| *until > now)
                        .map(|(id, _)| id.clone()),
                    _ => None,
                };
                let (state, refusal) = vouchers[v].state(now, valid_to);
                // A hold of this checkout lets it use a frozen Voucher.
                let expected = match (&hold, state) {
                    (Some(_), "frozen") => None,
                    _ => refusal,
                };
                let mut request = json!({"customer_id": ana, "codes": [code]});
                if let Some(hold) = &hold {
                    request["reservation_id"] = json!(hold);
                }
                let (status, body) = post(&server, &key, "/vouchers/redeem", request).await;
                match expected {
                    None => {
                        prop_assert_eq!(status, 200, "step {}: {}", step, body);
                        let model = &mut vouchers[v];
                        model.uses_left -= 1;
                        if let Some(hold) = &hold {
                            model.holds.retain(|(id, _)| id != hold);
                        }
                        model.uses.push(Use {
                            redemption_id: body["redemptions"][0]["redemption_id"]
                                .as_str()
                                .unwrap()
                                .to_string(),
                            cart: None,
                            given_back: false,
                        });
                    }
                    Some(code) => prop_assert_eq!(
                        (status, body["code"].as_str()),
                        (422, Some(code)),
                        "step {}: {}",
                        step,
                        body
                    ),
                }
            }
            Op::Rollback(i) => {
                let Some(v) = voucher_at(i) else { continue };
                let code = vouchers[v].code.clone();
                let (status, body) = post(
                    &server,
                    &key,
                    "/vouchers/rollback",
                    json!({"customer_id": ana, "codes": [code]}),
                )
                .await;
                match vouchers[v].uses.iter_mut().rev().find(|u| !u.given_back) {
                    Some(latest) => {
                        prop_assert_eq!(status, 200, "step {}: {}", step, body);
                        let rolled = body.to_string();
                        prop_assert!(
                            rolled.contains(&latest.redemption_id),
                            "step {}: rolled back the latest use {}: {}",
                            step,
                            latest.redemption_id,
                            rolled
                        );
                        latest.given_back = true;
                        vouchers[v].uses_left += 1;
                    }
                    None => prop_assert_eq!(
                        (status, body["code"].as_str()),
                        (422, Some("voucher_not_redeemed")),
                        "step {}: {}",
                        step,
                        body
                    ),
                }
            }
            Op::Cart(i) => {
                let Some(v) = voucher_at(i) else { continue };
                let code = vouchers[v].code.clone();
                let cart_code = format!("C-{step}");
                let answer = post(
                    &server,
                    &key,
                    "/carts/realtime",
                    cart(&ana, &cart_code, json!([code])),
                )
                .await;
                prop_assert_eq!(answer.0, 200, "step {}: {}", step, answer.1);
                let effects = answer.1["effects"].as_array().unwrap().clone();
                let applied = effects.iter().any(|e| e["type"] == "voucher");
                let rejected = effects
                    .iter()
                    .find(|e| e["type"] == "voucher_rejected")
                    .map(|e| e["code"].as_str().unwrap().to_string());
                let (_, refusal) = vouchers[v].state(now, valid_to);
                match refusal {
                    None => {
                        prop_assert!(applied, "step {}: {}", step, answer.1);
                        vouchers[v].uses_left -= 1;
                        // The cart's use is rolled back by code like any other.
                        let stored = server
                            .running
                            .services
                            .store()
                            .raw_documents("voucher_redemption", "demo")
                            .await
                            .unwrap();
                        let redemption = stored
                            .iter()
                            .find(|r| r["cart_code"] == cart_code.as_str())
                            .and_then(|r| r["redemption_id"].as_str())
                            .unwrap_or_default()
                            .to_string();
                        vouchers[v].uses.push(Use {
                            redemption_id: redemption,
                            cart: Some(cart_code.clone()),
                            given_back: false,
                        });
                        carts.push(ModelCart {
                            code: cart_code,
                            voucher: v,
                            cancelled: false,
                        });
                    }
                    Some(expected) => {
                        prop_assert!(!applied, "step {}: {}", step, answer.1);
                        prop_assert_eq!(rejected.as_deref(), Some(expected), "step {}", step);
                    }
                }
            }
            Op::Cancel(c) => {
                let Some(index) = (!carts.is_empty()).then(|| c % carts.len()) else {
                    continue;
                };
                let target = carts[index].clone();
                let (status, body) = post(
                    &server,
                    &key,
                    "/carts/cancellation",
                    json!({"cart_id": target.code}),
                )
                .await;
                if target.cancelled {
                    prop_assert_eq!(
                        (status, body["code"].as_str()),
                        (409, Some("cart_already_cancelled")),
                        "step {}: {}",
                        step,
                        body
                    );
                    continue;
                }
                prop_assert_eq!(status, 200, "step {}: {}", step, body);
                carts[index].cancelled = true;
                let model = &mut vouchers[target.voucher];
                if let Some(used) = model
                    .uses
                    .iter_mut()
                    .find(|u| u.cart.as_deref() == Some(&target.code) && !u.given_back)
                {
                    used.given_back = true;
                    model.uses_left += 1;
                }
            }
            Op::Advance(minutes) => {
                now += Duration::minutes(minutes);
                server.set_time(&now.to_rfc3339());
            }
        }
        // Every Voucher agrees with the model.
        let (status, list) = server
            .get_as(&format!("/vouchers?customer_id={ana}"), &key)
            .await;
        prop_assert_eq!(status, 200, "{}", list);
        let listed = list["vouchers"].as_array().unwrap();
        prop_assert_eq!(listed.len(), vouchers.len());
        for model in &vouchers {
            let stored = listed
                .iter()
                .find(|v| v["code"] == model.code.as_str())
                .unwrap();
            let (state, _) = model.state(now, valid_to);
            prop_assert!(
                model.uses_left >= 0 && model.uses_left <= USES,
                "the model itself keeps within the uses"
            );
            prop_assert_eq!(
                (stored["uses_left"].as_i64(), stored["state"].as_str()),
                (Some(model.uses_left), Some(state)),
                "step {}: {} against {:?}",
                step,
                stored,
                model
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn any_sequence_keeps_every_voucher_as_the_model_says(
        ops in prop::collection::vec(op(), 1..30),
    ) {
        let runtime = common::proptest_runtime();
        runtime.block_on(run(ops))?;
    }
}
