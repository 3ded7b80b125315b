//! Custom Events and triggers: evaluated against the campaigns that listen to
//! their type; their points are recorded in one transaction.

use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::validate::validate_slug;
use crate::engine::campaign::Listens;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::languages::negotiate::Language;
use crate::resources::carts::service::EvaluatedEvent;
use crate::resources::carts::service::earned_points;
use crate::resources::events::model::CustomEvent;
use crate::resources::events::model::NewEvent;
use crate::resources::instant_wins::draws::contended;
use crate::resources::instant_wins::store::draw_write;
use crate::secrets::random_hex;
use crate::services::Services;

/// Whether an event is a Custom Event (recorded and listable) or a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// POST /custom_events.
    CustomEvent,
    /// POST /trigger.
    Trigger,
}

/// A Custom Event or trigger with what the campaigns made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct EventOutcome {
    /// The recorded Custom Event (none for triggers).
    pub event: Option<CustomEvent>,
    /// Effects and explanations.
    pub evaluated: EvaluatedEvent,
}

/// A new, time-ordered Custom Event id.
fn new_event_id() -> String {
    let millis = chrono::Utc::now().timestamp_millis().max(0) as u64;
    format!("evt_{millis:012x}{}", random_hex(6))
}

impl Services {
    /// Evaluates a Custom Event or trigger and records its points (and the
    /// Custom Event itself) in one transaction.
    pub async fn process_event(
        &self,
        company: &str,
        new: NewEvent,
        kind: EventKind,
        language: &Language,
    ) -> ApiResult<EventOutcome> {
        validate_slug("type", &new.kind)?;
        let customer = self
            .active_customer(
                company,
                new.customer_id.as_deref(),
                new.customer_code.as_deref(),
            )
            .await?;
        let date = new.date.unwrap_or_else(|| self.now());
        let listens = match kind {
            EventKind::CustomEvent => Listens::CustomEvent(new.kind.clone()),
            EventKind::Trigger => Listens::Trigger(new.kind.clone()),
        };
        let (rules, mut facts, state) =
            self.event_facts(company, &customer, date, &listens).await?;
        let payload = serde_json::json!({
            "type": new.kind,
            "data": new.data,
            "coupons_desired": new.coupons_desired,
            "date": date,
        });
        match kind {
            EventKind::CustomEvent => facts.event = payload,
            EventKind::Trigger => facts.trigger = payload,
        }
        let reason = match kind {
            EventKind::CustomEvent => "custom_event".to_string(),
            EventKind::Trigger => format!("trigger:{}", new.kind),
        };
        let event_id = (kind == EventKind::CustomEvent).then(new_event_id);
        let mut state = Some(state);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let drawn = self
                .evaluate_with_draws(
                    company,
                    &customer.id,
                    &rules,
                    &listens,
                    &facts,
                    state.take(),
                    language,
                )
                .await?;
            let now = self.now();
            let mut ledger = earned_points(
                &drawn.evaluation.effects,
                &rules.campaigns,
                &customer.id,
                &reason,
                None,
                now,
            );
            let points_earned = ledger.iter().map(|e| e.points).sum();
            ledger.extend(drawn.prize_points(&customer.id, now));
            let event = event_id.clone().map(|id| CustomEvent {
                id,
                customer_id: customer.id.clone(),
                kind: new.kind.clone(),
                data: new.data.clone(),
                date,
                points_earned,
                created_at: now,
            });
            if event.is_some() || !ledger.is_empty() || !drawn.draws.is_empty() {
                let source = match &event {
                    Some(event) => format!("custom_event:{}", event.id),
                    None => format!("trigger:{}", new.kind),
                };
                let draws = draw_write(
                    company,
                    &customer.id,
                    &source,
                    &drawn.draws,
                    &drawn.participations,
                    now,
                );
                let written = self
                    .store
                    .insert_event(company, &customer.id, event.as_ref(), &ledger, &draws)
                    .await;
                if contended(&written, attempt) {
                    continue;
                }
                written?;
                if drawn.delivers_any() {
                    self.prizes_won();
                }
            }
            return Ok(EventOutcome {
                event,
                evaluated: EvaluatedEvent {
                    effects: drawn.evaluation.effects,
                    explanations: drawn.evaluation.explanations,
                },
            });
        }
    }

    /// The Custom Event `id`.
    pub async fn custom_event(&self, company: &str, id: &str) -> ApiResult<CustomEvent> {
        self.store.custom_event(company, id).await?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::CustomEventNotFound,
                format!("no Custom Event `{id}`"),
            )
        })
    }

    /// Custom Events, optionally of one Customer and one type.
    pub async fn custom_events(
        &self,
        company: &str,
        customer_id: Option<&str>,
        kind: Option<&str>,
        page: PageRequest,
    ) -> ApiResult<Page<CustomEvent>> {
        let fetched = self
            .store
            .custom_events(
                company,
                customer_id,
                kind,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        Ok(Page::from_fetched(fetched, &page, |event| event.id.clone()))
    }
}
