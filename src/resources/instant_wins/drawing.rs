//! Where an Instant Win's draws take their random values, the draws a
//! scenario forced, and the prize delivery worker a winning draw wakes:
//! held by [`crate::services::Services`] as its `drawing`.

use std::sync::Arc;

use tokio::sync::Notify;

use crate::common::random::RandomSource;
use crate::resources::instant_wins::draws::ForcedDraws;

/// The draws' sources; clones share them.
#[derive(Clone, Debug)]
pub struct Drawing {
    /// Where draws get their random values.
    pub(crate) random: Arc<RandomSource>,
    /// Draws a scenario forced, honoured only with a seeded `random`.
    pub(crate) forced: Arc<ForcedDraws>,
    /// Wakes the prize delivery worker when a draw wins.
    pub(crate) prize_delivery: Arc<Notify>,
}

impl Default for Drawing {
    fn default() -> Self {
        Drawing {
            random: Arc::new(RandomSource::Os),
            forced: Arc::default(),
            prize_delivery: Arc::default(),
        }
    }
}
