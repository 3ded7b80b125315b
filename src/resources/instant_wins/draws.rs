//! The Instant Win draws of an event's evaluation
//! ([`crate::pipeline::evaluate`]): the random values and forced prizes the
//! pure interpreter draws with, on the state read before, and each draw
//! planned for the event's transaction (its id, the stock shard a won unit
//! comes from). When a concurrent draw changed that state in the meantime
//! the transaction refuses with `draw_contended`, and the event is
//! evaluated again on fresh state, so limits and stock hold however many
//! events arrive at once. Scenarios may force the prize of the next draw
//! ([`ForcedDraws`]), only where draws are seeded.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::evaluate::Evaluation;
use crate::error::ErrorCode;
use crate::resources::instant_wins::draw_record::DrawRecord;
use crate::resources::instant_wins::draw_record::InstantWinState;
use crate::resources::instant_wins::draw_record::WonPrize;
use crate::resources::instant_wins::rules::Audience;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::draws::Draws;
use crate::resources::instant_wins::rules::forced::ForcedPrize;
use crate::resources::instant_wins::store::PlannedDraw;
use crate::resources::instant_wins::store::draw_state::DrawState;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::instant_wins::store::participations::ParticipationCounts;
use crate::resources::instant_wins::store::stock::StockShard;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::services::Services;
use crate::storage::write_lanes::WriteLane;

/// How many times an event is evaluated again after its draws collided with
/// concurrent ones before `draw_contended` is returned.
pub(crate) const MAX_DRAW_ATTEMPTS: u32 = 6;

/// An evaluation and its draws, each with the id it is stored under and the
/// stock shard a won unit comes from.
pub(crate) struct DrawnEvaluation {
    /// Effects and explanations.
    pub evaluation: Evaluation,
    /// Draws to record.
    pub draws: Vec<PlannedDraw>,
    /// The Customer's participation counts the draws were decided on.
    pub participations: ParticipationCounts,
    /// The Customer's state of each Instant Win the draws were decided on.
    pub states: HashMap<i64, InstantWinState>,
}

impl DrawnEvaluation {
    /// Whether any draw won a prize the outbox delivers (a Reward or a game).
    pub fn delivers_any(&self) -> bool {
        self.draws.iter().any(|draw| {
            draw.record
                .prize
                .as_ref()
                .is_some_and(WonPrize::needs_delivery)
        })
    }

    /// The ledger entries crediting `customer_id` with the points prizes
    /// won, written by the event's own transaction at `at`.
    pub fn prize_points(&self, customer_id: &str, at: Timestamp) -> Vec<LedgerEntry> {
        self.draws
            .iter()
            .filter_map(|draw| {
                let prize = draw.record.prize.as_ref().filter(|p| !p.needs_delivery())?;
                let points = prize.points.filter(|points| *points > 0)?;
                Some(LedgerEntry::instant_win_prize(
                    customer_id,
                    &draw.id,
                    prize.promotion_id,
                    prize.points_kind.unwrap_or_default(),
                    points,
                    prize.points_expire_at,
                    at,
                ))
            })
            .collect()
    }
}

/// A new, time-ordered draw id.
fn new_draw_id() -> String {
    crate::common::ids::time_ordered_id("drw")
}

/// The state an Instant Win campaign reads before an event at `at` on the
/// Company's clocks: none when it is off its recurrence days.
pub(crate) fn instant_win_state_query(
    campaign: &Campaign,
    instant_win: &InstantWin,
    at: chrono::NaiveDateTime,
) -> Option<StateQuery> {
    if !campaign.reach.runs_on(at) {
        return None;
    }
    Some(state_query_at(campaign, instant_win, at))
}

/// The state of an Instant Win or game at `at`, whatever its recurrence
/// (what a Customer holds of a game shows on any day).
pub(crate) fn state_query_at(
    campaign: &Campaign,
    instant_win: &InstantWin,
    at: chrono::NaiveDateTime,
) -> StateQuery {
    StateQuery {
        rule_id: campaign.id,
        period: instant_win.once.key(at),
        prize_ids: instant_win.prizes.iter().map(|p| p.id.clone()).collect(),
        limited: instant_win.prizes.iter().any(|p| p.stock >= 0),
        targeted: instant_win.audience == Audience::Targeted,
        game: instant_win.granted_plays,
        challenge: false,
    }
}

/// The collisions worth evaluating an event again for, on fresh state.
pub(crate) const CONTENDED: &[ErrorCode] = &[ErrorCode::DrawContended];

impl Services {
    /// `evaluate`, run with new random values for its draws on the state
    /// `state` read for `customer_id` of `company` (and a scenario's forced
    /// prizes), with its draws planned: each with the id it is stored under
    /// and the stock shard a won unit comes from.
    pub(crate) fn draw(
        &self,
        company: &str,
        customer_id: &str,
        state: DrawState,
        evaluate: impl FnOnce(&mut Draws<'_>) -> Evaluation,
    ) -> DrawnEvaluation {
        let random = self.drawing.random.clone();
        let mut next = move || random.next();
        // Only a seeded server (scenarios, rehearsals) forces a draw.
        let forced = if self.drawing.random.is_seeded() {
            self.drawing.forced.next(company)
        } else {
            HashMap::new()
        };
        let mut evaluation = evaluate(&mut Draws {
            states: &state.states,
            challenges: &state.challenges,
            random: &mut next,
            forced: &forced,
        });
        // A forced prize is spent by the next draw of its Instant Win, given
        // or not (it cannot be drawn when it has no probability left).
        for record in &evaluation.draws {
            if forced.contains_key(&record.rule_id) {
                self.drawing.forced.drawn(company, record.rule_id);
            }
        }
        let lane = self.store.write_lane(customer_id);
        let draws = std::mem::take(&mut evaluation.draws)
            .into_iter()
            .map(|record| PlannedDraw {
                id: new_draw_id(),
                shard: Self::stock_shard(&state, &record, lane),
                record,
            })
            .collect();
        DrawnEvaluation {
            evaluation,
            draws,
            participations: state.participations,
            states: state.states,
        }
    }

    /// The stock shard the unit `record` won comes from, one of `lane`'s
    /// while they have room; `None` when it won nothing or a prize without a
    /// stock limit. A limited prize won with every shard full (as read) gets
    /// shard 0 with no allowance, which its transaction refuses as contended.
    fn stock_shard(state: &DrawState, record: &DrawRecord, lane: WriteLane) -> Option<StockShard> {
        let prize = record.prize.as_ref().filter(|prize| prize.stock >= 0)?;
        let counters = state
            .counters
            .get(&(record.rule_id, prize.prize_id.clone()))
            .cloned()
            .unwrap_or_default();
        Some(
            counters
                // Not the draw's random source: which shard gives the unit
                // changes no outcome, and seeded draws stay reproducible.
                .pick(prize.stock, rand::random::<f64>(), lane)
                .unwrap_or(StockShard {
                    index: 0,
                    allowance: 0,
                }),
        )
    }

    /// Wakes the prize delivery worker.
    pub(crate) fn prizes_won(&self) {
        self.drawing.prize_delivery.notify_one();
    }
}

/// The forced draws waiting, per Company and Instant Win, in order.
#[derive(Debug, Default)]
pub struct ForcedDraws {
    waiting: Mutex<HashMap<(String, i64), VecDeque<ForcedPrize>>>,
}

impl ForcedDraws {
    /// The next draw of Instant Win `rule_id` of `company` gives `prize`.
    pub fn force(&self, company: &str, rule_id: i64, prize: ForcedPrize) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting
                .entry((company.to_string(), rule_id))
                .or_default()
                .push_back(prize);
        }
    }

    /// The next forced prize of each Instant Win of `company` that has one
    /// (not taken yet: see [`ForcedDraws::drawn`]).
    pub fn next(&self, company: &str) -> HashMap<i64, ForcedPrize> {
        let Ok(waiting) = self.waiting.lock() else {
            return HashMap::new();
        };
        waiting
            .iter()
            .filter(|((of, _), _)| of == company)
            .filter_map(|((_, rule_id), queue)| Some((*rule_id, queue.front()?.clone())))
            .collect()
    }

    /// Takes the forced prize of `rule_id`: the draw it was for was made
    /// (and gave it, unless it had no probability left).
    pub fn drawn(&self, company: &str, rule_id: i64) {
        if let Ok(mut waiting) = self.waiting.lock()
            && let Some(queue) = waiting.get_mut(&(company.to_string(), rule_id))
        {
            queue.pop_front();
        }
    }
}

impl Services {
    /// The next draw of Instant Win `rule_id` of `company` gives `prize`,
    /// when draws are seeded (scenarios and rehearsals); ignored otherwise.
    pub fn force_draw(&self, company: &str, rule_id: i64, prize: ForcedPrize) {
        self.drawing.forced.force(company, rule_id, prize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_prizes_wait_in_order_per_instant_win() {
        let forced = ForcedDraws::default();
        forced.force("shop", 1, ForcedPrize::NoPrize);
        forced.force("shop", 1, ForcedPrize::Prize("coffee".into()));
        forced.force("other", 1, ForcedPrize::Prize("points".into()));
        assert_eq!(forced.next("shop")[&1], ForcedPrize::NoPrize);
        forced.drawn("shop", 1);
        assert_eq!(forced.next("shop")[&1], ForcedPrize::Prize("coffee".into()));
        forced.drawn("shop", 1);
        assert!(forced.next("shop").is_empty());
        assert_eq!(forced.next("other").len(), 1);
    }
}
