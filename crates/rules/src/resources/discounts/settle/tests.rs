//! Stacking through the engine: campaign files and Vouchers on one cart.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::engine::campaign::{Campaign, Listens};
use crate::engine::effect::Effect;
use crate::engine::evaluate::{Evaluation, evaluate_plainly};
use crate::engine::facts::Facts;
use crate::engine::script::ScriptEngine;
use crate::error::ErrorCode;
use crate::resources::coupons::apply::DesiredVoucher;

fn campaign(text: &str) -> Campaign {
    Campaign::parse(&ScriptEngine::new(), &PathBuf::from("s.yaml"), text)
        .unwrap_or_else(|errors| panic!("{errors:?}"))
}

/// A cart discount campaign `id` of `off` (`percent: 10` or `amount: 3`)
/// with the `stacking` section's lines.
fn discount(id: i64, off: &str, stacking: &str) -> Campaign {
    campaign(&format!(
        "id: {id}\nkind: discount\nname: D{id}\non: cart\ndiscount:\n  applies_to: cart\n  {off}\n{stacking}"
    ))
}

fn coupon(id: i64, off: &str, stacking: &str) -> Campaign {
    campaign(&format!(
        "id: {id}\nkind: coupon\nname: C{id}\ncoupon:\n  discount: {{ {off} }}\n{stacking}"
    ))
}

fn voucher(code: &str, coupon_id: i64) -> DesiredVoucher {
    DesiredVoucher {
        code: code.into(),
        key: code.into(),
        voucher_id: format!("vch_{code}"),
        voucher_code: code.into(),
        coupon_id,
        static_code: None,
        reservation_id: None,
        refusal: None,
        create: None,
    }
}

/// Two lines: 60.00 of A and 40.00 of B.
fn cart() -> Value {
    json!({"total": 100.0, "lines": [
        {"product_code": "A", "quantity": 1, "price": 60.0},
        {"product_code": "B", "quantity": 1, "price": 40.0}
    ]})
}

fn run(campaigns: &[Campaign], vouchers: Vec<DesiredVoucher>) -> Evaluation {
    let facts = Facts {
        now: "2026-05-04T09:30:00Z".parse().unwrap(),
        cart: cart(),
        vouchers,
        ..Facts::default()
    };
    evaluate_plainly(campaigns, &Listens::Cart, &facts)
}

/// What each campaign or Coupon took off in all, as (rule, cents).
fn taken(evaluation: &Evaluation) -> Vec<(i64, i64)> {
    let mut totals: Vec<(i64, i64)> = Vec::new();
    for effect in &evaluation.effects {
        let cents = (effect.discount_value() * rust_decimal::Decimal::ONE_HUNDRED)
            .try_into()
            .unwrap();
        if cents == 0 {
            continue;
        }
        match totals
            .iter_mut()
            .find(|(rule, _)| *rule == effect.rule_id())
        {
            Some((_, total)) => *total += cents,
            None => totals.push((effect.rule_id(), cents)),
        }
    }
    totals
}

fn reason(evaluation: &Evaluation, rule_id: i64) -> String {
    let explanation = evaluation
        .explanations
        .iter()
        .find(|e| e.rule_id == rule_id)
        .unwrap();
    assert!(!explanation.applied, "{explanation:?}");
    explanation.reason.clone().unwrap_or_default()
}

fn rejections(evaluation: &Evaluation) -> Vec<(String, ErrorCode, String)> {
    evaluation
        .effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::VoucherRejected(r) => Some((r.voucher_code.clone(), r.code, r.error.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn offers_that_say_nothing_all_apply_as_before() {
    let evaluation = run(
        &[discount(1, "percent: 10", ""), discount(2, "amount: 5", "")],
        vec![],
    );
    assert_eq!(taken(&evaluation), [(1, 1000), (2, 500)]);
}

#[test]
fn the_exclusive_offer_worth_most_wins_and_the_loser_says_by_how_much() {
    let evaluation = run(
        &[
            discount(1, "percent: 10", "stacking: { exclusive: true }\n"),
            discount(2, "amount: 15", "stacking: { exclusive: true }\n"),
        ],
        vec![],
    );
    assert_eq!(taken(&evaluation), [(2, 1500)]);
    assert_eq!(
        reason(&evaluation, 1),
        "does not combine with `D2` (rule 2), which applies instead: the offers chosen take 15.00 off, 5.00 more than the best choice with this one (10.00)"
    );
}

#[test]
fn an_exclusive_offer_loses_to_two_that_are_worth_more_together() {
    let evaluation = run(
        &[
            discount(1, "amount: 12", "stacking: { exclusive: true }\n"),
            discount(2, "percent: 10", ""),
            discount(3, "amount: 5", ""),
        ],
        vec![],
    );
    assert_eq!(taken(&evaluation), [(2, 1000), (3, 500)]);
    assert!(
        reason(&evaluation, 1).contains("take 15.00 off, 3.00 more"),
        "{}",
        reason(&evaluation, 1)
    );
}

#[test]
fn a_higher_priority_comes_first_and_wins_whatever_it_is_worth() {
    let evaluation = run(
        &[
            discount(1, "percent: 50", ""),
            discount(
                2,
                "amount: 1",
                "stacking: { exclusive: true, priority: 5 }\n",
            ),
        ],
        vec![],
    );
    assert_eq!(taken(&evaluation), [(2, 100)]);
    assert_eq!(
        reason(&evaluation, 1),
        "does not combine with `D2` (rule 2), which comes first (priority 5 over 0)"
    );
}

#[test]
fn combines_with_needs_both_sides() {
    let seasonal = "stacking: { group: seasonal, combines_with: [loyalty] }\n";
    // The loyalty offer allows any group: both apply.
    let evaluation = run(
        &[
            discount(1, "amount: 10", seasonal),
            discount(2, "amount: 4", "stacking: { group: loyalty }\n"),
        ],
        vec![],
    );
    assert_eq!(taken(&evaluation), [(1, 1000), (2, 400)]);
    // The loyalty offer allows only its own group: the seasonal one is not
    // in it, so they compete.
    let evaluation = run(
        &[
            discount(1, "amount: 10", seasonal),
            discount(
                2,
                "amount: 4",
                "stacking: { group: loyalty, combines_with: [loyalty] }\n",
            ),
        ],
        vec![],
    );
    assert_eq!(taken(&evaluation), [(1, 1000)]);
    assert!(reason(&evaluation, 2).contains("`D1` (rule 1)"));
}

#[test]
fn a_percentage_is_of_the_original_or_the_discounted_price_as_written() {
    // 50 % off, then 10 % of the original 100.00 (10.00) or of the 50.00
    // left (5.00).
    let first = "stacking: { priority: 1 }\n";
    let evaluation = run(
        &[
            discount(1, "percent: 50", first),
            discount(2, "percent: 10", ""),
        ],
        vec![],
    );
    assert_eq!(taken(&evaluation), [(1, 5000), (2, 1000)]);
    let evaluation = run(
        &[
            discount(1, "percent: 50", first),
            discount(2, "percent: 10", "stacking: { base: discounted }\n"),
        ],
        vec![],
    );
    assert_eq!(taken(&evaluation), [(1, 5000), (2, 500)]);
    // A Voucher is taken of what is left unless its Coupon says otherwise.
    let evaluation = run(
        &[
            discount(1, "percent: 50", ""),
            coupon(600, "percent: 10", ""),
        ],
        vec![voucher("V1", 600)],
    );
    assert_eq!(taken(&evaluation), [(1, 5000), (600, 500)]);
    let evaluation = run(
        &[
            discount(1, "percent: 50", ""),
            coupon(600, "percent: 10", "stacking: { base: original }\n"),
        ],
        vec![voucher("V1", 600)],
    );
    assert_eq!(taken(&evaluation), [(1, 5000), (600, 1000)]);
}

#[test]
fn a_voucher_left_out_by_the_rules_is_rejected_as_not_combinable() {
    let evaluation = run(
        &[
            discount(1, "percent: 20", ""),
            coupon(600, "amount: 5", "stacking: { exclusive: true }\n"),
        ],
        vec![voucher("V1", 600)],
    );
    assert_eq!(taken(&evaluation), [(1, 2000)]);
    let rejected = rejections(&evaluation);
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0].1, ErrorCode::VoucherNotCombinable);
    assert!(rejected[0].2.contains("`D1` (rule 1)"), "{rejected:?}");
    assert!(reason(&evaluation, 600).starts_with("V1: does not combine"));
    // Worth more, the exclusive Voucher wins and the campaign says why not.
    let evaluation = run(
        &[
            discount(1, "percent: 20", ""),
            coupon(600, "amount: 25", "stacking: { exclusive: true }\n"),
        ],
        vec![voucher("V1", 600)],
    );
    assert_eq!(taken(&evaluation), [(600, 2500)]);
    assert!(
        reason(&evaluation, 1).contains("Voucher V1 of `C600` (Coupon 600)"),
        "{}",
        reason(&evaluation, 1)
    );
}

#[test]
fn max_per_cart_limits_the_vouchers_of_one_coupon() {
    let evaluation = run(
        &[coupon(600, "amount: 5", "stacking: { max_per_cart: 1 }\n")],
        vec![voucher("V1", 600), voucher("V2", 600)],
    );
    assert_eq!(taken(&evaluation), [(600, 500)]);
    let rejected = rejections(&evaluation);
    assert_eq!(
        rejected,
        [(
            "V2".to_string(),
            ErrorCode::VoucherNotCombinable,
            "a cart uses at most 1 Voucher of this Coupon".to_string()
        )]
    );
    // Without it, both apply.
    let evaluation = run(
        &[coupon(600, "amount: 5", "")],
        vec![voucher("V1", 600), voucher("V2", 600)],
    );
    assert_eq!(taken(&evaluation), [(600, 1000)]);
}

#[test]
fn stacking_is_refused_where_it_means_nothing_with_its_line() {
    let errors = Campaign::parse(
        &ScriptEngine::new(),
        &PathBuf::from("s.yaml"),
        "id: 1\nkind: points\nname: P\non: cart\npoints: { fixed: 1 }\nstacking: { priority: 1 }\n",
    )
    .unwrap_err();
    assert_eq!(errors[0].line, 6, "{errors:?}");
    let errors = Campaign::parse(
        &ScriptEngine::new(),
        &PathBuf::from("s.yaml"),
        "id: 1\nkind: discount\nname: D\non: cart\ndiscount: { applies_to: cart, percent: 5 }\nstacking:\n  exclusive: true\n  combines_with: [a]\n  max_per_cart: 2\n",
    )
    .unwrap_err();
    let said: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(
        said.iter()
            .any(|e| e.starts_with("s.yaml:7:") && e.contains("not both")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|e| e.starts_with("s.yaml:9:") && e.contains("coupon")),
        "{said:?}"
    );
}
