//! What a Challenge contributes to the event pipeline besides its
//! evaluation ([`super::evaluate`]): the state it reads before an event (the
//! Customer's record), the ledger entries of what a completion gives, and
//! what the event's transaction writes for it (the record, compare-and-set
//! on its version, and the grant of a completion).

use serde_json::{Value, json};

use crate::engine::campaign::Campaign;
use crate::engine::effect::Effect;
use crate::pipeline::contributions::EntryContext;
use crate::resources::challenges::evaluate::ChallengeEffect;
use crate::resources::challenges::progress::Grant;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;

/// The state a Challenge reads before an event: the Customer's record.
pub(crate) fn challenge_state_query(campaign: &Campaign) -> StateQuery {
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
pub(crate) fn challenge_points(
    effect: &ChallengeEffect,
    context: &EntryContext<'_>,
) -> Vec<LedgerEntry> {
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
/// (see [`crate::resources::challenges::store::ADVANCE_CHALLENGES`]); null
/// when none moved.
pub(crate) fn challenge_writes(company: &str, effects: &[Effect]) -> Value {
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
