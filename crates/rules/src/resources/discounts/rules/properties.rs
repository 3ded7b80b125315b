//! Property tests of the unit discounts over generated carts (1 to 6
//! lines of products A, B and C, prices 0.01 to 50.00, 1 to 7 units each):
//! every Nth unit, the cheapest units, bundles and sets never take more
//! than a line is worth, every share is in whole cents, and the shares add
//! up exactly to what an independent computation on the sorted unit prices
//! says (and to `max_amount` when it caps them).

use std::path::PathBuf;

use proptest::prelude::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::engine::campaign::{Campaign, Listens};
use crate::engine::effect::Effect;
use crate::engine::evaluate::evaluate_plainly;
use crate::engine::facts::Facts;
use crate::engine::script::ScriptEngine;

/// A cart line as generated: product (0..3), price in cents, units.
type GeneratedLine = (usize, i64, u32);

fn lines() -> impl Strategy<Value = Vec<GeneratedLine>> {
    prop::collection::vec((0usize..3, 1i64..=5000, 1u32..=7), 1..=6)
}

fn cents(value: i64) -> Decimal {
    Decimal::new(value, 2)
}

/// What the engine takes off each line of `cart`, in cents.
fn taken(discount: &str, cart: &[GeneratedLine]) -> Vec<i64> {
    let text = format!("id: 1\nkind: discount\nname: D\non: cart\ndiscount:\n{discount}");
    let campaign = Campaign::parse(&ScriptEngine::new(), &PathBuf::from("p.yaml"), &text)
        .unwrap_or_else(|errors| panic!("{errors:?}"));
    let lines: Vec<Value> = cart
        .iter()
        .map(|(product, price, units)| {
            let code = ["A", "B", "C"][*product];
            json!({"product_code": code, "quantity": units, "price": *price as f64 / 100.0})
        })
        .collect();
    let total: i64 = cart.iter().map(|(_, p, u)| p * i64::from(*u)).sum();
    let facts = Facts {
        now: "2026-05-04T09:30:00Z".parse().unwrap(),
        cart: json!({"total": total as f64 / 100.0, "lines": lines}),
        ..Facts::default()
    };
    let evaluation = evaluate_plainly(&[campaign], &Listens::Cart, &facts);
    let mut offs = vec![0i64; cart.len()];
    for effect in &evaluation.effects {
        if let Effect::Discount(discount) = effect {
            let value = discount.value * Decimal::ONE_HUNDRED;
            assert_eq!(value.fract(), Decimal::ZERO, "whole cents: {value}");
            offs[(discount.line - 1) as usize] += i64::try_from(value.trunc()).unwrap();
        }
    }
    offs
}

/// The unit prices (cents) of the lines `matches` takes, one per unit.
fn unit_prices(cart: &[GeneratedLine], matches: impl Fn(usize) -> bool) -> Vec<i64> {
    cart.iter()
        .filter(|(product, ..)| matches(*product))
        .flat_map(|(_, price, units)| std::iter::repeat_n(*price, *units as usize))
        .collect()
}

fn assert_within_lines(cart: &[GeneratedLine], offs: &[i64]) {
    for ((_, price, units), off) in cart.iter().zip(offs) {
        assert!(
            *off >= 0 && *off <= price * i64::from(*units),
            "{off} off {cart:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every Nth unit free: the cheapest units/N unit prices, exactly.
    #[test]
    fn every_nth_free_takes_the_cheapest_units(cart in lines(), nth in 2u64..=4) {
        let offs = taken(&format!("  applies_to: every_nth\n  nth: {nth}\n  percent: 100\n"), &cart);
        assert_within_lines(&cart, &offs);
        let mut prices = unit_prices(&cart, |_| true);
        prices.sort_unstable();
        let count = prices.len() / nth as usize;
        let expected: i64 = prices[..count].iter().sum();
        prop_assert_eq!(offs.iter().sum::<i64>(), expected);
    }

    /// A set price: the dearest units in sets of `size`, each set taking
    /// off what it is worth over the price.
    #[test]
    fn a_set_price_takes_what_each_set_is_worth_over_it(
        cart in lines(), size in 2usize..=4, price in 1i64..=10000,
    ) {
        let offs = taken(
            &format!("  applies_to: set\n  size: {size}\n  price: {}\n", cents(price)),
            &cart,
        );
        assert_within_lines(&cart, &offs);
        let mut prices = unit_prices(&cart, |_| true);
        prices.sort_unstable_by(|a, b| b.cmp(a));
        let expected: i64 = prices
            .chunks(size)
            .filter(|set| set.len() == size)
            .map(|set| (set.iter().sum::<i64>() - price).max(0))
            .sum();
        prop_assert_eq!(offs.iter().sum::<i64>(), expected);
    }

    /// Buy A and B for a price: A's and B's units paired dearest first.
    #[test]
    fn a_bundle_pairs_the_dearest_units_of_each_part(
        cart in lines(), price in 1i64..=6000, cap in prop::option::of(1i64..=3000),
    ) {
        let mut discount = format!(
            "  applies_to: bundle\n  bundle: [line.product_code == \"A\", line.product_code == \"B\"]\n  price: {}\n",
            cents(price)
        );
        if let Some(cap) = cap {
            discount.push_str(&format!("  max_amount: {}\n", cents(cap)));
        }
        let offs = taken(&discount, &cart);
        assert_within_lines(&cart, &offs);
        let mut a = unit_prices(&cart, |product| product == 0);
        let mut b = unit_prices(&cart, |product| product == 1);
        a.sort_unstable_by(|x, y| y.cmp(x));
        b.sort_unstable_by(|x, y| y.cmp(x));
        let wanted: i64 = a.iter().zip(&b).map(|(a, b)| (a + b - price).max(0)).sum();
        let expected = cap.map_or(wanted, |cap| wanted.min(cap));
        prop_assert_eq!(offs.iter().sum::<i64>(), expected);
        // Only A and B lines take anything.
        for ((product, ..), off) in cart.iter().zip(&offs) {
            prop_assert!(*product != 2 || *off == 0);
        }
    }

    /// The cheapest `units` at a percentage, from `min_units`: each unit's
    /// share rounded once per line, never more than the line.
    #[test]
    fn the_cheapest_units_at_a_percentage(
        cart in lines(), units in 1u64..=3, percent in 1u32..=100,
    ) {
        let min_units = units + 1;
        let offs = taken(
            &format!("  applies_to: cheapest\n  units: {units}\n  min_units: {min_units}\n  percent: {percent}\n"),
            &cart,
        );
        assert_within_lines(&cart, &offs);
        let mut prices = unit_prices(&cart, |_| true);
        prices.sort_unstable();
        let taken_units = if prices.len() as u64 >= min_units { units as usize } else { 0 };
        let most: i64 = prices.iter().take(taken_units).sum();
        let total: i64 = offs.iter().sum();
        // Rounded per line, so within half a cent per line of the exact
        // percentage, and never more than the units' full price.
        let exact = Decimal::from(most) * Decimal::from(percent) / Decimal::ONE_HUNDRED;
        prop_assert!(total <= most);
        prop_assert!((Decimal::from(total) - exact).abs() <= Decimal::from(cart.len()));
    }
}
