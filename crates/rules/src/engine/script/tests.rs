//! Expressions compiled and evaluated: facts they see, errors at their line.

use super::*;
use crate::resources::carts::purchase_days::PurchaseDays;
use crate::resources::carts::purchase_days::PurchaseTotals;
use chrono::{DateTime, Utc};
use serde_json::json;
use std::path::PathBuf;

fn origin() -> Origin {
    Origin {
        file: PathBuf::from("campaigns/demo/segments.yaml"),
        line: 10,
        column: 0,
    }
}

fn facts() -> Facts {
    let now: DateTime<Utc> = "2026-06-01T00:00:00Z".parse().unwrap();
    let purchases = vec![
        (now - chrono::Duration::days(400), 100.0),
        (now - chrono::Duration::days(30), 40.0),
        (now - chrono::Duration::days(2), 10.0),
    ];
    Facts {
        totals: PurchaseTotals::of(&purchases),
        customer: json!({"email": "a@b.es", "attributes": {"vip": true}, "birth_date": "1990-06-01"}),
        history: Arc::new(PurchaseDays::of_carts(&purchases)),
        points_balance: 250,
        now,
        ..Facts::default()
    }
}

#[test]
fn conditions_see_the_customer_and_history() {
    let engine = ScriptEngine::new();
    let cases = [
        ("history.spent_last_days(365) == 50.0", true),
        ("history.carts_last_days(7) == 1", true),
        ("lifetime_spend == 150.0 && cart_count == 3", true),
        ("customer.attributes.vip == true", true),
        ("history.days_since(customer.birth_date) >= 36 * 365", true),
        ("points_balance > 1000", false),
        ("last_purchase_date == \"2026-05-30\"", true),
    ];
    for (source, expected) in cases {
        let script = engine.compile(source, origin()).unwrap();
        assert_eq!(
            engine.eval_bool(&script, &facts()).unwrap(),
            expected,
            "{source}"
        );
    }
}

#[test]
fn compile_errors_name_file_and_line() {
    let engine = ScriptEngine::new();
    let error = engine.compile("lifetime_spend >", origin()).unwrap_err();
    assert_eq!(error.line, 10);
    assert!(
        error
            .to_string()
            .starts_with("campaigns/demo/segments.yaml:10:"),
        "{error}"
    );
    let unknown = engine.compile("lifetime_spnd > 1.0", origin()).unwrap_err();
    assert!(unknown.message.contains("lifetime_spnd"), "{unknown}");
    let multi = engine
        .compile("lifetime_spend > 1.0 &&\n  nope", origin())
        .unwrap_err();
    assert_eq!(multi.line, 11, "{multi}");
}

#[test]
fn a_condition_must_be_boolean() {
    let engine = ScriptEngine::new();
    let script = engine.compile("lifetime_spend", origin()).unwrap();
    assert!(engine.eval_bool(&script, &facts()).is_err());
    assert_eq!(engine.eval_json(&script, &facts()).unwrap(), json!(150.0));
}
