//! The fast path agrees with rhai: on random expressions over random facts,
//! whenever it answers, rhai gives the same boolean (and no error).

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::engine::facts::Facts;
use crate::engine::script::Origin;
use crate::engine::script::ScriptEngine;

fn origin() -> Origin {
    Origin {
        file: PathBuf::from("campaigns/demo/fast.yaml"),
        line: 1,
        column: 0,
    }
}

/// A value of any JSON type a fact may hold.
fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..4).prop_map(Value::from),
        (-3.0f64..4.0).prop_map(|f| json!((f * 4.0).round() / 4.0)),
        prop::sample::select(vec!["gold", "silver", "a", "b", ""]).prop_map(Value::from),
        prop::collection::vec(prop::sample::select(vec!["a", "b", "t1"]), 0..3)
            .prop_map(|items| json!(items)),
        Just(json!([1, "a", null])),
        Just(json!({"a": 1})),
    ]
}

fn facts() -> impl Strategy<Value = (Facts, Value)> {
    (
        any_value(),
        any_value(),
        any_value(),
        any_value(),
        any_value(),
        prop::collection::vec(prop::sample::select(vec!["families", "vip"]), 0..3),
        0u32..24,
        0i64..5,
    )
        .prop_map(
            |(member, age, name, total, line_price, audiences, hour, cart_count)| {
                let mut line = json!({
                    "product_code": "P1",
                    "price": line_price,
                    "taxonomies": ["t1", "t2"],
                    "features": {"brand": name.clone()}
                });
                // A line the catalogue completed, or only what the till sent.
                if hour % 3 == 0 {
                    line["facets"] =
                        json!({"department": ["cheese", "dairy"], "brand": [name.clone()]});
                }
                let facts = Facts {
                    customer: json!({"loyalty_member": member, "age": age, "name": name}),
                    cart: json!({"total": total, "lines": [line.clone(), line.clone()]}),
                    tier: if cart_count % 2 == 0 {
                        Value::Null
                    } else {
                        json!("gold")
                    },
                    audiences: audiences.into_iter().map(str::to_string).collect(),
                    totals: crate::resources::carts::purchase_days::PurchaseTotals {
                        lifetime_spend: cart_count as f64 * 12.5,
                        cart_count,
                        last_purchase: None,
                    },
                    now: format!("2026-05-04T{hour:02}:30:00Z").parse().unwrap(),
                    location: match hour % 4 {
                        0 => json!({"code": "S1", "facets": {"region": ["north"]}}),
                        1 => json!({"code": "S2", "features": {"region": "north"}}),
                        2 => json!({}),
                        _ => Value::Null,
                    },
                    ..Facts::default()
                };
                (facts, line)
            },
        )
}

fn operand() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "customer.loyalty_member",
        "customer.age",
        "customer.name",
        "customer.missing",
        "customer",
        "cart.total",
        "cart.lines.len()",
        "cart.lines",
        "tier",
        "hour",
        "weekday",
        "audiences",
        "lifetime_spend",
        "cart_count",
        "last_purchase_date",
        "line.price",
        "line.product_code",
        "line.taxonomies",
        "line.features.brand",
        "line.taxonomies.len()",
        "customer.name.len()",
        "()",
        "true",
        "false",
        "0",
        "2",
        "2.0",
        "2.5",
        "-1",
        "\"gold\"",
        "\"a\"",
        "\"\"",
        "\"monday\"",
    ])
    .prop_map(str::to_string)
}

fn comparison() -> impl Strategy<Value = String> {
    (
        operand(),
        prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]),
        operand(),
    )
        .prop_map(|(a, op, b)| format!("{a} {op} {b}"))
}

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => comparison(),
        1 => operand(),
        1 => (operand(), prop::sample::select(vec!["\"a\"", "\"t1\"", "\"families\"", "1", "()"]))
            .prop_map(|(haystack, needle)| format!("{haystack}.contains({needle})")),
        1 => (operand(), prop::sample::select(vec!["\"a\"", "\"t1\"", "\"vip\"", "\"a\"", "2"]))
            .prop_map(|(haystack, needle)| format!("{needle} in {haystack}")),
        1 => prop::sample::select(vec![
            "line.has_feature(\"brand\", \"a\")",
            "line.has_feature(\"brand\", \"gold\")",
            "line.has_feature(\"department\", \"dairy\")",
            "line.has_feature(\"department\", \"bakery\")",
            "location.has_feature(\"region\", \"north\")",
            "location.has_feature(\"region\", \"south\")",
            "customer.has_feature(\"brand\", \"a\")",
        ])
        .prop_map(str::to_string),
    ]
}

fn expression() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) && ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) || ({b})")),
            inner.prop_map(|a| format!("!({a})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_fast_path_answers_as_rhai_does(source in expression(), (facts, line) in facts(), in_line in any::<bool>()) {
        let engine = ScriptEngine::new();
        let Ok(script) = engine.compile_with(&source, origin(), &["line"]) else {
            return Ok(());
        };
        let line = in_line.then_some(&line);
        if let Some(fast) = engine.eval_fast(&script, &facts, line) {
            let rhai = engine.eval_with_rhai(&script, &facts, line);
            let rhai = rhai.map(|value| value.as_bool());
            prop_assert_eq!(rhai, Ok(Ok(fast)), "`{}`", source);
        }
    }
}

#[test]
fn the_commonest_conditions_take_the_fast_path() {
    let engine = ScriptEngine::new();
    let sources = [
        "customer.loyalty_member && hour >= 3",
        "weekday != \"sunday\" && cart.total >= 12.0",
        "customer.loyalty_member && cart.lines.len() >= 2 && cart.total >= 15.0",
        "cart.total > 40.0 && tier != ()",
        "weekday == \"monday\" || \"families\" in audiences",
        "tier == \"gold\" || cart.total >= 60.0",
        "customer.email != () && customer.consents.marketing_email",
        "!(customer.attributes.segment == \"regular\")",
        "line.price >= 2.0 && line.taxonomies.contains(\"d3\")",
        "line.features.brand == \"b1\" || line.product_code == \"P00042\"",
        "line.has_feature(\"brand\", \"b1\") && location.has_feature(\"region\", \"north\")",
    ];
    for source in sources {
        let script = engine.compile_with(source, origin(), &["line"]).unwrap();
        assert!(ScriptEngine::has_fast_path(&script), "{source}");
    }
    let left_to_rhai = [
        "history.spent_last_days(365) >= 200.0",
        "cart.total * 2.0 > 10.0",
        "cart.lines[0].price > 1.0",
        "cart.lines.filter(|l| l.price > 1.0).len() > 0",
    ];
    for source in left_to_rhai {
        let script = engine.compile_with(source, origin(), &["line"]).unwrap();
        assert!(!ScriptEngine::has_fast_path(&script), "{source}");
    }
}

#[test]
fn the_fast_path_reads_the_facts() {
    let engine = ScriptEngine::new();
    let facts = Facts {
        customer: json!({"loyalty_member": true, "tags": ["vip"]}),
        cart: json!({"total": 92.5, "lines": [{"price": 3, "taxonomies": ["d3"]}]}),
        tier: json!("gold"),
        audiences: vec!["families".into()],
        now: "2026-05-04T10:30:00Z".parse().unwrap(),
        ..Facts::default()
    };
    let line = json!({"price": 3, "taxonomies": ["d3"]});
    let cases = [
        ("customer.loyalty_member && hour >= 10", None, true),
        (
            "weekday == \"monday\" && date == \"2026-05-04\"",
            None,
            true,
        ),
        ("cart.total > 92 && cart.lines.len() == 1", None, true),
        ("tier != () && \"families\" in audiences", None, true),
        ("customer.missing == ()", None, true),
        (
            "\"vip\" in customer.tags && !customer.tags.contains(\"x\")",
            None,
            true,
        ),
        (
            "line.price >= 2.5 && line.taxonomies.contains(\"d3\")",
            Some(&line),
            true,
        ),
        ("line.price > 3", Some(&line), false),
    ];
    for (source, line, expected) in cases {
        let script = engine.compile_with(source, origin(), &["line"]).unwrap();
        assert_eq!(
            engine.eval_fast(&script, &facts, line),
            Some(expected),
            "{source}"
        );
    }
}
