//! The random source of Instant Win draws, injected so draws are reproducible
//! where they must be (tests, scenarios) and unpredictable in production.

use std::sync::Mutex;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Where draws get their random values.
#[derive(Debug)]
pub enum RandomSource {
    /// The operating system's generator (through the thread-local CSPRNG it seeds).
    Os,
    /// A seeded generator: the same seed and the same order of draws give the
    /// same results.
    Seeded(Box<Mutex<StdRng>>),
}

impl RandomSource {
    /// A reproducible source.
    pub fn seeded(seed: u64) -> Self {
        RandomSource::Seeded(Box::new(Mutex::new(StdRng::seed_from_u64(seed))))
    }

    /// Whether the values are reproducible (never in production).
    pub fn is_seeded(&self) -> bool {
        matches!(self, RandomSource::Seeded(_))
    }

    /// A value in [0, 1).
    pub fn next(&self) -> f64 {
        match self {
            RandomSource::Os => rand::rng().random::<f64>(),
            RandomSource::Seeded(rng) => match rng.lock() {
                Ok(mut rng) => rng.random::<f64>(),
                // A panic while holding the lock cannot leave a StdRng half
                // updated in a way that matters for fairness: keep drawing.
                Err(poisoned) => poisoned.into_inner().random::<f64>(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_replays_the_same_values() {
        let (a, b) = (RandomSource::seeded(7), RandomSource::seeded(7));
        let first: Vec<f64> = (0..5).map(|_| a.next()).collect();
        let second: Vec<f64> = (0..5).map(|_| b.next()).collect();
        assert_eq!(first, second);
        assert!(first.iter().all(|v| (0.0..1.0).contains(v)));
        let os = RandomSource::Os.next();
        assert!((0.0..1.0).contains(&os));
    }
}
