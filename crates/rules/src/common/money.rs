//! Money: exact decimal amounts, the one rounding rule, and splitting an
//! amount over lines so the shares add up to it to the last minor unit.
//!
//! Binary floating point cannot hold most cent values (`1.005 * 100.0` is
//! `100.49999…`), so amounts are [`Decimal`]s and are rounded here, once per
//! computed amount, and nowhere else.

use rust_decimal::{Decimal, RoundingStrategy};

/// Decimals of a currency's minor unit unless the Company configures another.
pub const DEFAULT_MINOR_UNITS: u32 = 2;

/// Rounds `amount` to `minor_units` decimals, half away from zero: the one
/// rounding rule for money.
pub fn round_money(amount: Decimal, minor_units: u32) -> Decimal {
    amount.round_dp_with_strategy(minor_units, RoundingStrategy::MidpointAwayFromZero)
}

/// The decimal an `f64` stands for: its shortest decimal text, so `0.1`
/// is 0.1 and not 0.1000000000000000055…; `None` when not finite.
pub fn decimal_from_f64(value: f64) -> Option<Decimal> {
    if !value.is_finite() {
        return None;
    }
    // Whole numbers (most quantities) need no text.
    const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;
    if value.fract() == 0.0 && value.abs() < EXACT_INTEGERS {
        return Some(Decimal::from(value as i64));
    }
    let text = value.to_string();
    text.parse::<Decimal>()
        .or_else(|_| Decimal::from_scientific(&text))
        .ok()
}

/// The `f64` nearest to `amount`, for conditions, which compare numbers.
pub fn decimal_to_f64(amount: Decimal) -> f64 {
    use rust_decimal::prelude::ToPrimitive;
    amount.to_f64().unwrap_or(0.0)
}

/// The exact sum of amounts held as numbers (0.1 and 0.2 make 0.3), as the
/// nearest number; for the figures conditions see.
pub fn sum_exactly(amounts: impl IntoIterator<Item = f64>) -> f64 {
    decimal_to_f64(amounts.into_iter().filter_map(decimal_from_f64).sum())
}

/// `amount` in whole minor units, when it has no finer part. Integer
/// arithmetic on the decimal's own digits: this runs for every line of every
/// cart discount.
fn minor_units_of(amount: Decimal, minor_units: u32) -> Option<i128> {
    let (mantissa, scale) = (amount.mantissa(), amount.scale());
    if scale <= minor_units {
        mantissa.checked_mul(10i128.checked_pow(minor_units - scale)?)
    } else {
        let finer = 10i128.checked_pow(scale - minor_units)?;
        (mantissa % finer == 0).then_some(mantissa / finer)
    }
}

/// Splits `total` over `weights` in proportion, each share in whole minor
/// units, the shares adding up to `total` exactly. Each share is first
/// rounded down; the units left go one each to the largest remainders (ties:
/// the larger weight, then the earlier position), so equal weights get
/// shares differing by at most one unit and the split is deterministic.
///
/// `None` when `total` or a weight is negative or finer than the minor unit,
/// or when the weights add up to nothing while `total` does not.
pub fn allocate(total: Decimal, weights: &[Decimal], minor_units: u32) -> Option<Vec<Decimal>> {
    let positions: Vec<usize> = (0..weights.len()).collect();
    allocate_with_ties(total, weights, &positions, minor_units)
}

/// [`allocate`], with equal remainders of equal weights told apart by `ties`
/// (one key per weight, the smaller first) rather than by position: keyed by
/// what each line is, the split does not depend on the order of the lines.
pub fn allocate_with_ties<K: Ord>(
    total: Decimal,
    weights: &[Decimal],
    ties: &[K],
    minor_units: u32,
) -> Option<Vec<Decimal>> {
    let total_units = minor_units_of(total, minor_units).filter(|t| *t >= 0)?;
    let weight_units = weights
        .iter()
        .map(|w| minor_units_of(*w, minor_units).filter(|w| *w >= 0))
        .collect::<Option<Vec<i128>>>()?;
    let sum: i128 = weight_units.iter().sum();
    if sum == 0 {
        return (total_units == 0).then(|| vec![Decimal::ZERO; weights.len()]);
    }
    // Shares and remainders, in 64-bit arithmetic when the products fit (any
    // cart short of ninety million million minor units), 128-bit otherwise.
    let largest = weight_units.iter().copied().max().unwrap_or(0);
    let narrow = sum <= i128::from(i64::MAX)
        && total_units
            .checked_mul(largest)
            .is_some_and(|product| product <= i128::from(i64::MAX));
    // (share, remainder) of each weight.
    let mut split: Vec<(i128, i128)> = Vec::with_capacity(weights.len());
    for weight in &weight_units {
        let exact = total_units.checked_mul(*weight)?;
        split.push(if narrow {
            let (exact, sum) = (exact as i64, sum as i64);
            (i128::from(exact / sum), i128::from(exact % sum))
        } else {
            (exact / sum, exact % sum)
        });
    }
    let left = total_units - split.iter().map(|(share, _)| share).sum::<i128>();
    if left > 0 {
        let mut order: Vec<usize> = (0..weights.len()).collect();
        order.sort_by(|&a, &b| {
            split[b]
                .1
                .cmp(&split[a].1)
                .then(weight_units[b].cmp(&weight_units[a]))
                .then_with(|| ties.get(a).cmp(&ties.get(b)))
                .then(a.cmp(&b))
        });
        for index in order.into_iter().take(left as usize) {
            split[index].0 += 1;
        }
    }
    Some(
        split
            .into_iter()
            .map(|(units, _)| Decimal::from_i128_with_scale(units, minor_units))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use proptest::prelude::*;

    use super::*;

    fn d(text: &str) -> Decimal {
        Decimal::from_str(text).unwrap()
    }

    #[test]
    fn one_point_zero_zero_five_rounds_up_to_one_point_zero_one() {
        assert_eq!(round_money(d("1.005"), 2), d("1.01"));
        assert_eq!(round_money(d("-1.005"), 2), d("-1.01"));
        // What the float rounding it replaces gave:
        assert_eq!((1.005f64 * 100.0).round() / 100.0, 1.0);
    }

    #[test]
    fn floats_read_as_the_decimal_they_print_as() {
        assert_eq!(decimal_from_f64(0.1), Some(d("0.1")));
        assert_eq!(decimal_from_f64(1.005), Some(d("1.005")));
        assert_eq!(decimal_from_f64(2.0), Some(d("2")));
        assert_eq!(decimal_from_f64(f64::NAN), None);
        assert_eq!(decimal_to_f64(d("12.34")), 12.34);
        assert_eq!(sum_exactly([0.1, 0.2]), 0.3);
    }

    #[test]
    fn a_tenth_and_two_tenths_are_three_tenths() {
        assert_eq!(d("0.1") + d("0.2"), d("0.3"));
        assert_ne!(0.1f64 + 0.2, 0.3);
    }

    #[test]
    fn three_equal_lines_share_a_one_cent_remainder() {
        let shares = allocate(d("0.10"), &[d("5.00"), d("5.00"), d("5.00")], 2).unwrap();
        assert_eq!(shares, vec![d("0.04"), d("0.03"), d("0.03")]);
    }

    #[test]
    fn thirty_three_percent_off_one_cent_is_nothing() {
        assert_eq!(round_money(d("0.01") * d("0.33"), 2), Decimal::ZERO);
    }

    #[test]
    fn the_larger_remainder_gets_the_unit_left() {
        // 1.00 over 1.00 and 2.00: 0.333… and 0.666…, so the second line gets the cent.
        let shares = allocate(d("1.00"), &[d("1.00"), d("2.00")], 2).unwrap();
        assert_eq!(shares, vec![d("0.33"), d("0.67")]);
    }

    #[test]
    fn amounts_finer_than_the_minor_unit_or_negative_are_refused() {
        assert_eq!(allocate(d("0.001"), &[d("1.00")], 2), None);
        assert_eq!(allocate(d("1.00"), &[d("1.005")], 2), None);
        assert_eq!(allocate(d("-1.00"), &[d("1.00")], 2), None);
        assert_eq!(allocate(d("1.00"), &[d("0.00")], 2), None);
        assert_eq!(
            allocate(d("0.00"), &[d("0.00")], 2),
            Some(vec![Decimal::ZERO])
        );
    }

    /// The same split in integer cents, written independently.
    fn reference_in_cents(total: i64, weights: &[i64]) -> Vec<i64> {
        let sum: i64 = weights.iter().sum();
        let mut shares: Vec<i64> = weights.iter().map(|w| total * w / sum).collect();
        let mut order: Vec<usize> = (0..weights.len()).collect();
        order.sort_by_key(|&i| {
            (
                std::cmp::Reverse(total * weights[i] % sum),
                std::cmp::Reverse(weights[i]),
                i,
            )
        });
        let left = total - shares.iter().sum::<i64>();
        for &i in order.iter().take(left as usize) {
            shares[i] += 1;
        }
        shares
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Amounts reach the store as JSON numbers and become decimals there
        /// through their shortest text (`fn::money` in carts/schema.surql;
        /// the store's own cast, `Decimal::try_from(f64)`, is not exact): it
        /// must give back the decimal the number was written as.
        #[test]
        fn the_stores_number_to_decimal_reading_keeps_the_amount(
            raw in 0i64..=i64::MAX,
            scale in 0u32..=4,
        ) {
            // Every amount the service accepts: at most MAX_AMOUNT, at most
            // four decimals (the finest minor unit).
            let units = raw % (crate::common::amount::MAX_AMOUNT * 10i64.pow(scale) + 1);
            let amount = Decimal::new(units, scale).normalize();
            let number = decimal_to_f64(amount);
            prop_assert_eq!(number.to_string().parse::<Decimal>().unwrap().normalize(), amount);
            prop_assert_eq!(decimal_from_f64(number), Some(amount));
        }

        #[test]
        fn shares_add_up_exactly_stay_within_their_line_and_match_integer_cents(
            lines in prop::collection::vec((1i64..=999_999, 1u32..=40), 1..=50),
            fraction in 0.0f64..=1.0,
        ) {
            // A line's worth: price (0.01 to 9,999.99) times a quantity in quarters.
            let weights: Vec<i64> = lines
                .iter()
                .map(|(cents, quarters)| (cents * *quarters as i64 + 3) / 4)
                .collect();
            let sum: i64 = weights.iter().sum();
            let total = ((sum as f64) * fraction) as i64;
            let as_decimal: Vec<Decimal> =
                weights.iter().map(|w| Decimal::new(*w, 2)).collect();
            let shares = allocate(Decimal::new(total, 2), &as_decimal, 2).unwrap();
            prop_assert_eq!(shares.iter().copied().sum::<Decimal>(), Decimal::new(total, 2));
            for (share, weight) in shares.iter().zip(&as_decimal) {
                prop_assert!(*share >= Decimal::ZERO && share <= weight);
            }
            let expected: Vec<Decimal> = reference_in_cents(total, &weights)
                .into_iter()
                .map(|cents| Decimal::new(cents, 2))
                .collect();
            prop_assert_eq!(&shares, &expected);

            // Reversing the lines gives every line the same share, up to
            // lines of equal worth, which may trade the unit left.
            let mut reversed = as_decimal.clone();
            reversed.reverse();
            let mut back = allocate(Decimal::new(total, 2), &reversed, 2).unwrap();
            back.reverse();
            let mut pairs: Vec<(Decimal, Decimal)> = as_decimal.iter().copied().zip(shares).collect();
            let mut back_pairs: Vec<(Decimal, Decimal)> = as_decimal.iter().copied().zip(back).collect();
            pairs.sort();
            back_pairs.sort();
            prop_assert_eq!(pairs, back_pairs);
        }
    }
}
