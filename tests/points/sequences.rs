//! Property test: any sequence of accruals, cart earnings, redemptions
//! (alone and for carts), transfers, cancellations and expiries leaves every
//! balance equal to the sum of its entries, never negative, and exactly
//! as a simple model of the rules predicts; transfers conserve points.

use super::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Accrue(usize, i64),
    AccrueExpiring(usize, i64),
    Expire,
    Earn(usize, u32),
    Redeem(usize, i64),
    Transfer(usize, usize, i64),
    RedeemCart(usize, i64),
    Cancel(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3usize, 1..60i64).prop_map(|(c, n)| Op::Accrue(c, n)),
        (0..3usize, 1..60i64).prop_map(|(c, n)| Op::AccrueExpiring(c, n)),
        Just(Op::Expire),
        (0..3usize, 1..50u32).prop_map(|(c, t)| Op::Earn(c, t)),
        (0..3usize, 1..60i64).prop_map(|(c, n)| Op::Redeem(c, n)),
        (0..3usize, 0..3usize, 1..60i64).prop_map(|(a, b, n)| Op::Transfer(a, b, n)),
        (0..6usize, 1..40i64).prop_map(|(c, n)| Op::RedeemCart(c, n)),
        (0..6usize).prop_map(Op::Cancel),
    ]
}

/// A recorded cart in the model.
struct ModelCart {
    code: String,
    owner: usize,
    earned: i64,
    redeemed: i64,
    cancelled: bool,
}

async fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(customer(&server, &key, &format!("p{n}@example.com")).await);
    }
    let mut model = [0i64; 3];
    let mut carts: Vec<ModelCart> = Vec::new();
    for (step, op) in ops.into_iter().enumerate() {
        match op {
            Op::Accrue(c, n) => {
                let (status, body) = post(
                    &server,
                    &key,
                    "/scores/trigger",
                    json!({"customer_id": ids[c], "points": n}),
                )
                .await;
                prop_assert_eq!(status, 200, "{}", body);
                model[c] += n;
            }
            Op::AccrueExpiring(c, n) => {
                let soon = loyalty::common::time::Timestamp::from(
                    chrono::Utc::now() + chrono::Duration::days(1),
                );
                let (status, body) = post(
                    &server,
                    &key,
                    "/scores/trigger",
                    json!({"customer_id": ids[c], "points": n, "expires_at": soon}),
                )
                .await;
                prop_assert_eq!(status, 200, "{}", body);
                model[c] += n;
            }
            Op::Expire => {
                // Everything expiring so far expires; what is left of it is
                // for the ledger to say, so the model takes the new
                // balances, which may only have gone down.
                let later = loyalty::common::time::Timestamp::from(
                    chrono::Utc::now() + chrono::Duration::days(2),
                );
                server.running.services.expire_points(later).await.unwrap();
                for (c, id) in ids.iter().enumerate() {
                    let (points, _) = balances(&server, &key, id).await;
                    prop_assert!(
                        points <= model[c] && points >= 0,
                        "expiry moved {} to {}",
                        model[c],
                        points
                    );
                    model[c] = points;
                    let (_, expiring) = server
                        .get_as(&format!("/customers/{id}/points_expiring"), &key)
                        .await;
                    prop_assert_eq!(&expiring["expiring"], &json!([]), "everything due expired");
                }
                prop_assert_eq!(
                    server.running.services.expire_points(later).await.unwrap(),
                    0,
                    "expiry is idempotent"
                );
            }
            Op::Earn(c, total) => {
                let code = format!("S{step}");
                let cart = json!({"customer_id": ids[c], "code": code, "date": "2026-05-04T16:00:00Z",
                    "lines": [{"product_code": "TEA", "quantity": 1, "price": total}]});
                let (status, body) = post(&server, &key, "/carts/realtime", cart).await;
                prop_assert_eq!(status, 200, "{}", body);
                model[c] += i64::from(total);
                carts.push(ModelCart {
                    code,
                    owner: c,
                    earned: i64::from(total),
                    redeemed: 0,
                    cancelled: false,
                });
            }
            Op::Redeem(c, n) => {
                let (status, _) = post(
                    &server,
                    &key,
                    "/points/redeem",
                    json!({"customer_id": ids[c], "points": n}),
                )
                .await;
                let fits = model[c] >= n;
                prop_assert_eq!(status, if fits { 200 } else { 422 });
                if fits {
                    model[c] -= n;
                }
            }
            Op::Transfer(a, b, n) => {
                let (status, answer) = post(
                    &server,
                    &key,
                    "/points/transfer",
                    json!({"from_customer_id": ids[a], "to_customer_id": ids[b], "points": n}),
                )
                .await;
                if a == b {
                    prop_assert_eq!(
                        (status, answer["code"].as_str()),
                        (422, Some("same_customer"))
                    );
                    continue;
                }
                let expected = if model[a] >= n { 200 } else { 422 };
                prop_assert_eq!(status, expected);
                if expected == 200 {
                    model[a] -= n;
                    model[b] += n;
                }
            }
            Op::RedeemCart(index, n) => {
                let Some(cart) = carts.get_mut(index) else {
                    continue;
                };
                let (status, _) = post(
                    &server,
                    &key,
                    "/points/redeem_cart",
                    json!({"cart_id": cart.code, "points": n}),
                )
                .await;
                let expected = if cart.cancelled {
                    409
                } else if model[cart.owner] >= n {
                    200
                } else {
                    422
                };
                prop_assert_eq!(status, expected);
                if expected == 200 {
                    model[cart.owner] -= n;
                    cart.redeemed += n;
                }
            }
            Op::Cancel(index) => {
                let Some(cart) = carts.get_mut(index) else {
                    continue;
                };
                let (status, _) = post(
                    &server,
                    &key,
                    "/carts/cancellation",
                    json!({"cart_id": cart.code}),
                )
                .await;
                prop_assert_eq!(status, if cart.cancelled { 409 } else { 200 });
                if !cart.cancelled {
                    cart.cancelled = true;
                    let available = model[cart.owner] + cart.redeemed;
                    model[cart.owner] = available - cart.earned.min(available);
                }
            }
        }
        prop_assert!(model.iter().all(|balance| *balance >= 0));
    }
    for (c, id) in ids.iter().enumerate() {
        let (points, _) = balances(&server, &key, id).await;
        prop_assert_eq!(points, model[c], "customer {}", c);
        let summed = server
            .running
            .services
            .store()
            .ledger_sum("demo", id, PointsKind::Points)
            .await
            .unwrap();
        prop_assert_eq!(summed, points);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn any_sequence_keeps_balances_equal_to_their_entries_and_never_negative(
        ops in prop::collection::vec(op(), 1..25),
    ) {
        let runtime = common::proptest_runtime();
        runtime.block_on(run(ops))?;
    }
}
