//! What the pipeline asks of each kind of occurrence (a cart, a Custom Event,
//! a trigger): which campaigns listen, what conditions see of it, what it
//! keeps of an evaluation and how it is written.

use std::future::Future;

use serde_json::Value;

use crate::common::time::Timestamp;
use crate::engine::campaign::Listens;
use crate::engine::evaluate::Evaluation;
use crate::engine::facts::Facts;
use crate::error::ApiResult;
use crate::pipeline::contributions::EvaluatedEvent;
use crate::resources::events::model::CustomEvent;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::storage::Store;

/// One kind of occurrence the campaigns are evaluated against. The pipeline
/// ([`crate::services::Services::run_pipeline`]) does the rest: facts and
/// state, evaluation, draws, points, the write and its retries.
pub(crate) trait Occurrence: Send + Sync {
    /// The campaigns that listen to it.
    fn listens(&self) -> Listens;

    /// Takes in the id of its Customer, once the pipeline has read it (with
    /// its facts, in one round trip).
    fn belongs_to(&mut self, customer_id: &str);

    /// When it happened (what conditions and history see as its date).
    fn date(&self) -> Timestamp;

    /// The instant it is evaluated at when not the time it is received: a
    /// simulation asked `at` a time (`POST /carts/simulate?at=`).
    fn evaluated_at(&self) -> Option<Timestamp> {
        None
    }

    /// Puts what conditions see of it into `facts`.
    fn describe(&mut self, facts: &mut Facts);

    /// The reason of the ledger entries crediting the points it earns.
    fn points_reason(&self) -> String;

    /// The code of the Location it happened at, when it names one: its
    /// local time is read in that Location's time zone, and conditions see
    /// it as `location`.
    fn location_code(&self) -> Option<&str> {
        None
    }

    /// The cart the points it earns are for, when it is one.
    fn cart_id(&self) -> Option<&str> {
        None
    }

    /// The source its Instant Win draws are recorded under.
    fn draw_source(&self) -> String;

    /// Takes in one `evaluation` of it at `at`: the effects that applied,
    /// what they take from their limits, and the campaign points
    /// (`points_earned`) they credit.
    fn settle(&mut self, evaluation: &Evaluation, points_earned: i64, at: Timestamp);

    /// What its operation answers when the evaluation `evaluated` is
    /// written: the answer of a request carrying an Idempotency-Key is made
    /// from it and written in the same transaction
    /// ([`crate::http::idempotency::answer`]).
    type Answer: Send + Sync + 'static;

    /// Its operation's answer once `evaluated` is written.
    fn answer(&self, evaluated: EvaluatedEvent) -> Self::Answer;

    /// Whether it is written even when it earned and drew nothing (a cart or a
    /// Custom Event is; a trigger leaves no record of its own).
    fn always_written(&self) -> bool;

    /// The webhook event its write reports (its type and what it is about,
    /// in the shape the API answers), when it reports one, once its
    /// campaigns made `evaluated` of it.
    fn webhook_event(&self, _evaluated: &EvaluatedEvent) -> Option<(&'static str, Value)> {
        None
    }

    /// The Custom Event it records, when it is one (a trigger or a game's
    /// play leaves no record of its own).
    fn custom_event(&self) -> Option<&CustomEvent> {
        None
    }

    /// Writes it with what its campaigns earned (`earned`), in one
    /// transaction: by default as an event, its Custom Event if it has one
    /// ([`Store::insert_event`]).
    fn write(
        &self,
        store: &Store,
        company: &str,
        customer_id: &str,
        earned: &Earned<'_>,
    ) -> impl Future<Output = ApiResult<()>> + Send {
        store.insert_event(company, customer_id, self.custom_event(), earned)
    }
}

/// What the campaigns of an occurrence earned, written with it.
#[derive(Debug, Clone, Copy)]
pub struct Earned<'a> {
    /// The points entries.
    pub ledger: &'a [LedgerEntry],
    /// The Instant Win draws ([`crate::resources::instant_wins::store::draw_write`]).
    pub draw_write: &'a Value,
    /// Each kind's part of the write that is not null, by its field
    /// ([`crate::pipeline::contribution::EventPart`]).
    pub parts: &'a [(&'static str, Value)],
}

impl<'a> Earned<'a> {
    /// The part written under `field`, when the occurrence has it.
    pub(crate) fn part(&self, field: &str) -> Option<&'a Value> {
        self.parts
            .iter()
            .find(|(name, _)| *name == field)
            .map(|(_, document)| document)
    }

    /// Puts every part into `write`, the event's write, under its field.
    pub(crate) fn put_parts(&self, write: &mut Value) {
        for (field, document) in self.parts {
            write[*field] = document.clone();
        }
    }
}

#[cfg(test)]
impl<'a> Earned<'a> {
    /// `ledger` and nothing else: what the store's tests record.
    pub(crate) fn only(ledger: &'a [LedgerEntry]) -> Earned<'a> {
        static NOTHING: Value = Value::Null;
        Earned {
            ledger,
            draw_write: &NOTHING,
            parts: &[],
        }
    }
}
