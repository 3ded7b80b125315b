//! Instant Win fairness: simulating many draws of one campaign with a seeded
//! generator, and a chi-square test of the observed frequencies against the
//! configured weights. Authors use it before launch (`loyalty campaigns
//! draws`); the property tests use it to prove the draw itself fair.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::resources::instant_wins::rules::Prize;
use crate::resources::instant_wins::rules::draw;

/// One-sided standard normal quantile of the significance used: 1e-3.
pub const SIGNIFICANCE: f64 = 1e-3;
const SIGNIFICANCE_Z: f64 = 3.090;

/// Upper critical value of chi-square with `df` degrees of freedom at the
/// significance `z` stands for (Wilson–Hilferty; in the far tail it errs a
/// few percent high, so the real significance is a little below the stated).
pub fn chi_square_critical_at(df: usize, z: f64) -> f64 {
    let df = df.max(1) as f64;
    let h = 2.0 / (9.0 * df);
    df * (1.0 - h + z * h.sqrt()).powi(3)
}

/// The chi-square statistic of `observed` counts against `weights` (summing
/// to 1) over `total` draws; entries without weight are left out.
pub fn chi_square(observed: &[usize], weights: &[f64], total: usize) -> f64 {
    observed
        .iter()
        .zip(weights)
        .filter(|(_, w)| **w > 0.0)
        .map(|(o, w)| {
            let expected = w * total as f64;
            (*o as f64 - expected).powi(2) / expected
        })
        .sum()
}

/// How one prize fared in a simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrizeOutcome {
    /// The prize's id.
    pub id: String,
    /// Its configured weight.
    pub weight: f64,
    /// Its stock (-1 unlimited).
    pub stock: i64,
    /// Draws that fell on it.
    pub drawn: usize,
    /// Of those, the ones that won it.
    pub won: usize,
    /// The draw (1-based) that took its last unit, if it ran out.
    pub ran_out_at: Option<usize>,
}

/// The result of simulating draws.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Simulation {
    /// Draws simulated.
    pub runs: usize,
    /// The generator's seed.
    pub seed: u64,
    /// Per prize.
    pub prizes: Vec<PrizeOutcome>,
    /// Draws that fell outside every entry (probability removed with no No Prize entry).
    pub nothing: usize,
    /// Draws the chi-square test looked at: those before the first prize ran
    /// out (afterwards the probabilities differ from the configured ones).
    pub tested_runs: usize,
    /// The chi-square statistic over them.
    pub chi_square: f64,
    /// Its degrees of freedom.
    pub degrees_of_freedom: usize,
    /// The critical value at [`SIGNIFICANCE`].
    pub critical_value: f64,
    /// Whether the frequencies are consistent with the weights.
    pub consistent: bool,
}

/// Simulates `runs` draws of `prizes` from a generator seeded with `seed`,
/// taking stock as wins happen.
pub fn simulate(prizes: &[Prize], runs: usize, seed: u64) -> Simulation {
    simulate_with(prizes, runs, seed, true)
}

/// [`simulate`] with every prize's stock unlimited: the draw's fairness
/// alone, every draw tested against the configured weights
/// (`loyalty campaigns draws --fairness`).
pub fn simulate_fairness(prizes: &[Prize], runs: usize, seed: u64) -> Simulation {
    simulate_with(prizes, runs, seed, false)
}

/// [`simulate`], taking stock or not.
fn simulate_with(prizes: &[Prize], runs: usize, seed: u64, take_stock: bool) -> Simulation {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut given = vec![0i64; prizes.len()];
    let mut drawn = vec![0usize; prizes.len()];
    let mut won = vec![0usize; prizes.len()];
    let mut ran_out_at: Vec<Option<usize>> = vec![None; prizes.len()];
    let mut tested = vec![0usize; prizes.len()];
    let mut tested_runs = 0;
    let mut nothing = 0;
    for run in 1..=runs {
        let before_run_out = ran_out_at.iter().all(Option::is_none);
        let result = draw(prizes, &given, rng.random::<f64>());
        match result.index {
            Some(index) => {
                drawn[index] += 1;
                if before_run_out {
                    tested[index] += 1;
                }
                if result.won {
                    won[index] += 1;
                    given[index] += i64::from(take_stock);
                    if prizes[index].remaining(given[index]) == Some(0) {
                        ran_out_at[index] = Some(run);
                    }
                }
            }
            None => nothing += 1,
        }
        if before_run_out {
            tested_runs += 1;
        }
    }
    let weights: Vec<f64> = prizes.iter().map(|p| p.weight).collect();
    let degrees_of_freedom = weights
        .iter()
        .filter(|w| **w > 0.0)
        .count()
        .saturating_sub(1);
    let statistic = chi_square(&tested, &weights, tested_runs);
    let critical_value = chi_square_critical_at(degrees_of_freedom, SIGNIFICANCE_Z);
    Simulation {
        runs,
        seed,
        prizes: prizes
            .iter()
            .enumerate()
            .map(|(i, prize)| PrizeOutcome {
                id: prize.id.clone(),
                weight: prize.weight,
                stock: prize.stock,
                drawn: drawn[i],
                won: won[i],
                ran_out_at: ran_out_at[i],
            })
            .collect(),
        nothing,
        tested_runs,
        chi_square: statistic,
        degrees_of_freedom,
        critical_value,
        consistent: degrees_of_freedom == 0 || statistic < critical_value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::instant_wins::rules::tests::reward_or_none as prize;

    #[test]
    fn a_simulation_counts_draws_wins_and_run_outs() {
        let prizes = [prize("gift", 0.2, 10), prize("none", 0.8, -1)];
        let simulation = simulate(&prizes, 2000, 11);
        let gift = &simulation.prizes[0];
        assert_eq!(gift.won, 10, "never more than the stock");
        assert!(gift.ran_out_at.is_some());
        assert_eq!(
            simulation.prizes.iter().map(|p| p.drawn).sum::<usize>() + simulation.nothing,
            2000
        );
        assert_eq!(simulation.tested_runs, gift.ran_out_at.unwrap());
        assert!(simulation.consistent, "{simulation:?}");
    }

    #[test]
    fn the_fairness_mode_ignores_stock_and_tests_every_draw() {
        let prizes = [prize("gift", 0.2, 10), prize("none", 0.8, -1)];
        let simulation = simulate_fairness(&prizes, 2000, 11);
        let gift = &simulation.prizes[0];
        assert!(gift.won > 300, "the stock of 10 does not stop it: {gift:?}");
        assert_eq!(gift.ran_out_at, None);
        assert_eq!(simulation.tested_runs, 2000);
        assert!(simulation.consistent, "{simulation:?}");
    }
}
