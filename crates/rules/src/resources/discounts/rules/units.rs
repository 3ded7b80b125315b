//! The units of a cart a unit discount counts: which units every Nth unit
//! and the cheapest units are, which sets a bundle or a set makes, and what
//! each line's units then take off. Pure arithmetic on whole units and exact
//! decimals; lines are told apart by what they are, never by their order.

use rust_decimal::Decimal;

use crate::common::money::allocate_with_ties;
use crate::common::money::round_money;

/// The whole units of one line a unit discount may count.
#[derive(Debug, Clone, PartialEq)]
pub struct LineUnits {
    /// The line's place in the cart.
    pub index: usize,
    /// What one unit costs.
    pub price: Decimal,
    /// Its whole units (a line of 2.5 kg counts 2).
    pub units: u64,
}

/// What a unit discount does to each unit (or each set) it takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UnitOff {
    /// Takes this rate (`0.5` for 50 %) off.
    Rate(Decimal),
    /// Takes this amount off, at most the unit's (or set's) price.
    Amount(Decimal),
    /// Makes it cost this, when it costs more.
    Price(Decimal),
}

impl UnitOff {
    /// What it takes off something worth `worth` (in any unit).
    fn off(self, worth: Decimal) -> Decimal {
        match self {
            UnitOff::Rate(rate) => worth * rate,
            UnitOff::Amount(amount) => amount.min(worth),
            UnitOff::Price(price) => (worth - price).max(Decimal::ZERO),
        }
    }
}

/// The lines in the order their units are taken: cheapest first, or
/// dearest first; lines alike in price are ordered by `tie` (what each line
/// is), then by place.
fn ordered<K: Ord>(lines: &[LineUnits], tie: &[K], cheapest_first: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|a, b| {
        let by_price = lines[*a].price.cmp(&lines[*b].price);
        let by_price = if cheapest_first {
            by_price
        } else {
            by_price.reverse()
        };
        by_price.then_with(|| tie[*a].cmp(&tie[*b])).then(a.cmp(b))
    });
    order
}

/// How many units of each line are taken, `count` of them, cheapest first.
fn take_cheapest<K: Ord>(lines: &[LineUnits], tie: &[K], mut count: u64) -> Vec<u64> {
    let mut taken = vec![0; lines.len()];
    for position in ordered(lines, tie, true) {
        if count == 0 {
            break;
        }
        let here = lines[position].units.min(count);
        taken[position] = here;
        count -= here;
    }
    taken
}

/// Every `nth` unit, counting the units of every line together: the
/// cheapest `units / nth` units (a retailer's "every third one free" gives
/// away the cheapest), at most `max_units`. How many of each line's units
/// are taken.
pub fn every_nth<K: Ord>(
    lines: &[LineUnits],
    tie: &[K],
    nth: u64,
    max_units: Option<u64>,
) -> Vec<u64> {
    let all: u64 = lines.iter().map(|line| line.units).sum();
    let earned = all / nth.max(1);
    take_cheapest(
        lines,
        tie,
        max_units.map_or(earned, |most| earned.min(most)),
    )
}

/// The `units` cheapest units, once the lines hold `min_units` together;
/// none before.
pub fn cheapest<K: Ord>(lines: &[LineUnits], tie: &[K], units: u64, min_units: u64) -> Vec<u64> {
    let all: u64 = lines.iter().map(|line| line.units).sum();
    if all < min_units {
        return vec![0; lines.len()];
    }
    take_cheapest(lines, tie, units)
}

/// Sets made alike, `count` times: for each part, the line whose unit it
/// takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Sets {
    /// How many such sets.
    pub count: u64,
    /// The line (its position in the lines given) of each part's unit.
    pub parts: Vec<usize>,
}

/// The sets the lines make, at most `max_sets`: each set takes one unit for
/// each part from the lines `may_take[part]` allows, the dearest units
/// first (the Customer gets the most of a set price), each unit in one set
/// only. Parts that fewer lines may fill choose first, so a unit that fits
/// several parts is left to the one that needs it.
pub fn sets<K: Ord>(
    lines: &[LineUnits],
    tie: &[K],
    may_take: &[Vec<bool>],
    max_sets: Option<u64>,
) -> Vec<Sets> {
    let order = ordered(lines, tie, false);
    let mut left: Vec<u64> = lines.iter().map(|line| line.units).collect();
    let mut part_order: Vec<usize> = (0..may_take.len()).collect();
    part_order.sort_by_key(|part| may_take[*part].iter().filter(|may| **may).count());
    let mut made: Vec<Sets> = Vec::new();
    let mut sets_left = max_sets.unwrap_or(u64::MAX);
    while sets_left > 0 {
        let mut uses = vec![0u64; lines.len()];
        let mut parts = vec![usize::MAX; may_take.len()];
        for &part in &part_order {
            let Some(&line) = order
                .iter()
                .find(|&&line| may_take[part].get(line) == Some(&true) && left[line] > uses[line])
            else {
                return made;
            };
            uses[line] += 1;
            parts[part] = line;
        }
        // The same set again as long as every line it takes from has the
        // units: a cart of a thousand units makes a few distinct sets, not
        // a thousand loops.
        let count = (0..lines.len())
            .filter(|line| uses[*line] > 0)
            .map(|line| left[line] / uses[line])
            .min()
            .unwrap_or(0)
            .min(sets_left);
        if count == 0 {
            return made;
        }
        for line in 0..lines.len() {
            left[line] -= uses[line] * count;
        }
        sets_left -= count;
        made.push(Sets { count, parts });
    }
    made
}

/// What `off` takes off each line when `taken[line]` of its units are
/// taken, in whole minor units.
pub fn unit_offs(
    lines: &[LineUnits],
    taken: &[u64],
    off: UnitOff,
    minor_units: u32,
) -> Vec<Decimal> {
    lines
        .iter()
        .zip(taken)
        .map(|(line, &count)| {
            if count == 0 {
                return Decimal::ZERO;
            }
            round_money(off.off(line.price) * Decimal::from(count), minor_units)
        })
        .collect()
}

/// What `off` takes off each line for the sets made: each set's discount,
/// taken off its worth, is shared over its units in proportion to their
/// prices (exact to the minor unit, the remainders by `tie`).
pub fn set_offs<K: Ord + Clone>(
    lines: &[LineUnits],
    tie: &[K],
    made: &[Sets],
    off: UnitOff,
    minor_units: u32,
) -> Vec<Decimal> {
    let mut offs = vec![Decimal::ZERO; lines.len()];
    for set in made {
        let mut weights = vec![Decimal::ZERO; lines.len()];
        for &line in &set.parts {
            weights[line] += lines[line].price;
        }
        let weights: Vec<Decimal> = weights
            .into_iter()
            .map(|weight| round_money(weight, minor_units))
            .collect();
        let worth: Decimal = weights.iter().copied().sum();
        let set_off = round_money(off.off(worth), minor_units).min(worth);
        if set_off <= Decimal::ZERO {
            continue;
        }
        let Some(shares) = allocate_with_ties(set_off, &weights, tie, minor_units) else {
            continue;
        };
        for (line, share) in shares.into_iter().enumerate() {
            offs[line] += share * Decimal::from(set.count);
        }
    }
    offs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn lines(prices_and_units: &[(&str, u64)]) -> Vec<LineUnits> {
        prices_and_units
            .iter()
            .enumerate()
            .map(|(index, (price, units))| LineUnits {
                index,
                price: d(price),
                units: *units,
            })
            .collect()
    }

    fn ties(count: usize) -> Vec<usize> {
        (0..count).collect()
    }

    #[test]
    fn every_third_unit_counts_the_lines_together_and_takes_the_cheapest() {
        // Three different snacks, 7 units: 2 of them are every third unit.
        let snacks = lines(&[("2.00", 3), ("1.50", 2), ("3.00", 2)]);
        let taken = every_nth(&snacks, &ties(3), 3, None);
        assert_eq!(taken, vec![0, 2, 0]);
        let offs = unit_offs(&snacks, &taken, UnitOff::Rate(d("0.5")), 2);
        assert_eq!(offs, vec![d("0"), d("1.50"), d("0")]);
        // Nine units earn three; a cap of two gives the two cheapest.
        let cheeses = lines(&[("5.00", 4), ("3.00", 5)]);
        assert_eq!(every_nth(&cheeses, &ties(2), 3, None), vec![0, 3]);
        assert_eq!(every_nth(&cheeses, &ties(2), 3, Some(2)), vec![0, 2]);
        assert_eq!(every_nth(&cheeses, &ties(2), 3, Some(9)), vec![0, 3]);
    }

    #[test]
    fn the_cheapest_unit_is_free_only_from_the_minimum() {
        let shirts = lines(&[("20.00", 1), ("15.00", 1)]);
        assert_eq!(cheapest(&shirts, &ties(2), 1, 3), vec![0, 0]);
        let three = lines(&[("20.00", 2), ("15.00", 1)]);
        let taken = cheapest(&three, &ties(2), 1, 3);
        assert_eq!(taken, vec![0, 1]);
        assert_eq!(
            unit_offs(&three, &taken, UnitOff::Rate(Decimal::ONE), 2),
            vec![d("0"), d("15.00")]
        );
    }

    #[test]
    fn a_bundle_takes_one_unit_per_part_and_repeats_without_looping_per_unit() {
        // Burger (line 0) and fries (line 1): 1,000 burgers, 600 fries.
        let menu = lines(&[("5.00", 1000), ("2.50", 600)]);
        let parts = vec![vec![true, false], vec![false, true]];
        let made = sets(&menu, &ties(2), &parts, None);
        assert_eq!(
            made,
            vec![Sets {
                count: 600,
                parts: vec![0, 1]
            }]
        );
        let offs = set_offs(&menu, &ties(2), &made, UnitOff::Price(d("6.00")), 2);
        // Each set: 7.50 for 6.00, 1.50 off shared 1.00 / 0.50.
        assert_eq!(offs, vec![d("600.00"), d("300.00")]);
    }

    #[test]
    fn a_set_price_takes_the_dearest_units_and_never_raises_a_price() {
        let snacks = lines(&[("2.00", 1), ("3.00", 1), ("4.00", 1), ("5.00", 1)]);
        let any = vec![true; 4];
        let parts = vec![any.clone(), any.clone(), any];
        let made = sets(&snacks, &ties(4), &parts, None);
        assert_eq!(made.len(), 1);
        let offs = set_offs(&snacks, &ties(4), &made, UnitOff::Price(d("10.00")), 2);
        let total: Decimal = offs.iter().copied().sum();
        assert_eq!(total, d("2.00"), "5 + 4 + 3 = 12 for 10");
        assert_eq!(
            offs[0],
            Decimal::ZERO,
            "the cheapest snack is not in the set"
        );
        let cheap = lines(&[("2.00", 3)]);
        let made = sets(
            &cheap,
            &ties(1),
            &[vec![true], vec![true], vec![true]],
            None,
        );
        let offs = set_offs(&cheap, &ties(1), &made, UnitOff::Price(d("10.00")), 2);
        assert_eq!(offs, vec![Decimal::ZERO], "6.00 of snacks never cost 10.00");
    }

    #[test]
    fn a_unit_that_fits_two_parts_is_left_to_the_part_that_needs_it() {
        // Part 0 takes any drink (lines 0 and 1); part 1 only the juice (line 1).
        let drinks = lines(&[("2.00", 1), ("3.00", 1)]);
        let parts = vec![vec![true, true], vec![false, true]];
        let made = sets(&drinks, &ties(2), &parts, None);
        assert_eq!(
            made,
            vec![Sets {
                count: 1,
                parts: vec![0, 1]
            }]
        );
    }
}
