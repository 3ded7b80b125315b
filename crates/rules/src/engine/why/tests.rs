//! The parts an explanation names, for each way a condition is built.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::*;
use crate::engine::facts::Facts;
use crate::engine::script::Origin;
use crate::resources::carts::purchase_days::PurchaseDays;

/// A condition written at column 7 of line 5 (`when: ...`) of `c.yaml`.
fn origin() -> Origin {
    Origin {
        file: PathBuf::from("c.yaml"),
        line: 5,
        column: 7,
    }
}

/// Facts of a cart of `total` on the day of `now`.
fn facts(now: &str, total: f64) -> Facts {
    let now: DateTime<Utc> = now.parse().unwrap();
    Facts {
        now,
        cart: json!({"total": total, "lines": [
            {"product_code": "TEA", "quantity": 1, "price": 2.0, "features": {"department": "drinks"}},
            {"product_code": "MILK", "quantity": 2, "price": 1.0, "features": {"department": "dairy"}}
        ]}),
        customer: json!({"attributes": {"vip": true}}),
        history: std::sync::Arc::new(PurchaseDays::of_carts(&[(
            now - chrono::Duration::days(3),
            40.0,
        )])),
        explain: true,
        ..Facts::default()
    }
}

/// The parts of `source` that made it give `result` on `facts` (on cart
/// line `line` for a line selector), checking first that it does.
fn parts(source: &str, facts: &Facts, line: Option<usize>, result: bool) -> Vec<Part> {
    let engine = ScriptEngine::new();
    let extra: &[&str] = if line.is_some() { &["line"] } else { &[] };
    let script = engine.compile_with(source, origin(), extra).unwrap();
    let prepared = engine.prepare(facts);
    assert_eq!(
        engine.eval_prepared(&script, &prepared, line).unwrap(),
        result,
        "{source}"
    );
    deciding_parts(&engine, &script, &prepared, line, result)
}

/// The column (in the file) where `needle` starts in `source`.
fn column_of(source: &str, needle: &str) -> usize {
    origin().column + source.find(needle).unwrap()
}

fn values(part: &Part) -> Vec<(&str, &Value)> {
    part.values.iter().map(|(k, v)| (k.as_str(), v)).collect()
}

const WEEKEND: &str = r#"(weekday == "saturday" || weekday == "sunday") && cart.total > 40.0"#;

#[test]
fn a_false_and_names_its_first_false_operand_with_the_values_it_read() {
    // 2026-05-02 is a Saturday.
    let found = parts(WEEKEND, &facts("2026-05-02T10:00:00Z", 35.0), None, false);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].text, "cart.total > 40.0");
    assert!(!found[0].was);
    assert_eq!(values(&found[0]), [("cart.total", &json!(35.0))]);
    assert_eq!(
        found[0].at,
        format!("c.yaml:5:{}", column_of(WEEKEND, "cart.total"))
    );
    assert_eq!(
        found[0].describe(),
        "`cart.total > 40.0` was false: `cart.total` is 35.0"
    );
}

#[test]
fn a_false_or_names_every_alternative_inside_parentheses() {
    // 2026-05-04 is a Monday: the `||` decided, not the total.
    let found = parts(WEEKEND, &facts("2026-05-04T10:00:00Z", 50.0), None, false);
    let texts: Vec<&str> = found.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(
        texts,
        [r#"weekday == "saturday""#, r#"weekday == "sunday""#]
    );
    assert_eq!(values(&found[1]), [("weekday", &json!("monday"))]);
    assert_eq!(
        found[1].at,
        format!("c.yaml:5:{}", column_of(WEEKEND, r#"weekday == "sunday""#))
    );
}

#[test]
fn a_negation_names_the_operand_that_was_true() {
    let source = "!customer.attributes.vip || cart.total < 10.0";
    let found = parts(source, &facts("2026-05-04T10:00:00Z", 35.0), None, false);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].text, "customer.attributes.vip");
    assert!(found[0].was, "the negated operand was true");
    assert_eq!(
        found[1].describe(),
        "`cart.total < 10.0` was false: `cart.total` is 35.0"
    );
}

#[test]
fn a_true_and_under_a_negation_names_every_operand() {
    let source = "!(cart.total > 10.0 && weekday == \"monday\")";
    let found = parts(source, &facts("2026-05-04T10:00:00Z", 35.0), None, false);
    let described: Vec<String> = found.iter().map(Part::describe).collect();
    assert_eq!(
        described,
        [
            "`cart.total > 10.0` was true: `cart.total` is 35.0",
            "`weekday == \"monday\"` was true: `weekday` is \"monday\"",
        ]
    );
}

#[test]
fn helper_calls_show_what_they_returned() {
    let source = "cart.total > 10.0 && history.spent_last_days(30) >= 100.0";
    let found = parts(source, &facts("2026-05-04T10:00:00Z", 35.0), None, false);
    assert_eq!(
        found[0].describe(),
        "`history.spent_last_days(30) >= 100.0` was false: `history.spent_last_days(30)` is 40.0"
    );
    let source = "\"vip\" in audiences";
    let found = parts(source, &facts("2026-05-04T10:00:00Z", 35.0), None, false);
    assert_eq!(
        found[0].describe(),
        "`\"vip\" in audiences` was false: `audiences` is []"
    );
}

#[test]
fn a_missing_fact_reads_as_nothing() {
    let source = "cart.totl > 40.0";
    let found = parts(source, &facts("2026-05-04T10:00:00Z", 35.0), None, false);
    assert_eq!(
        found[0].describe(),
        "`cart.totl > 40.0` was false: `cart.totl` is () (nothing)"
    );
}

#[test]
fn a_line_selector_names_the_cart_line() {
    let source = "line.has_feature(\"department\", \"dairy\") && line.quantity >= 3";
    let found = parts(source, &facts("2026-05-04T10:00:00Z", 35.0), Some(1), false);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].cart_line, Some(2));
    assert_eq!(
        found[0].describe(),
        "cart line 2: `line.quantity >= 3` was false: `line.quantity` is 2"
    );
    let found = parts(source, &facts("2026-05-04T10:00:00Z", 35.0), Some(0), false);
    assert_eq!(found[0].text, "line.has_feature(\"department\", \"dairy\")");
}

#[test]
fn a_condition_over_several_lines_points_at_the_line_of_its_part() {
    let source = "cart.total > 10.0 &&\n  weekday == \"sunday\"";
    let found = parts(source, &facts("2026-05-04T10:00:00Z", 35.0), None, false);
    assert_eq!(found[0].at, "c.yaml:6:3");
}

#[test]
fn a_false_has_feature_shows_the_features_the_line_carries() {
    let source = r#"line.has_feature("department", "bakery")"#;
    let found = parts(source, &facts("2026-05-02T10:00:00Z", 35.0), Some(1), false);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].cart_line, Some(2));
    // The line sent no completed features: only what it sent is shown.
    assert_eq!(
        values(&found[0]),
        [("line.features", &json!({"department": "dairy"}))]
    );
    assert!(
        found[0]
            .describe()
            .contains(r#"`line.features` is {"department":"dairy"}"#),
        "{}",
        found[0].describe()
    );
}

#[test]
fn a_call_that_is_the_whole_part_shows_what_it_was_called_on() {
    let mut facts = facts("2026-05-02T10:00:00Z", 35.0);
    facts.customer = json!({"email": "ana@example.com"});
    let found = parts(
        r#"customer.email.ends_with("@vip.example")"#,
        &facts,
        None,
        false,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        values(&found[0]),
        [("customer.email", &json!("ana@example.com"))]
    );
}
