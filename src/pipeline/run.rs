//! The pipeline's loop: read, evaluate, write, and on a contended write
//! read again and evaluate again on fresh state. What each campaign kind
//! reads, writes and answers is its [`super::contribution::Contribution`]'s:
//! this loop names no kind.

use crate::common::language::Language;
use crate::error::ApiResult;
use crate::http::idempotency::answer::answer_now;
use crate::http::idempotency::answer::awaits_answer;
use crate::pipeline::contribution::EntryContext;
use crate::pipeline::contribution::EventScope;
use crate::pipeline::contributions::EvaluatedEvent;

use crate::pipeline::contributions::event_parts;
use crate::pipeline::contributions::event_tries;
use crate::pipeline::contributions::ledger_entries;
use crate::pipeline::contributions::read_again_after;
use crate::pipeline::evaluate::EventToEvaluate;
use crate::pipeline::facts::EventFacts;
use crate::pipeline::kinds::CONTRIBUTIONS;
use crate::pipeline::occurrence::Occurrence;
use crate::resources::customers::service::Subject;
use crate::services::Services;

/// Whether the pipeline writes what it evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Evaluate and write (realtime carts, Custom Events, triggers).
    Record,
    /// Evaluate only: nothing is written and no draw is kept (simulations).
    Simulate,
}

impl Services {
    /// Runs `occurrence` of the Customer `subject` names through the
    /// Company's campaigns: reads the Customer (unless it was read before),
    /// its facts and Instant Win state in one round trip, evaluates (drawing), and in
    /// [`Mode::Record`] writes the occurrence, its points and its draws in
    /// one transaction, evaluating again on fresh state when a concurrent
    /// draw took what this one counted on. With `explain`, a campaign whose
    /// condition is false says which of its parts made it so.
    pub(crate) async fn run_pipeline<O: Occurrence>(
        &self,
        company: &str,
        subject: Subject<'_>,
        occurrence: &mut O,
        language: &Language,
        mode: Mode,
        explain: bool,
    ) -> ApiResult<EvaluatedEvent> {
        // Campaigns are evaluated at the time the event is received, never at
        // the date the client sent (see `pipeline::dates`).
        let received = occurrence.evaluated_at().unwrap_or_else(|| self.now());
        let started = std::time::Instant::now();
        let listens = occurrence.listens();
        let EventFacts {
            rules,
            customer,
            mut facts,
            state,
        } = self
            .event_facts(
                company,
                subject,
                received,
                &listens,
                occurrence.location_code(),
            )
            .await?;
        tracing::debug!(micros = started.elapsed().as_micros() as u64, "facts read");
        // After the read, so that a request naming no Customer of the
        // Company is answered `customer_not_found` whatever its date.
        self.event_dates.check(occurrence.date(), received)?;
        occurrence.belongs_to(&customer.id);
        occurrence.describe(&mut facts);
        facts.explain = explain;
        if explain {
            facts.tiers_missed = rules.segments.missed_tiers(self.catalog().engine(), &facts);
        }
        self.describe_master_data(company, occurrence.location_code(), &mut facts);
        let scope = EventScope {
            company,
            rules: &rules,
            listens: &listens,
            customer_id: &customer.id,
            webhooks: &self.store.memory.webhooks,
        };
        self.read_before_evaluation(CONTRIBUTIONS, &scope, &mut facts)
            .await?;
        let reason = occurrence.points_reason();
        let mut state = Some(state);
        let mut tries = event_tries();
        loop {
            let event = EventToEvaluate {
                scope: &scope,
                facts: &facts,
            };
            let drawn = self.evaluate_event(&event, state.take(), language).await?;
            tracing::debug!(micros = started.elapsed().as_micros() as u64, "evaluated");
            let at = self.now();
            let ledger = ledger_entries(
                &drawn,
                &EntryContext {
                    campaigns: &rules.campaigns,
                    customer_id: &customer.id,
                    reason: &reason,
                    cart_id: occurrence.cart_id(),
                    at,
                    locale: &facts.locale,
                },
            );
            occurrence.settle(&drawn.evaluation, ledger.earned_points(), at);
            // Before the parts, whose statements report what they write
            // after the event itself (its Vouchers, its points).
            let webhooks = match mode {
                Mode::Record => self.occurrence_webhooks(
                    company,
                    &customer.id,
                    occurrence,
                    || EvaluatedEvent::copied(&drawn, customer.language.as_deref(), language),
                    at,
                ),
                Mode::Simulate => None,
            };
            let parts = match mode {
                Mode::Record => event_parts(
                    &scope,
                    &occurrence.draw_source(),
                    &drawn,
                    ledger,
                    (at, occurrence.always_written()),
                )?,
                Mode::Simulate => None,
            };
            if let Some(mut parts) = parts {
                if let Some((field, rows)) = webhooks {
                    parts.add(field, rows);
                }
                // A keyed request's answer is written with what it answers.
                if awaits_answer() {
                    let evaluated =
                        EvaluatedEvent::copied(&drawn, customer.language.as_deref(), language);
                    answer_now(&occurrence.answer(evaluated)).await;
                }
                let written = occurrence
                    .write(&self.store, company, &customer.id, &parts.earned())
                    .await;
                if let Some(kinds) = read_again_after(&written, &mut tries) {
                    self.read_before_evaluation(&kinds, &scope, &mut facts)
                        .await?;
                    continue;
                }
                written?;
                self.after_written(company, &drawn);
            }
            self.campaign_failures
                .report(company, &drawn.evaluation.failures, received);
            return Ok(EvaluatedEvent::of(
                drawn,
                customer.language.as_deref(),
                language,
            ));
        }
    }
}
