//! Micro-benchmarks of the pure rules engine, without HTTP or the store:
//! evaluating a till-sized cart against 1, 10, 50 and 200 campaigns of mixed
//! kinds with real conditions, and one condition on its own, both on the
//! fast path and through rhai.
//!
//! ```sh
//! cargo bench --bench engine
//! ```

use std::collections::HashMap;
use std::path::PathBuf;

use loyalty::engine::campaign::Campaign;
use loyalty::engine::campaign::Listens;
use loyalty::engine::evaluate::evaluate;
use loyalty::engine::facts::Facts;
use loyalty::engine::script::ScriptEngine;
use loyalty::resources::instant_wins::rules::draws::Draws;
use serde_json::{Value, json};

fn main() {
    divan::main();
}

/// The `n`th campaign of a mixed set: line discounts, cart discounts,
/// points per euro and per product, and Instant Wins, each with a condition
/// over the cart, the Customer and the clock.
fn campaign_text(n: usize) -> String {
    let id = n + 1;
    match n % 5 {
        0 => format!(
            "id: {id}\nkind: discount\nname: Lines {n}\non: cart\nwhen: weekday != \"sunday\" && cart.total >= {min}.0\ndiscount:\n  applies_to: lines\n  lines: line.product_code == \"P{p}\" || line.taxonomies.contains(\"t{t}\")\n  percent: 10\n",
            min = n % 20,
            p = n % 40,
            t = n % 7
        ),
        1 => format!(
            "id: {id}\nkind: discount\nname: Cart {n}\non: cart\nwhen: customer.loyalty_member && cart.lines.len() >= {lines}\ndiscount:\n  applies_to: cart\n  amount: 1.5\n  max_amount: 5.0\n",
            lines = n % 6
        ),
        2 => format!(
            "id: {id}\nkind: points\nname: Points {n}\non: cart\nwhen: customer.loyalty_member && hour >= {h}\npoints:\n  per_amount: 1\n  per_product: {{ P{p}: 5 }}\n",
            h = n % 12,
            p = n % 40
        ),
        3 => format!(
            "id: {id}\nkind: points\nname: Big basket {n}\non: cart\nwhen: cart.total > {t}.0 && customer.attributes.segment == \"regular\"\npoints:\n  fixed: 20\n",
            t = 20 + n % 30
        ),
        _ => format!(
            "id: {id}\nkind: instant_win\nname: Draw {n}\non: cart\nwhen: cart.total >= 5.0\nonce: day\nonce_limit: 3\ninstant_win:\n  instant_win_prizes:\n    - {{ id: gift, name: Gift, weight: 0.1, stock: 100 }}\n    - {{ id: none, name: None, weight: 0.9 }}\n"
        ),
    }
}

fn campaigns(engine: &ScriptEngine, count: usize) -> Vec<Campaign> {
    (0..count)
        .map(|n| {
            Campaign::parse(engine, &PathBuf::from("bench.yaml"), &campaign_text(n))
                .unwrap_or_else(|e| panic!("campaign {n}: {e:?}"))
        })
        .collect()
}

/// A till-sized cart: ten lines with taxonomies and features.
fn facts() -> Facts {
    let lines: Vec<Value> = (0..10)
        .map(|i| {
            json!({
                "product_code": format!("P{}", i * 3),
                "quantity": 1 + i % 3,
                "price": 1.5 + f64::from(i),
                "taxonomies": [format!("t{}", i % 7)],
                "features": {"organic": if i % 2 == 0 { "yes" } else { "no" }}
            })
        })
        .collect();
    Facts {
        now: "2026-05-04T10:30:00Z".parse().unwrap(),
        cart: json!({"total": 92.5, "lines": lines, "coupons_desired": []}),
        customer: json!({"loyalty_member": true, "attributes": {"segment": "regular"}}),
        ..Facts::default()
    }
}

#[divan::bench(args = [1, 10, 50, 200])]
fn evaluate_cart(bencher: divan::Bencher, count: usize) {
    let engine = ScriptEngine::new();
    let campaigns = campaigns(&engine, count);
    let facts = facts();
    let states = HashMap::new();
    let challenges = HashMap::new();
    bencher.bench_local(|| {
        let mut random = || 0.5;
        let mut draws = Draws {
            states: &states,
            challenges: &challenges,
            random: &mut random,
            forced: &std::collections::HashMap::new(),
        };
        evaluate(
            &engine,
            divan::black_box(&campaigns),
            &Listens::Cart,
            divan::black_box(&facts),
            &mut draws,
            &|text| text.resolve("en", "en"),
        )
    });
}

/// One condition: a comparison chain the fast path answers, and one with
/// arithmetic and `history` that rhai evaluates (facts converted each time).
#[divan::bench(args = [
    "customer.loyalty_member && cart.total >= 20.0 && weekday != \"sunday\"",
    "cart.total * 2.0 > 10.0 && history.spent_last_days(30) >= 0.0",
])]
fn one_condition(bencher: divan::Bencher, source: &str) {
    let engine = ScriptEngine::new();
    let origin = bench_origin();
    let condition = engine.compile(source, origin).expect("a condition");
    let facts = facts();
    bencher.bench_local(|| engine.eval_bool(&condition, divan::black_box(&facts)));
}

/// Where the conditions of the runaway benchmarks are written.
fn bench_origin() -> loyalty::engine::origin::Origin {
    loyalty::engine::origin::Origin {
        file: PathBuf::from("bench.yaml"),
        line: 1,
        column: 0,
    }
}

/// A runaway condition (100,000 closure calls) until the operation budget
/// stops it: how long an author's mistake can hold one evaluation.
#[divan::bench]
fn runaway_condition_stopped(bencher: divan::Bencher) {
    let engine = ScriptEngine::new();
    let origin = bench_origin();
    let digits = "[0,1,2,3,4,5,6,7,8,9]";
    let source = format!(
        "{digits}.map(|a| {digits}.map(|b| {digits}.map(|c| {digits}.map(|d| {digits}.map(|e| a+b+c+d+e))))).len() > 0"
    );
    let condition = engine.compile(&source, origin).expect("a condition");
    let facts = facts();
    bencher.bench_local(|| {
        assert!(
            engine
                .eval_bool(&condition, divan::black_box(&facts))
                .is_err()
        );
    });
}

/// A condition of few but costly operations (45 million allocations within
/// the operation budget) until the clock stops it.
#[divan::bench]
fn costly_condition_stopped_by_the_clock(bencher: divan::Bencher) {
    let engine = ScriptEngine::new();
    let origin = bench_origin();
    let source =
        "blob(5000).to_array().map(|i| blob(9000, 65).as_string().split(\"\").len()).len() > 0";
    let condition = engine.compile(source, origin).expect("a condition");
    let facts = facts();
    bencher.bench_local(|| {
        assert!(
            engine
                .eval_bool(&condition, divan::black_box(&facts))
                .is_err()
        );
    });
}
