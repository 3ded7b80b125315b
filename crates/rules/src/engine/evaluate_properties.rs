//! Property tests of the interpreter over generated campaign sets and carts
//! (1 to 50 lines, prices 0.01 to 9,999.99, whole and fractional
//! quantities, stacked percentage and fixed discounts on the cart and on
//! lines): the discounts match an independent computation in integer cents,
//! each cart discount's line shares add up exactly to it, no line or cart
//! goes below zero, the order of the lines changes nothing, points are never
//! negative, and the same event, clock and seed give the same effects.

use std::collections::HashMap;
use std::path::PathBuf;

use proptest::prelude::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::evaluate::Evaluation;
use crate::engine::evaluate::evaluate;
use crate::engine::facts::Facts;
use crate::engine::script::ScriptEngine;
use crate::resources::instant_wins::rules::draws::Draws;

/// A discount as generated: on the cart or on the lines of one product, a
/// percentage or an amount in cents, maybe capped (cents).
#[derive(Debug, Clone)]
struct DiscountSpec {
    product: Option<usize>,
    percent: Option<i128>,
    amount: Option<i128>,
    cap: Option<i128>,
}

impl DiscountSpec {
    fn file(&self) -> String {
        let cents = |c: i128| Decimal::from_i128_with_scale(c, 2).to_string();
        let mut text = String::from("kind: discount\nname: D\non: cart\ndiscount:\n");
        match self.product {
            None => text.push_str("  applies_to: cart\n"),
            Some(product) => text.push_str(&format!(
                "  applies_to: lines\n  lines: line.product_code == \"P{product}\"\n"
            )),
        }
        match (self.percent, self.amount) {
            (Some(percent), _) => text.push_str(&format!("  percent: {percent}\n")),
            (None, Some(amount)) => text.push_str(&format!("  amount: {}\n", cents(amount))),
            _ => {}
        }
        if let Some(cap) = self.cap {
            text.push_str(&format!("  max_amount: {}\n", cents(cap)));
        }
        text
    }
}

fn discount() -> impl Strategy<Value = DiscountSpec> {
    (
        prop::option::of(0usize..3),
        prop_oneof![
            (1i128..=100).prop_map(|p| (Some(p), None)),
            (1i128..=500_000).prop_map(|a| (None, Some(a))),
        ],
        prop::option::of(1i128..=200_000),
    )
        .prop_map(|(product, (percent, amount), cap)| DiscountSpec {
            product,
            percent,
            amount,
            cap,
        })
}

fn points() -> impl Strategy<Value = String> {
    (1u32..=5, 0i64..=20, 1i64..=100).prop_map(|(per_amount, per_product, fixed)| {
        let per_product = if per_product > 0 {
            format!("  per_product: {{ P1: {per_product} }}\n")
        } else {
            String::new()
        };
        format!("kind: points\nname: P\non: cart\npoints:\n  per_amount: {per_amount}\n{per_product}  fixed: {fixed}\n")
    })
}

/// A line as generated: product, quantity in thousandths, price in cents.
type LineSpec = (usize, i128, i128);

fn lines() -> impl Strategy<Value = Vec<LineSpec>> {
    prop::collection::vec(
        (
            0usize..3,
            prop_oneof![(1i128..=5).prop_map(|q| q * 1000), 1i128..=5000],
            1i128..=999_999,
        ),
        1..=50,
    )
}

/// Rounds `numerator / denominator` (both at least 0) half away from zero.
fn half_away(numerator: i128, denominator: i128) -> i128 {
    (2 * numerator + denominator) / (2 * denominator)
}

/// A line's worth in cents: price times quantity, rounded once.
fn worth(&(_, milli, cents): &LineSpec) -> i128 {
    half_away(cents * milli, 1000)
}

/// The cart as facts hold it: amounts as JSON numbers.
fn cart_json(lines: &[LineSpec]) -> Value {
    let decimal = |units: i128, scale: u32| {
        Decimal::from_i128_with_scale(units, scale)
            .normalize()
            .to_string()
            .parse::<f64>()
            .unwrap()
    };
    let total: i128 = lines.iter().map(worth).sum();
    json!({
        "total": decimal(total, 2),
        "lines": lines.iter().map(|(product, milli, cents)| json!({
            "product_code": format!("P{product}"),
            "quantity": decimal(*milli, 3),
            "price": decimal(*cents, 2),
        })).collect::<Vec<_>>(),
    })
}

/// `value` cents over `weights` by largest remainder (ties: larger weight,
/// then smaller key, then earlier position), in integers.
fn share_out(value: i128, weights: &[i128], keys: &[(String, i128, i128)]) -> Vec<i128> {
    let sum: i128 = weights.iter().sum();
    let mut shares: Vec<i128> = weights.iter().map(|w| value * w / sum).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        (value * weights[b] % sum)
            .cmp(&(value * weights[a] % sum))
            .then(weights[b].cmp(&weights[a]))
            .then(keys[a].cmp(&keys[b]))
            .then(a.cmp(&b))
    });
    let left = value - shares.iter().sum::<i128>();
    for &index in order.iter().take(left as usize) {
        shares[index] += 1;
    }
    shares
}

/// The discounts in cents, computed independently of the interpreter's
/// decimals: (campaign, 1-based line, cents), in campaign and line order.
fn reference(specs: &[DiscountSpec], lines: &[LineSpec]) -> Vec<(i64, i64, i128)> {
    let worths: Vec<i128> = lines.iter().map(worth).collect();
    // Lines are told apart by what they are: product, price and quantity.
    let keys: Vec<(String, i128, i128)> = lines
        .iter()
        .map(|(product, milli, cents)| (format!("P{product}"), *cents, *milli))
        .collect();
    let total: i128 = worths.iter().sum();
    let mut line_left = worths.clone();
    let mut cart_left = total;
    let mut effects = Vec::new();
    for (index, spec) in specs.iter().enumerate() {
        let id = index as i64 + 1;
        let off = |base: i128| match (spec.percent, spec.amount) {
            (Some(percent), _) => half_away(base * percent, 100),
            (None, Some(amount)) => amount.min(base),
            _ => 0,
        };
        let cap = spec.cap.unwrap_or(i128::MAX);
        match spec.product {
            None => {
                let value = off(total)
                    .min(cap)
                    .min(cart_left)
                    .min(line_left.iter().sum());
                if value <= 0 {
                    continue;
                }
                let shares = share_out(value, &line_left, &keys);
                cart_left -= value;
                for (line, share) in shares.into_iter().enumerate() {
                    if share > 0 {
                        line_left[line] -= share;
                        effects.push((id, line as i64 + 1, share));
                    }
                }
            }
            Some(product) => {
                let matched: Vec<usize> = (0..lines.len())
                    .filter(|&l| lines[l].0 == product)
                    .collect();
                let mut offs: Vec<i128> = matched.iter().map(|&l| off(worths[l])).collect();
                if offs.iter().sum::<i128>() > cap {
                    let matched_keys: Vec<(String, i128, i128)> =
                        matched.iter().map(|&l| keys[l].clone()).collect();
                    offs = share_out(cap, &offs, &matched_keys);
                }
                for (&line, wanted) in matched.iter().zip(offs) {
                    let value = wanted.min(cart_left).min(line_left[line]);
                    line_left[line] -= value;
                    cart_left -= value;
                    if value > 0 {
                        effects.push((id, line as i64 + 1, value));
                    }
                }
            }
        }
    }
    effects
}

fn run(engine: &ScriptEngine, campaigns: &[Campaign], cart: &Value) -> Evaluation {
    let states = HashMap::new();
    let mut random = || 0.5;
    let mut draws = Draws {
        states: &states,
        challenges: &std::collections::HashMap::new(),
        random: &mut random,
        forced: &std::collections::HashMap::new(),
    };
    let facts = Facts {
        now: "2026-05-04T09:30:00Z".parse().unwrap(),
        cart: cart.clone(),
        customer: json!({"loyalty_member": true}),
        ..Facts::default()
    };
    evaluate(
        engine,
        campaigns,
        &Listens::Cart,
        &facts,
        &mut draws,
        &|t| t.resolve("en", "en"),
    )
}

/// The discount effects as (campaign, line, cents).
fn discounts_in_cents(evaluation: &Evaluation) -> Vec<(i64, i64, i128)> {
    evaluation
        .effects
        .iter()
        .filter(|e| e.points().is_none())
        .map(|e| {
            let value = e.discount_value();
            let cents = (value * Decimal::ONE_HUNDRED).normalize();
            assert_eq!(cents.scale(), 0, "{value} is not in whole cents");
            (e.rule_id(), e.line(), cents.mantissa())
        })
        .collect()
}

/// What each line lost to discounts, keyed by what the line is, sorted.
fn losses_by_line(evaluation: &Evaluation, keys: &[String]) -> Vec<(String, i128)> {
    let effects = discounts_in_cents(evaluation);
    let mut losses: Vec<(String, i128)> = keys
        .iter()
        .enumerate()
        .map(|(index, key)| {
            let lost = effects
                .iter()
                .filter(|(_, line, _)| *line == index as i64 + 1)
                .map(|(_, _, cents)| cents)
                .sum();
            (key.clone(), lost)
        })
        .collect();
    losses.sort();
    losses
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn discounts_are_exact_shared_out_to_the_cent_and_blind_to_line_order(
        discounts in prop::collection::vec(discount(), 0..4),
        accruals in prop::collection::vec(points(), 0..3),
        lines in lines(),
    ) {
        let engine = ScriptEngine::new();
        let files: Vec<String> = discounts.iter().map(DiscountSpec::file).chain(accruals).collect();
        let campaigns: Vec<Campaign> = files
            .iter()
            .enumerate()
            .map(|(i, text)| {
                Campaign::parse(&engine, &PathBuf::from("p.yaml"), &format!("id: {}\n{text}", i + 1))
                    .map_err(|e| format!("{e:?}"))
            })
            .collect::<Result<_, _>>()
            .map_err(TestCaseError::fail)?;
        let cart = cart_json(&lines);
        let keys: Vec<String> = cart["lines"].as_array().unwrap().iter().map(Value::to_string).collect();
        let evaluation = run(&engine, &campaigns, &cart);
        let found = discounts_in_cents(&evaluation);

        prop_assert_eq!(&found, &reference(&discounts, &lines));
        for (index, line) in lines.iter().enumerate() {
            let lost: i128 = found.iter().filter(|(_, l, _)| *l == index as i64 + 1).map(|(_, _, c)| c).sum();
            prop_assert!(lost <= worth(line), "line {} worth {} loses {}", index + 1, worth(line), lost);
        }
        let total: i128 = lines.iter().map(worth).sum();
        prop_assert!(found.iter().map(|(_, _, c)| c).sum::<i128>() <= total);
        for effect in &evaluation.effects {
            if let Some(points) = effect.points() {
                prop_assert!(points > 0);
            }
        }

        // The same lines in the opposite order: every line loses the same,
        // and every campaign takes the same.
        let mut reversed_lines = lines.clone();
        reversed_lines.reverse();
        let reversed_cart = cart_json(&reversed_lines);
        let reversed_keys: Vec<String> = reversed_cart["lines"].as_array().unwrap().iter().map(Value::to_string).collect();
        let reversed = run(&engine, &campaigns, &reversed_cart);
        prop_assert_eq!(losses_by_line(&reversed, &reversed_keys), losses_by_line(&evaluation, &keys));
        let per_campaign = |effects: &[(i64, i64, i128)]| {
            let mut sums: Vec<(i64, i128)> = Vec::new();
            for (id, _, cents) in effects {
                match sums.iter_mut().find(|(i, _)| i == id) {
                    Some((_, sum)) => *sum += cents,
                    None => sums.push((*id, *cents)),
                }
            }
            sums
        };
        prop_assert_eq!(per_campaign(&discounts_in_cents(&reversed)), per_campaign(&found));

        prop_assert_eq!(run(&engine, &campaigns, &cart), evaluation, "the same event gives the same effects");
    }
}
