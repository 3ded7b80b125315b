//! Property test: carts near every bound (prices up to the maximum
//! amount, quantities up to the maximum, many lines, totals at and
//! around their lines' sum) are either refused with 400 or earn at most
//! the per-event cap, and no balance ever leaves the range every JSON
//! client reads exactly; the service never answers 5xx.

use super::*;
use proptest::prelude::*;

/// 2^53: the largest integer every JSON client reads exactly.
const EXACT_INTEGERS: i64 = 9_007_199_254_740_992;
const MAX_POINTS_PER_EVENT: i64 = 1_000_000_000;

fn near(bound: f64) -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(bound),
        Just(bound + 0.01),
        Just(bound * 10.0),
        (1u64..=100).prop_map(move |n| bound - n as f64 / 100.0),
        (0.01f64..=1.0).prop_map(move |f| (bound * f * 100.0).round() / 100.0),
    ]
}

fn line() -> impl Strategy<Value = Value> {
    (
        near(10_000_000_000.0),
        prop_oneof![near(1_000_000.0), Just(1.0)],
    )
        .prop_map(
            |(price, quantity)| json!({"product_code": "P", "quantity": quantity, "price": price}),
        )
}

fn cart() -> impl Strategy<Value = (Vec<Value>, Option<f64>)> {
    (
        prop::collection::vec(line(), 1..4),
        prop_oneof![Just(None), near(10_000_000_000.0).prop_map(Some)],
    )
}

async fn run(carts: Vec<(Vec<Value>, Option<f64>)>) -> Result<(), TestCaseError> {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "bounds@example.com").await;
    let mut earned = 0i64;
    for (n, (lines, total)) in carts.into_iter().enumerate() {
        let mut body = json!({"customer_id": id, "code": format!("B-{n}"), "lines": lines});
        if let Some(total) = total {
            body["total"] = json!(total);
        }
        let (status, answer) = server
            .call_as("POST", "/carts/realtime", &key, Some(body))
            .await;
        prop_assert!(status == 200 || status == 400, "{} {}", status, answer);
        if status == 200 {
            let points = answer["cart"]["points_earned"].as_i64().unwrap();
            prop_assert!((0..=MAX_POINTS_PER_EVENT).contains(&points), "{}", answer);
            earned += points;
        } else {
            prop_assert_eq!(&answer["code"], "invalid_request");
        }
    }
    let (_, balance) = server
        .call_as("GET", &format!("/customers/{id}/points"), &key, None)
        .await;
    let points = balance["points"].as_i64().unwrap();
    prop_assert_eq!(points, earned);
    prop_assert!(points < EXACT_INTEGERS);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    #[test]
    fn carts_near_every_bound_never_take_a_balance_out_of_range(
        carts in prop::collection::vec(cart(), 1..4),
    ) {
        let runtime = common::proptest_runtime();
        runtime.block_on(run(carts))?;
    }
}
