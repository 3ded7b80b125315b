//! What Instant Wins and games contribute to the event pipeline besides
//! their draws ([`super::draws`], made with the evaluation): the state a
//! draw is decided on (the Customer's participations and the prizes'
//! stock), the points prizes won, the draws' rows of the batch's
//! transaction ([`super::store::draw_batch`]) and what the stock view learns
//! of its outcome, the metrics and prize deliveries that follow a written
//! draw, and the game participations a merge moves ([`super::merges`]).

use std::any::Any;
use std::sync::Arc;

use chrono::NaiveDateTime;
use serde_json::Value;

use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::EntryContext;
use crate::pipeline::contribution::MergePart;
use crate::pipeline::contribution::OncePerBatch;
use crate::resources::customers::recorded::RecordedChange;
use crate::resources::instant_wins::draws::CONTENDED;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::instant_wins::draws::instant_win_state_query;
use crate::resources::instant_wins::merges;
use crate::resources::instant_wins::store::draw_batch;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::instant_wins::store::stock_view::PrizeKey;
use crate::resources::instant_wins::store::stock_view::StockView;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::services::Services;
use crate::storage::event_transaction::BatchPart;
use crate::storage::memory::Memory;

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

    /// The draws' rows: participation counts checked, prize units,
    /// Vouchers and game participations taken, draws stored, deliveries
    /// queued ([`draw_batch`]).
    fn batch_rows(
        &self,
        company: &str,
        write: &Value,
        add: &mut dyn FnMut(&'static BatchPart, Value),
    ) {
        draw_batch::add_rows(company, &write[DRAW_WRITE], add);
    }

    /// Two events of one batch that drew for the same Customer were both
    /// decided on the same stored counts, which the batch checks before
    /// writing either ([`draw_batch::COUNT_PARTICIPATIONS`]): recorded one
    /// by one, the second is refused as contended, as it would be alone.
    fn once_per_batch(&self) -> Option<OncePerBatch> {
        Some(OncePerBatch {
            part: &draw_batch::COUNT_PARTICIPATIONS,
            refusal: ErrorCode::DrawContended,
            why: "a Customer drew twice in one batch",
        })
    }

    /// The stock view learns of prize units only once they are committed,
    /// and forgets the prizes of draws refused as contended (one may have
    /// run out behind its back).
    /// The draws' write (`draw_write`) changes the Customer's kept state
    /// only in the participation counts it leaves.
    fn known_fields(&self) -> &'static [&'static str] {
        &[DRAW_WRITE]
    }

    /// Draws that used a game participation or a Voucher change more than
    /// the kept state holds.
    fn recorded_change(&self, write: &Value, change: &mut RecordedChange) -> bool {
        let draw = &write[DRAW_WRITE];
        let present = |value: &Value| match value {
            Value::Null => false,
            Value::Array(items) => !items.is_empty(),
            _ => true,
        };
        if present(&draw["used"]) || present(&draw["played"]) {
            return false;
        }
        change.draw_counts = draw.is_object().then(|| draw["next"].clone());
        true
    }

    fn kept_in_memory(&self) -> Option<Arc<dyn Any + Send + Sync>> {
        Some(Arc::new(StockView::default()))
    }

    fn learn_outcome(&self, memory: &Memory, write: &Value, recorded: &ApiResult<()>) {
        let Some(stock_view) = memory.stock_view() else {
            return;
        };
        for (key, shard) in units_taken(write) {
            match recorded {
                Ok(()) => stock_view.taken(&key, shard),
                Err(error) if error.code == ErrorCode::DrawContended => stock_view.forget(&key),
                Err(_) => {}
            }
        }
    }
}

/// The field of an event's write holding its draws
/// ([`super::store::draw_write`]).
const DRAW_WRITE: &str = "draw_write";

/// The units of limited prizes `write` takes: each prize and its shard.
fn units_taken(write: &Value) -> Vec<(PrizeKey, i64)> {
    let company = write["company"].as_str().unwrap_or_default();
    let Some(draws) = write[DRAW_WRITE]["limited"].as_array() else {
        return Vec::new();
    };
    draws
        .iter()
        .filter_map(|draw| {
            let key = (
                company.to_string(),
                draw["rule_id"].as_i64()?,
                draw["prize"]["prize_id"].as_str()?.to_string(),
            );
            Some((key, draw["shard"]["index"].as_i64()?))
        })
        .collect()
}
