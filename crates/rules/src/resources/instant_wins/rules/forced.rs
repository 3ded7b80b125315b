//! Forced draws: a scenario (or a rehearsal on a seeded server) says which
//! prize the next draw of an Instant Win or game gives, so every prize can
//! be proven without hunting for seeds. The draw itself is unchanged: the
//! forced prize is reached by a random value in its own share of the
//! weights, so stock, strategies and records behave as in any draw, and the
//! record says it was forced. A server drawing from the operating system's
//! generator (production) never forces a draw.

use crate::resources::instant_wins::rules::{Prize, WEIGHT_TOLERANCE, effective_weights};

/// What a forced draw gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForcedPrize {
    /// The prize of this id (a No Prize entry's id gives that entry).
    Prize(String),
    /// No prize: the first No Prize entry, or the probability removed
    /// from exhausted prizes.
    NoPrize,
}

/// The random value in [0, 1) that draws `target` from `prizes` with
/// `given` units given; `None` when it cannot be drawn now (an unknown
/// prize, or one whose probability is 0: exhausted and removed).
pub fn forced_random(prizes: &[Prize], given: &[i64], target: &ForcedPrize) -> Option<f64> {
    let weights = effective_weights(prizes, given);
    let start_of = |index: usize| weights[..index].iter().sum::<f64>();
    let index = match target {
        ForcedPrize::Prize(id) => prizes.iter().position(|prize| prize.id == *id),
        ForcedPrize::NoPrize => {
            (0..prizes.len()).find(|i| !prizes[*i].is_prize() && weights[*i] > 0.0)
        }
    };
    match (index, target) {
        (Some(index), _) if weights[index] > 0.0 => Some(start_of(index) + weights[index] / 2.0),
        (None, ForcedPrize::NoPrize) => {
            // No No Prize entry: the probability removed from exhausted
            // prizes lies past the weights.
            let drawn: f64 = weights.iter().sum();
            let removed = prizes.iter().map(|p| p.weight).sum::<f64>() - drawn;
            (removed > WEIGHT_TOLERANCE).then(|| drawn + removed / 2.0)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::instant_wins::rules::tests::prize;
    use crate::resources::instant_wins::rules::{PromotionType, draw};

    fn prizes() -> Vec<Prize> {
        vec![
            prize("coffee", PromotionType::Reward, 0.05, 1),
            prize("points", PromotionType::Points, 0.15, -1),
            prize("none", PromotionType::NoPrize, 0.8, -1),
        ]
    }

    #[test]
    fn every_prize_with_a_probability_can_be_forced() {
        let prizes = prizes();
        for (index, id) in ["coffee", "points", "none"].iter().enumerate() {
            let target = ForcedPrize::Prize(id.to_string());
            let random = forced_random(&prizes, &[0, 0, 0], &target).unwrap();
            assert_eq!(draw(&prizes, &[0, 0, 0], random).index, Some(index), "{id}");
        }
        let random = forced_random(&prizes, &[0, 0, 0], &ForcedPrize::NoPrize).unwrap();
        let drawn = draw(&prizes, &[0, 0, 0], random);
        assert_eq!((drawn.index, drawn.won), (Some(2), false));
    }

    #[test]
    fn an_exhausted_or_unknown_prize_cannot_be_forced() {
        let prizes = prizes();
        let coffee = ForcedPrize::Prize("coffee".into());
        assert_eq!(forced_random(&prizes, &[1, 0, 0], &coffee), None);
        let unknown = ForcedPrize::Prize("car".into());
        assert_eq!(forced_random(&prizes, &[0, 0, 0], &unknown), None);
    }

    #[test]
    fn no_prize_without_an_entry_is_the_probability_removed() {
        let prizes = vec![
            prize("coffee", PromotionType::Reward, 0.5, 1),
            prize("points", PromotionType::Points, 0.5, -1),
        ];
        assert_eq!(forced_random(&prizes, &[0, 0], &ForcedPrize::NoPrize), None);
        let random = forced_random(&prizes, &[1, 0], &ForcedPrize::NoPrize).unwrap();
        assert_eq!(draw(&prizes, &[1, 0], random).index, None);
    }
}
