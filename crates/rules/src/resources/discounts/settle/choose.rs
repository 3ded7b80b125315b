//! Which offers share the cart: higher priority first, and among offers of
//! one priority that do not combine, the choice worth most to the Customer.

use std::cmp::Reverse;

use rust_decimal::Decimal;

use crate::resources::discounts::stacking::Stacking;

/// Most offers of one priority whose every combination is tried; past it
/// (a cart does not meet so many competing offers in practice) the most
/// valuable are taken one by one.
const MAX_TRIED: usize = 12;

/// An offer as the choice sees it.
pub struct Contender<'a> {
    /// How it shares a cart.
    pub stacking: &'a Stacking,
    /// What it takes off the cart on its own.
    pub worth: Decimal,
    /// How explanations name it (for example ``"`Coffee` (rule 101)"``).
    pub label: String,
}

/// For each contender (in the order given: the earlier wins ties), `None`
/// when it shares the cart, or why it does not: which offer that applies
/// it does not combine with, and by how much that choice is worth more.
pub fn choose(contenders: &[Contender<'_>]) -> Vec<Option<String>> {
    let mut verdicts = vec![None; contenders.len()];
    let mut order: Vec<usize> = (0..contenders.len()).collect();
    order.sort_by_key(|&index| (Reverse(contenders[index].stacking.priority), index));
    let mut accepted: Vec<usize> = Vec::new();
    for tier in
        order.chunk_by(|a, b| contenders[*a].stacking.priority == contenders[*b].stacking.priority)
    {
        let mut candidates = Vec::new();
        for &index in tier {
            let this = &contenders[index];
            match accepted
                .iter()
                .find(|&&winner| !contenders[winner].stacking.combines(this.stacking))
            {
                Some(&winner) => {
                    let winner = &contenders[winner];
                    verdicts[index] = Some(format!(
                        "does not combine with {}, which comes first (priority {} over {})",
                        winner.label, winner.stacking.priority, this.stacking.priority
                    ));
                }
                None => candidates.push(index),
            }
        }
        let (free, competing): (Vec<usize>, Vec<usize>) = candidates.iter().partition(|&&index| {
            candidates.iter().all(|&other| {
                other == index
                    || contenders[index]
                        .stacking
                        .combines(contenders[other].stacking)
            })
        });
        accepted.extend(free);
        if competing.is_empty() {
            continue;
        }
        let (chosen, losses) = if competing.len() <= MAX_TRIED {
            best_combination(contenders, &competing)
        } else {
            most_valuable_first(contenders, &competing)
        };
        for (position, &index) in competing.iter().enumerate() {
            if chosen.contains(&index) {
                continue;
            }
            let beaten_by: Vec<&str> = chosen
                .iter()
                .filter(|&&winner| {
                    !contenders[winner]
                        .stacking
                        .combines(contenders[index].stacking)
                })
                .map(|&winner| contenders[winner].label.as_str())
                .collect();
            let (best, with_this) = losses[position];
            let (names, verb) = match beaten_by.as_slice() {
                [one] => (one.to_string(), "applies"),
                [rest @ .., last] => (format!("{} and {last}", rest.join(", ")), "apply"),
                [] => ("the offers chosen".to_string(), "apply"),
            };
            verdicts[index] = Some(if best == with_this {
                format!(
                    "does not combine with {names}, which {verb} instead: worth as much ({best}), and earlier"
                )
            } else {
                format!(
                    "does not combine with {names}, which {verb} instead: the offers chosen take {best} off, {} more than the best choice with this one ({with_this})",
                    best - with_this
                )
            });
        }
        accepted.extend(chosen);
    }
    verdicts
}

/// The offers of `competing` (indices of `contenders`) that combine with
/// each other and are worth most together (ties: the earlier offers), and,
/// per offer of `competing`, (what the choice is worth, what the best
/// choice including that offer is worth).
fn best_combination(
    contenders: &[Contender<'_>],
    competing: &[usize],
) -> (Vec<usize>, Vec<(Decimal, Decimal)>) {
    let count = competing.len();
    // Bit `count - 1 - position` for the offer at `position`: among choices
    // worth as much, the larger mask holds the earlier offers.
    let bit = |position: usize| 1u32 << (count - 1 - position);
    let conflicts: Vec<u32> = (0..count)
        .map(|position| {
            (0..count)
                .filter(|&other| {
                    other != position
                        && !contenders[competing[position]]
                            .stacking
                            .combines(contenders[competing[other]].stacking)
                })
                .fold(0, |mask, other| mask | bit(other))
        })
        .collect();
    let mut best = (Decimal::ZERO, 0u32);
    let mut best_with = vec![Decimal::ZERO; count];
    for mask in 1u32..(1 << count) {
        let members: Vec<usize> = (0..count).filter(|&p| mask & bit(p) != 0).collect();
        if members.iter().any(|&p| conflicts[p] & mask != 0) {
            continue;
        }
        let worth: Decimal = members
            .iter()
            .map(|&p| contenders[competing[p]].worth)
            .sum();
        for &p in &members {
            best_with[p] = best_with[p].max(worth);
        }
        if (worth, mask) > best {
            best = (worth, mask);
        }
    }
    let chosen = (0..count)
        .filter(|&p| best.1 & bit(p) != 0)
        .map(|p| competing[p])
        .collect();
    let losses = best_with.into_iter().map(|with| (best.0, with)).collect();
    (chosen, losses)
}

/// [`best_combination`] for many offers: the most valuable first, each
/// taken when it combines with those taken; a loss is reckoned against the
/// offer alone.
fn most_valuable_first(
    contenders: &[Contender<'_>],
    competing: &[usize],
) -> (Vec<usize>, Vec<(Decimal, Decimal)>) {
    let mut by_worth = competing.to_vec();
    by_worth.sort_by_key(|&index| (Reverse(contenders[index].worth), index));
    let mut chosen: Vec<usize> = Vec::new();
    for index in by_worth {
        if chosen.iter().all(|&taken| {
            contenders[taken]
                .stacking
                .combines(contenders[index].stacking)
        }) {
            chosen.push(index);
        }
    }
    let total: Decimal = chosen.iter().map(|&index| contenders[index].worth).sum();
    let losses = competing
        .iter()
        .map(|&index| (total, contenders[index].worth.min(total)))
        .collect();
    (chosen, losses)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::discounts::stacking::DiscountBase;

    fn stacking(priority: i64, group: &str, combines_with: Option<&[&str]>) -> Stacking {
        Stacking {
            priority,
            group: Some(group.to_string()),
            combines_with: combines_with.map(|g| g.iter().map(|s| s.to_string()).collect()),
            ..Stacking::default_on(DiscountBase::Original)
        }
    }

    fn contenders<'a>(offers: &'a [(Stacking, i64)]) -> Vec<Contender<'a>> {
        offers
            .iter()
            .enumerate()
            .map(|(index, (stacking, worth))| Contender {
                stacking,
                worth: Decimal::from(*worth),
                label: format!("#{index}"),
            })
            .collect()
    }

    #[test]
    fn offers_that_combine_all_apply() {
        let offers = [
            (stacking(0, "a", None), 5),
            (stacking(3, "b", Some(&["a"])), 1),
        ];
        assert_eq!(choose(&contenders(&offers)), vec![None, None]);
    }

    #[test]
    fn a_higher_priority_wins_whatever_it_is_worth() {
        let offers = [
            (stacking(0, "a", None), 50),
            (stacking(1, "b", Some(&[])), 1),
        ];
        let verdicts = choose(&contenders(&offers));
        assert_eq!(verdicts[1], None);
        assert_eq!(
            verdicts[0].as_deref(),
            Some("does not combine with #1, which comes first (priority 1 over 0)")
        );
    }

    #[test]
    fn among_one_priority_the_choice_worth_most_wins_and_losers_say_by_how_much() {
        // An exclusive offer worth 5 against two that combine, worth 3 + 3.
        let offers = [
            (stacking(0, "x", Some(&[])), 5),
            (stacking(0, "a", None), 3),
            (stacking(0, "b", None), 3),
        ];
        let verdicts = choose(&contenders(&offers));
        assert_eq!(verdicts[1..], [None, None]);
        assert_eq!(
            verdicts[0].as_deref(),
            Some(
                "does not combine with #1 and #2, which apply instead: the offers chosen take 6 off, 1 more than the best choice with this one (5)"
            )
        );
        // Worth 7, the exclusive offer wins alone.
        let offers = [
            (stacking(0, "x", Some(&[])), 7),
            (stacking(0, "a", None), 3),
            (stacking(0, "b", None), 3),
        ];
        let verdicts = choose(&contenders(&offers));
        assert_eq!(verdicts[0], None);
        assert!(
            verdicts[1]
                .as_deref()
                .is_some_and(|v| v.contains("#0") && v.contains("1 more")),
            "{verdicts:?}"
        );
    }

    #[test]
    fn ties_go_to_the_earlier_offer() {
        let offers = [
            (stacking(0, "a", Some(&[])), 4),
            (stacking(0, "b", Some(&[])), 4),
        ];
        let verdicts = choose(&contenders(&offers));
        assert_eq!(verdicts[0], None);
        assert!(
            verdicts[1]
                .as_deref()
                .is_some_and(|v| v.contains("worth as much (4)")),
            "{verdicts:?}"
        );
    }

    #[test]
    fn many_competing_offers_take_the_most_valuable_first() {
        let offers: Vec<(Stacking, i64)> = (0..20)
            .map(|worth| (stacking(0, "x", Some(&[])), worth))
            .collect();
        let verdicts = choose(&contenders(&offers));
        let winners: Vec<usize> = (0..20).filter(|&i| verdicts[i].is_none()).collect();
        assert_eq!(winners, vec![19]);
    }
}
