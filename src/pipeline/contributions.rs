//! The pipeline's steps around an evaluation, over every kind's
//! [`Contribution`] (named once, in [`super::kinds::CONTRIBUTIONS`]): the
//! state campaigns read before an event, the ledger entries an evaluation
//! writes, the other parts of the event's write, what a refused write reads
//! again, and what follows a write. The pipeline's loop (`run.rs`) names no
//! kind; this module names only the draws, which the engine's evaluation
//! makes for any kind (an Instant Win's, a game's, a Challenge's prize) and
//! every event writes with itself (`draw_write`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::common::language::Language;
use crate::common::locale::Locale;
use crate::common::retry::Tries;
use crate::common::time::Timestamp;
use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::effect::Effect;
use crate::engine::evaluate::Explanation;
use crate::engine::facts::Facts;
use crate::error::ApiResult;
use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::EntryContext;
use crate::pipeline::contribution::EventScope;
use crate::pipeline::contribution::ReadBefore;
use crate::pipeline::kinds::CONTRIBUTIONS;
use crate::pipeline::occurrence::Earned;
use crate::resources::instant_wins::draw_record::InstantWinState;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::instant_wins::draws::MAX_DRAW_ATTEMPTS;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::instant_wins::store::draw_write;
use crate::resources::messages::model::MessageBody;
use crate::resources::messages::service::message_bodies;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::services::Services;

/// The state to read for the campaigns listening to `event` that could run
/// at `at`. Campaigns that are inactive or out of their dates are left out,
/// so a till's cart costs no state read for them.
pub(crate) fn state_queries(
    rules: &CompanyRules,
    event: &Listens,
    at: DateTime<Utc>,
    locale: &Locale,
) -> Vec<StateQuery> {
    let now = Timestamp::from(at);
    let wall_clock = locale.wall_clock(at);
    rules
        .campaigns
        .iter()
        .filter(|campaign| {
            campaign.listens == *event
                && campaign.active
                && campaign
                    .available_from
                    .is_none_or(|from| now >= from.instant(locale))
                && campaign
                    .available_to
                    .is_none_or(|to| now <= to.instant(locale))
        })
        .filter_map(|campaign| {
            CONTRIBUTIONS
                .iter()
                .find_map(|kind| kind.state_query(campaign, wall_clock))
        })
        .collect()
}

/// The ledger entries an evaluation writes with its event.
pub(crate) struct EventLedger {
    /// What its effects earned: the points the event itself counts.
    earned: Vec<LedgerEntry>,
    /// What it gave besides (points prizes of its draws).
    given: Vec<LedgerEntry>,
}

impl EventLedger {
    /// The points its effects earned (negative on a cancellation).
    pub(crate) fn earned_points(&self) -> i64 {
        self.earned.iter().map(|entry| entry.points).sum()
    }

    /// Every entry, earned first.
    fn into_entries(self) -> Vec<LedgerEntry> {
        let mut entries = self.earned;
        entries.extend(self.given);
        entries
    }
}

/// The ledger entries `drawn` writes with its event: each effect's, in the
/// order of the effects, then what the kinds give besides.
pub(crate) fn ledger_entries(drawn: &DrawnEvaluation, context: &EntryContext<'_>) -> EventLedger {
    let earned = drawn
        .evaluation
        .effects
        .iter()
        .flat_map(|effect| {
            CONTRIBUTIONS
                .iter()
                .flat_map(|kind| kind.earned_entries(effect, context))
        })
        .collect();
    let given = CONTRIBUTIONS
        .iter()
        .flat_map(|kind| kind.given_entries(drawn, context))
        .collect();
    EventLedger { earned, given }
}

/// What an event's transaction writes for its campaigns besides the event
/// itself: the ledger, the draws, and each kind's part.
pub(crate) struct EventParts {
    /// Points entries: campaigns', prizes' and completions'.
    ledger: Vec<LedgerEntry>,
    /// The Instant Win draws and participations.
    draws: Value,
    /// Each kind's part that is not null, by its field.
    parts: Vec<(&'static str, Value)>,
}

impl EventParts {
    /// Adds `document` under `field` of the event's write (not a kind's
    /// part: its rows are written by the batch, [`crate::storage::event_transaction`]).
    pub(crate) fn add(&mut self, field: &'static str, document: Value) {
        self.parts.push((field, document));
    }

    /// The parts as the event's write takes them.
    pub(crate) fn earned(&self) -> Earned<'_> {
        Earned {
            ledger: &self.ledger,
            draw_write: &self.draws,
            parts: &self.parts,
        }
    }
}

/// The parts of `event` that `drawn` leaves to write with
/// `ledger` at `at`; none when there is nothing to write and the occurrence
/// is not `always` written.
pub(crate) fn event_parts(
    event: &EventScope<'_>,
    source: &str,
    drawn: &DrawnEvaluation,
    ledger: EventLedger,
    (at, always): (Timestamp, bool),
) -> ApiResult<Option<EventParts>> {
    let ledger = ledger.into_entries();
    let mut parts = Vec::new();
    for kind in CONTRIBUTIONS {
        let Some(part) = kind.event_part() else {
            continue;
        };
        let document = kind.part_document(event, drawn)?;
        if !document.is_null() {
            parts.push((part.field, document));
        }
    }
    if !(always || !ledger.is_empty() || !drawn.draws.is_empty() || !parts.is_empty()) {
        return Ok(None);
    }
    Ok(Some(EventParts {
        ledger,
        draws: draw_write(
            event.company,
            event.customer_id,
            source,
            &drawn.draws,
            &drawn.participations,
            at,
        ),
        parts,
    }))
}

/// The tries of an event's evaluation and write: the first and
/// [`MAX_DRAW_ATTEMPTS`]` - 1` after collisions.
pub(crate) const fn event_tries() -> Tries {
    Tries::at_most(MAX_DRAW_ATTEMPTS)
}

/// The kinds whose reads an event is evaluated again on, after its write
/// was refused for something a concurrent event moved: those that name the
/// refusal, when a try is left.
pub(crate) fn read_again_after<T>(
    written: &ApiResult<T>,
    tries: &mut Tries,
) -> Option<Vec<&'static dyn Contribution>> {
    let Err(refusal) = written else {
        return None;
    };
    let again: Vec<&'static dyn Contribution> = CONTRIBUTIONS
        .iter()
        .copied()
        .filter(|kind| kind.contended().contains(&refusal.code))
        .collect();
    (!again.is_empty() && tries.another()).then_some(again)
}

/// What the campaigns made of an occurrence, as its answer shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatedEvent {
    /// The effects of the campaigns that applied.
    pub effects: Vec<Effect>,
    /// Why each campaign applied or not.
    pub explanations: Vec<Explanation>,
    /// The messages of the campaigns that applied, for the Customer.
    pub messages: Vec<MessageBody>,
    /// The Customer's state of each Instant Win and game the draws were
    /// decided on (before this event's own participations).
    pub draw_states: HashMap<i64, InstantWinState>,
}

impl EvaluatedEvent {
    /// What `drawn` answers, copied for an answer written before the event
    /// (a keyed request's, written with what it answers).
    pub(crate) fn copied(
        drawn: &DrawnEvaluation,
        customer_language: Option<&str>,
        language: &Language,
    ) -> EvaluatedEvent {
        EvaluatedEvent {
            effects: drawn.evaluation.effects.clone(),
            explanations: drawn.evaluation.explanations.clone(),
            messages: message_bodies(
                drawn.evaluation.messages.clone(),
                customer_language,
                language,
            ),
            draw_states: drawn.states.clone(),
        }
    }

    /// What `drawn` answers to a Customer who reads `customer_language`, in
    /// the response's `language`.
    pub(crate) fn of(
        drawn: DrawnEvaluation,
        customer_language: Option<&str>,
        language: &Language,
    ) -> EvaluatedEvent {
        EvaluatedEvent {
            effects: drawn.evaluation.effects,
            explanations: drawn.evaluation.explanations,
            messages: message_bodies(drawn.evaluation.messages, customer_language, language),
            draw_states: drawn.states,
        }
    }
}

impl Services {
    /// Puts into `facts` what the `kinds` read before an event is
    /// evaluated, besides the state read with the draws (the headroom of
    /// the limits, the Vouchers the Customer holds of capped Coupons).
    pub(crate) async fn read_before_evaluation(
        &self,
        kinds: &[&dyn Contribution],
        event: &EventScope<'_>,
        facts: &mut Facts,
    ) -> ApiResult<()> {
        for kind in kinds {
            let read = ReadBefore {
                services: self,
                event,
                facts: &mut *facts,
            };
            kind.read_before(read).await?;
        }
        Ok(())
    }

    /// What follows the write of an event `drawn` evaluated, each kind's.
    pub(crate) fn after_written(&self, company: &str, drawn: &DrawnEvaluation) {
        for kind in CONTRIBUTIONS {
            kind.after_written(self, company, drawn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;
    use crate::error::ErrorCode;

    fn refused(code: ErrorCode) -> ApiResult<()> {
        Err(ApiError::new(code, "refused"))
    }

    #[test]
    fn a_refused_write_reads_again_what_the_kinds_naming_the_refusal_read() {
        for code in [ErrorCode::DrawContended, ErrorCode::VoucherCodeTaken] {
            let mut tries = event_tries();
            let kinds = read_again_after(&refused(code), &mut tries).expect("read again");
            assert!(!kinds.is_empty());
            assert!(kinds.iter().all(|kind| kind.contended().contains(&code)));
            let naming = CONTRIBUTIONS
                .iter()
                .filter(|kind| kind.contended().contains(&code))
                .count();
            assert_eq!(kinds.len(), naming, "{code:?}");
        }
    }

    #[test]
    fn a_write_done_or_refused_for_nothing_read_is_not_tried_again() {
        let mut tries = event_tries();
        assert!(read_again_after(&Ok(()), &mut tries).is_none());
        assert!(read_again_after(&refused(ErrorCode::CustomerNotFound), &mut tries).is_none());
        let mut tries = Tries::at_most(1);
        assert!(read_again_after(&refused(ErrorCode::DrawContended), &mut tries).is_none());
    }
}
