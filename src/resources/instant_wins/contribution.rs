//! What Instant Wins and games contribute to the event pipeline besides
//! their draws ([`super::draws`], made with the evaluation): the state a
//! draw is decided on (the Customer's participations and the prizes'
//! stock), the points prizes won, the metrics and prize deliveries that
//! follow a written draw, and the game participations a merge moves
//! ([`super::merges`]).

use chrono::NaiveDateTime;

use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::error::ErrorCode;
use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::EntryContext;
use crate::pipeline::contribution::MergePart;
use crate::resources::instant_wins::draws::CONTENDED;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::instant_wins::draws::instant_win_state_query;
use crate::resources::instant_wins::merges;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::services::Services;

/// Instant Wins' and games' part of the pipeline.
pub(crate) struct InstantWins;

impl Contribution for InstantWins {
    fn state_query(&self, campaign: &Campaign, wall_clock: NaiveDateTime) -> Option<StateQuery> {
        match &campaign.kind {
            CampaignKind::InstantWin(instant_win) | CampaignKind::Game(instant_win) => {
                instant_win_state_query(campaign, instant_win, wall_clock)
            }
            _ => None,
        }
    }

    /// A concurrent draw took a participation or a unit this one counted
    /// on: the state is read again with the next evaluation.
    fn contended(&self) -> &'static [ErrorCode] {
        CONTENDED
    }

    fn given_entries(
        &self,
        drawn: &DrawnEvaluation,
        context: &EntryContext<'_>,
    ) -> Vec<LedgerEntry> {
        drawn.prize_points(context.customer_id, context.at)
    }

    /// Counts the draws, and wakes the prize deliveries when one won a
    /// prize the outbox delivers.
    fn after_written(&self, services: &Services, company: &str, drawn: &DrawnEvaluation) {
        for draw in &drawn.draws {
            services
                .metrics
                .drawn(company, draw.record.rule_id, draw.record.prize.is_some());
        }
        if drawn.delivers_any() {
            services.prizes_won();
        }
    }

    fn merge_part(&self) -> Option<&'static MergePart> {
        Some(&merges::GAME_MOVES)
    }
}
