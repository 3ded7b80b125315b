//! Property tests of the interpreter over generated campaign sets and carts:
//! discounts, alone or stacked, never take more than their line or the cart
//! is worth, points are never negative, and the same event, clock and seed
//! give the same effects.

use std::collections::HashMap;
use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::evaluate::Evaluation;
use crate::engine::evaluate::evaluate;
use crate::engine::facts::Facts;
use crate::engine::script::ScriptEngine;
use crate::resources::instant_wins::rules::draws::Draws;

/// A discount campaign file: on the cart or on the lines of one product,
/// by percent or by amount, maybe capped.
fn discount() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("cart"), Just("lines")],
        prop_oneof![
            (1u32..=100).prop_map(|p| format!("percent: {p}")),
            (1u32..=5000).prop_map(|a| format!("amount: {}", f64::from(a) / 100.0)),
        ],
        prop::option::of(1u32..=2000),
        0usize..3,
    )
        .prop_map(|(applies_to, off, cap, product)| {
            let lines = if applies_to == "lines" {
                format!("  lines: line.product_code == \"P{product}\"\n")
            } else {
                String::new()
            };
            let cap = cap.map_or(String::new(), |c| {
                format!("  max_amount: {}\n", f64::from(c) / 100.0)
            });
            format!("kind: discount\nname: D\non: cart\ndiscount:\n  applies_to: {applies_to}\n{lines}  {off}\n{cap}")
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

fn cart() -> impl Strategy<Value = Value> {
    prop::collection::vec((0usize..3, 1u32..=5, 1u32..=5000), 1..6).prop_map(|lines| {
        let lines: Vec<Value> = lines
            .into_iter()
            .map(|(product, quantity, cents)| {
                json!({"product_code": format!("P{product}"), "quantity": quantity, "price": f64::from(cents) / 100.0})
            })
            .collect();
        let total: f64 = lines
            .iter()
            .map(|l| l["quantity"].as_f64().unwrap_or(0.0) * l["price"].as_f64().unwrap_or(0.0))
            .sum();
        json!({"total": (total * 100.0).round() / 100.0, "lines": lines})
    })
}

fn run(engine: &ScriptEngine, campaigns: &[Campaign], cart: &Value) -> Evaluation {
    let states = HashMap::new();
    let mut random = || 0.5;
    let mut draws = Draws {
        states: &states,
        random: &mut random,
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn discounts_never_exceed_what_they_apply_to_and_points_are_never_negative(
        discounts in prop::collection::vec(discount(), 0..4),
        accruals in prop::collection::vec(points(), 0..3),
        cart in cart(),
    ) {
        let engine = ScriptEngine::new();
        let campaigns: Vec<Campaign> = discounts
            .iter()
            .chain(&accruals)
            .enumerate()
            .map(|(i, text)| {
                Campaign::parse(&engine, &PathBuf::from("p.yaml"), &format!("id: {}\n{text}", i + 1))
                    .map_err(|e| format!("{e:?}"))
            })
            .collect::<Result<_, _>>()
            .map_err(TestCaseError::fail)?;
        let evaluation = run(&engine, &campaigns, &cart);
        let lines = cart["lines"].as_array().unwrap();
        let total = cart["total"].as_f64().unwrap();
        for campaign in &campaigns {
            let effects: Vec<_> = evaluation.effects.iter().filter(|e| e.rule_id() == campaign.id).collect();
            let taken: f64 = effects.iter().map(|e| e.discount_value()).sum();
            prop_assert!(taken <= total + 1e-9, "campaign {} takes {} of {}", campaign.id, taken, total);
            for effect in &effects {
                prop_assert!(effect.discount_value() >= 0.0);
                if effect.line() > 0 {
                    let line = &lines[(effect.line() - 1) as usize];
                    let worth = line["quantity"].as_f64().unwrap() * line["price"].as_f64().unwrap();
                    prop_assert!(effect.discount_value() <= worth + 1e-9, "line {} worth {} gets {}", effect.line(), worth, effect.discount_value());
                }
                if let Some(points) = effect.points() {
                    prop_assert!(points > 0);
                }
            }
        }
        let all: f64 = evaluation.effects.iter().map(|e| e.discount_value()).sum();
        prop_assert!(all <= total + 1e-6, "all discounts take {} of {}", all, total);
        for (index, line) in lines.iter().enumerate() {
            let worth = line["quantity"].as_f64().unwrap() * line["price"].as_f64().unwrap();
            let taken: f64 = evaluation
                .effects
                .iter()
                .filter(|e| e.line() == index as i64 + 1)
                .map(|e| e.discount_value())
                .sum();
            prop_assert!(taken <= worth + 1e-6, "line {} worth {} loses {}", index + 1, worth, taken);
        }
        prop_assert_eq!(run(&engine, &campaigns, &cart), evaluation, "the same event gives the same effects");
    }
}
