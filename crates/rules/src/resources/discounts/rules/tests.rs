//! Discounts worked out through the engine: amounts as expressions, every
//! Nth unit, the cheapest units, bundles and sets, and the mistakes a file
//! can make with them.

use std::path::PathBuf;

use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::engine::campaign::{Campaign, Listens};
use crate::engine::check::Known;
use crate::engine::effect::Effect;
use crate::engine::evaluate::{Evaluation, evaluate_plainly};
use crate::engine::facts::Facts;
use crate::engine::script::ScriptEngine;

fn campaign(discount: &str) -> Campaign {
    let text = format!("id: 5\nkind: discount\nname: D\non: cart\ndiscount:\n{discount}");
    Campaign::parse(&ScriptEngine::new(), &PathBuf::from("d.yaml"), &text)
        .unwrap_or_else(|errors| panic!("{errors:?}"))
}

fn problems(discount: &str) -> Vec<String> {
    let text = format!("id: 5\nkind: discount\nname: D\non: cart\ndiscount:\n{discount}");
    let known = Known::default();
    match Campaign::parse_checked(
        &ScriptEngine::new(),
        &PathBuf::from("d.yaml"),
        &text,
        Some(&known),
    ) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

/// A line of `quantity` units of `code` at `price`, in category `category`.
fn line(code: &str, category: &str, quantity: u32, price: f64) -> Value {
    json!({"product_code": code, "quantity": quantity, "price": price,
           "taxonomies": [category]})
}

fn run(campaign: &Campaign, lines: Vec<Value>) -> Evaluation {
    let total: f64 = lines
        .iter()
        .map(|l| l["price"].as_f64().unwrap() * l["quantity"].as_f64().unwrap())
        .sum();
    let facts = Facts {
        now: "2026-05-04T09:30:00Z".parse().unwrap(),
        cart: json!({"total": (total * 100.0).round() / 100.0, "lines": lines}),
        explain: true,
        ..Facts::default()
    };
    evaluate_plainly(std::slice::from_ref(campaign), &Listens::Cart, &facts)
}

/// (cart line, value) of each discount effect.
fn shares(evaluation: &Evaluation) -> Vec<(i64, Decimal)> {
    evaluation
        .effects
        .iter()
        .filter(|effect| matches!(effect, Effect::Discount(_)))
        .map(|effect| (effect.line(), effect.discount_value()))
        .collect()
}

fn d(text: &str) -> Decimal {
    text.parse().unwrap()
}

fn why(evaluation: &Evaluation) -> (String, String) {
    let explanation = &evaluation.explanations[0];
    assert!(!explanation.applied, "{explanation:?}");
    (
        explanation.reason.clone().unwrap_or_default(),
        explanation.at.as_deref().unwrap_or_default().to_string(),
    )
}

#[test]
fn an_amount_expression_is_worked_out_exactly_in_decimals() {
    // Every third unit at half price, written as an amount per line: 1.99
    // x 0.5 is 0.995, which rounds to 1.00 (in floats it is 0.99499...).
    let half = campaign(
        "  applies_to: lines\n  lines: line.product_code == \"JAM\"\n  amount: (line.quantity / 3).floor() * line.price * 0.5\n",
    );
    let evaluation = run(&half, vec![line("JAM", "food", 5, 1.99)]);
    assert_eq!(shares(&evaluation), vec![(1, d("1.00"))]);
    let six = run(&half, vec![line("JAM", "food", 6, 1.99)]);
    assert_eq!(shares(&six), vec![(1, d("1.99"))]);
    // Fewer than three units: the expression gives 0, nothing is taken.
    let two = run(&half, vec![line("JAM", "food", 2, 1.99)]);
    assert!(shares(&two).is_empty());
    assert!(why(&two).0.contains("comes to 0"), "{:?}", two.explanations);
}

#[test]
fn a_percent_expression_gives_each_line_its_own_percentage() {
    let bulk = campaign(
        "  applies_to: lines\n  lines: \"true\"\n  percent: \"if line.quantity >= 10 { 20 } else { 5 }\"\n",
    );
    let evaluation = run(
        &bulk,
        vec![line("A", "food", 10, 1.00), line("B", "food", 1, 10.00)],
    );
    assert_eq!(shares(&evaluation), vec![(1, d("2.00")), (2, d("0.50"))]);
    let Effect::Discount(first) = &evaluation.effects[0] else {
        panic!("{:?}", evaluation.effects);
    };
    assert_eq!(
        first.effect_type.as_str(),
        "percent",
        "a percentage says so"
    );
}

#[test]
fn a_percentage_over_100_is_refused_at_the_percent_line() {
    let wrong = campaign("  applies_to: cart\n  percent: cart.total * 10\n");
    let evaluation = run(&wrong, vec![line("A", "food", 1, 30.0)]);
    let (reason, at) = why(&evaluation);
    assert!(
        reason.contains("gave 300") && reason.contains("at most 100"),
        "{reason}"
    );
    assert_eq!(at, "d.yaml:7");
}

#[test]
fn every_third_snack_is_half_price_counting_different_snacks_together() {
    let snacks = campaign(
        "  applies_to: every_nth\n  lines: line.taxonomies.contains(\"snacks\")\n  nth: 3\n  percent: 50\n",
    );
    let evaluation = run(
        &snacks,
        vec![
            line("CRISPS", "snacks", 2, 1.80),
            line("NUTS", "snacks", 1, 2.40),
            line("COLA", "drinks", 3, 1.00),
            line("PRETZEL", "snacks", 3, 1.20),
        ],
    );
    // Six snacks: the two cheapest units (pretzels) at half price; cola
    // is not a snack.
    assert_eq!(shares(&evaluation), vec![(4, d("1.20"))]);
    let two = run(&snacks, vec![line("CRISPS", "snacks", 2, 1.80)]);
    let (reason, at) = why(&two);
    assert!(
        reason.contains("hold 2 units") && reason.contains("one in every 3"),
        "{reason}"
    );
    assert_eq!(at, "d.yaml:8", "the `nth:` line");
}

#[test]
fn the_cheapest_unit_is_free_from_three() {
    let shirts = campaign("  applies_to: cheapest\n  min_units: 3\n  percent: 100\n");
    let evaluation = run(
        &shirts,
        vec![
            line("RED", "shirts", 2, 20.0),
            line("BLUE", "shirts", 1, 15.0),
        ],
    );
    assert_eq!(shares(&evaluation), vec![(2, d("15.00"))]);
    let two = run(&shirts, vec![line("RED", "shirts", 2, 20.0)]);
    assert_eq!(why(&two).1, "d.yaml:7", "the `min_units:` line");
}

#[test]
fn a_bundle_costs_its_price_as_often_as_the_cart_makes_it() {
    let menu = campaign(
        "  applies_to: bundle\n  bundle:\n    - line.product_code == \"BURGER\"\n    - line.product_code == \"FRIES\"\n  price: 6.00\n",
    );
    let evaluation = run(
        &menu,
        vec![
            line("BURGER", "food", 3, 5.00),
            line("FRIES", "food", 2, 2.50),
            line("COLA", "drinks", 1, 1.50),
        ],
    );
    // Two sets of 7.50 for 6.00: 3.00 off, shared 2.00 / 1.00.
    assert_eq!(shares(&evaluation), vec![(1, d("2.00")), (2, d("1.00"))]);
    let no_fries = run(&menu, vec![line("BURGER", "food", 3, 5.00)]);
    let (reason, at) = why(&no_fries);
    assert!(reason.contains("part 2"), "{reason}");
    assert_eq!(at, "d.yaml:7", "the `bundle:` line");
}

#[test]
fn a_set_of_three_costs_ten() {
    let three_for_ten = campaign(
        "  applies_to: set\n  lines: line.taxonomies.contains(\"wine\")\n  size: 3\n  price: 10.00\n  max_sets: 1\n",
    );
    let evaluation = run(
        &three_for_ten,
        vec![line("RED", "wine", 4, 5.00), line("WHITE", "wine", 2, 4.00)],
    );
    // One set (max_sets), the dearest units: 3 reds, 15.00 for 10.00.
    assert_eq!(shares(&evaluation), vec![(1, d("5.00"))]);
}

#[test]
fn a_unit_price_under_the_price_is_never_raised() {
    let two_euro = campaign("  applies_to: every_nth\n  nth: 2\n  price: 2.00\n");
    let evaluation = run(&two_euro, vec![line("A", "food", 2, 1.50)]);
    assert!(shares(&evaluation).is_empty());
    assert!(why(&evaluation).0.contains("comes to 0"));
}

#[test]
fn unit_discounts_leave_lines_that_may_not_be_discounted_alone() {
    let free = campaign("  applies_to: cheapest\n  min_units: 2\n  percent: 100\n");
    let mut tobacco = line("CIGS", "tobacco", 1, 9.00);
    tobacco["discountable"] = json!(false);
    let evaluation = run(&free, vec![tobacco, line("A", "food", 2, 3.00)]);
    assert_eq!(shares(&evaluation), vec![(2, d("3.00"))]);
}

#[test]
fn each_mistake_of_a_unit_discount_is_named_at_its_key() {
    let cases = [
        (
            "  applies_to: cart\n  price: 1.0\n",
            "`price` is for units and sets",
        ),
        ("  applies_to: every_nth\n  percent: 50\n", "needs `nth`"),
        (
            "  applies_to: every_nth\n  nth: 1\n  percent: 50\n",
            "nth is 2 or more",
        ),
        (
            "  applies_to: cheapest\n  units: 2\n  min_units: 2\n  percent: 100\n",
            "min_units is more than units",
        ),
        (
            "  applies_to: bundle\n  bundle: [line.price > 1.0]\n  price: 5\n",
            "2 parts or more",
        ),
        (
            "  applies_to: bundle\n  lines: \"true\"\n  bundle: [\"true\", \"true\"]\n  price: 5\n",
            "`lines` is not for `applies_to: bundle`",
        ),
        (
            "  applies_to: set\n  size: 3\n  nth: 2\n  price: 5\n",
            "`nth` is only for",
        ),
        (
            "  applies_to: set\n  size: 300\n  price: 5\n",
            "size is at most 100",
        ),
        (
            "  applies_to: units\n  percent: 5\n",
            "applies_to is one of cart, lines",
        ),
        (
            "  applies_to: lines\n  lines: \"true\"\n  amount: line.pricee * 2\n",
            "pricee",
        ),
    ];
    for (discount, expected) in cases {
        let found = problems(discount);
        assert!(
            found.iter().any(|problem| problem.contains(expected)),
            "{discount}: {found:?}"
        );
    }
}
