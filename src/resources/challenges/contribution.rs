//! What a Challenge contributes to the event pipeline besides its
//! evaluation ([`super::evaluate`]): the state it reads before an event (the
//! Customer's record), the ledger entries of what a completion gives, what
//! the event's transaction writes for it (the record, compare-and-set on its
//! version, and the grant of a completion), what a cart's cancellation
//! takes out of the progress it counted, and what a merge folds
//! ([`super::merges`]).

use chrono::NaiveDateTime;
use serde_json::{Value, json};

use crate::engine::campaign::Campaign;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiResult;
use crate::pipeline::contribution::Cancelled;
use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::EntryContext;
use crate::pipeline::contribution::EventPart;
use crate::pipeline::contribution::EventScope;
use crate::pipeline::contribution::GivenBack;
use crate::pipeline::contribution::MergePart;
use crate::pipeline::contribution::Pending;
use crate::resources::challenges::evaluate::ChallengeEffect;
use crate::resources::challenges::merges;
use crate::resources::challenges::progress::Grant;
use crate::resources::challenges::store::advance_statements;
use crate::resources::challenges::store::give_back_documents;
use crate::resources::challenges::store::give_back_statements;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::services::Services;

/// Challenges' part of the pipeline.
pub(crate) struct Challenges;

/// The Challenge records an event moved.
static ADVANCE: EventPart = EventPart {
    field: "challenges",
    statements: advance_statements,
};

impl Contribution for Challenges {
    fn state_query(&self, campaign: &Campaign, _wall_clock: NaiveDateTime) -> Option<StateQuery> {
        matches!(campaign.kind, CampaignKind::Challenge(_)).then(|| challenge_state_query(campaign))
    }

    fn earned_entries(&self, effect: &Effect, context: &EntryContext<'_>) -> Vec<LedgerEntry> {
        match effect {
            Effect::Challenge(challenge) => challenge_points(challenge, context),
            _ => Vec::new(),
        }
    }

    fn event_part(&self) -> Option<&'static EventPart> {
        Some(&ADVANCE)
    }

    fn part_document(&self, event: &EventScope<'_>, drawn: &DrawnEvaluation) -> ApiResult<Value> {
        Ok(challenge_writes(event.company, &drawn.evaluation.effects))
    }

    fn cancellation_statements(&self) -> Option<String> {
        Some(give_back_statements())
    }

    /// The cart leaves the Challenges it counted towards; a completion it
    /// made is revoked where the Challenge says so (`on_return: revoke`),
    /// and the points it gave are taken back.
    fn give_back<'a>(
        &'a self,
        services: &'a Services,
        cancelled: &'a Cancelled<'a>,
    ) -> Pending<'a, GivenBack> {
        Box::pin(async move {
            let given_back = services
                .challenges_given_back(
                    cancelled.company,
                    cancelled.customer_id,
                    cancelled.cart_id,
                    cancelled.at,
                )
                .await?;
            let ledger = given_back
                .iter()
                .filter_map(|given| {
                    let Some(Grant::Points { points }) = given.revoked else {
                        return None;
                    };
                    Some(LedgerEntry {
                        rule_id: Some(given.record.rule_id),
                        cart_id: Some(cancelled.code.to_string()),
                        ..LedgerEntry::new(
                            &given.record.customer_id,
                            PointsKind::Points,
                            -points,
                            "challenge_revoked",
                            cancelled.at,
                        )
                    })
                })
                .collect();
            Ok(GivenBack {
                ledger,
                document: give_back_documents(cancelled.company, &given_back),
            })
        })
    }

    fn merge_part(&self) -> Option<&'static MergePart> {
        Some(&merges::CHALLENGE_MOVES)
    }
}

/// The state a Challenge reads before an event: the Customer's record.
fn challenge_state_query(campaign: &Campaign) -> StateQuery {
    StateQuery {
        rule_id: campaign.id,
        period: String::new(),
        prize_ids: Vec::new(),
        limited: false,
        targeted: false,
        game: false,
        challenge: true,
    }
}

/// The ledger entry crediting the points a completion gives: not tied to
/// the event's cart, so the cart's cancellation reverses it only when the
/// Challenge says so (`on_return: revoke`).
fn challenge_points(effect: &ChallengeEffect, context: &EntryContext<'_>) -> Vec<LedgerEntry> {
    let mut entries: Vec<LedgerEntry> = effect
        .reward_gift
        .iter()
        .flat_map(|(ledger, _)| ledger.iter().cloned())
        .collect();
    if let Some(Grant::Points { points }) = effect.step.granted {
        entries.push(LedgerEntry {
            rule_id: Some(effect.rule_id),
            ..LedgerEntry::new(
                context.customer_id,
                PointsKind::Points,
                points,
                "challenge",
                context.at,
            )
        });
    }
    entries
}

/// What the event's transaction writes for the Challenges of `effects`
/// (see [`advance_statements`]); null when none moved.
fn challenge_writes(company: &str, effects: &[Effect]) -> Value {
    let steps: Vec<Value> = effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Challenge(challenge) => Some(challenge),
            _ => None,
        })
        .map(|challenge| {
            let gift_game = challenge.reward_gift.as_ref().and_then(|(_, game)| *game);
            let game = match challenge.step.granted {
                Some(Grant::Game { game_id }) => json!(game_id),
                _ => json!(gift_game),
            };
            json!({
                "rule_id": challenge.rule_id,
                "customer": challenge.record.customer_id,
                "expected": challenge.record.version - 1,
                "document": crate::resources::challenges::store::record_document(company, &challenge.record),
                "game": game,
                "reward_transaction": challenge
                    .reward_transaction
                    .as_ref()
                    .map(|t| crate::resources::rewards::store::transaction_document(company, t)),
            })
        })
        .collect();
    if steps.is_empty() {
        Value::Null
    } else {
        Value::Array(steps)
    }
}
