//! Custom Events and triggers: POST /custom_events, GET /custom_events,
//! GET /custom_events/{id}, POST /trigger.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::pipeline::api::EffectBody;
use crate::pipeline::api::ExplanationBody;
use crate::pipeline::api::bodies;
use crate::resources::events::model::CustomEvent;
use crate::resources::events::model::NewEvent;
use crate::resources::events::service::EventKind;
use crate::resources::events::service::EventOutcome;
use crate::resources::messages::model::MessageBody;

#[derive(Tags)]
enum EventTags {
    /// Custom Events and triggers evaluated against the campaigns.
    Events,
}

/// Answer of POST /custom_events and POST /trigger.
#[derive(Debug, Object)]
pub struct EventResponse {
    /// The recorded Custom Event (absent for triggers).
    #[oai(skip_serializing_if_is_none)]
    pub custom_event: Option<CustomEvent>,
    /// The effects of the campaigns that applied.
    pub effects: Vec<EffectBody>,
    /// The messages of the campaigns that applied, for the receipt or the
    /// app, in the Customer's language (print them with POST
    /// /messages/print).
    pub messages: Vec<MessageBody>,
    /// With `explain=true`: every campaign of the Company, applied or why not.
    #[oai(skip_serializing_if_is_none)]
    pub explanations: Option<Vec<ExplanationBody>>,
}

fn respond(outcome: EventOutcome, explain: bool) -> EventResponse {
    let (effects, explanations) = bodies(
        outcome.evaluated.effects,
        outcome.evaluated.explanations,
        explain,
    );
    EventResponse {
        custom_event: outcome.event,
        effects,
        messages: outcome.evaluated.messages,
        explanations,
    }
}

/// A page of Custom Events.
#[derive(Debug, Object)]
pub struct CustomEventList {
    /// The Custom Events, oldest first.
    pub custom_events: Vec<CustomEvent>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}

/// Event endpoints.
#[derive(Debug, Default)]
pub struct EventsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for EventsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /custom_events",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::DrawContended,
            ],
        },
        OperationErrors {
            operation: "GET /custom_events",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /custom_events/{id}",
            codes: &[ErrorCode::CustomEventNotFound],
        },
        OperationErrors {
            operation: "POST /trigger",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::DrawContended,
            ],
        },
    ];
}

#[OpenApi(tag = "EventTags::Events")]
impl EventsApi {
    /// Create a Custom Event.
    ///
    /// Records the event and evaluates the campaigns listening to its `type`
    /// (`on: { custom_event: TYPE }`); points they earn are recorded in the same
    /// transaction. `explain=true` says why each campaign applied or not.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/custom_events", method = "post")]
    async fn create(
        &self,
        caller: Tier1<'_>,
        explain: Query<Option<bool>>,
        body: Json<NewEvent>,
    ) -> Result<Json<EventResponse>, ErrorResponse> {
        let explain = explain.0.unwrap_or(false);
        caller.answers_with(move |outcome: &EventOutcome| respond(outcome.clone(), explain));
        let outcome = caller
            .services
            .process_event(
                &caller.company,
                body.0,
                EventKind::CustomEvent,
                caller.language()?,
                explain,
            )
            .await?;
        Ok(Json(respond(outcome, explain)))
    }

    /// List Custom Events, optionally of one Customer and one type.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/custom_events", method = "get")]
    async fn list(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(name = "type", validator(min_length = 1, max_length = 64))] kind: Query<
            Option<String>,
        >,
        #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))] per_page: Query<
            Option<u32>,
        >,
        #[oai(validator(max_length = 128))] starting_after: Query<Option<String>>,
    ) -> Result<Json<CustomEventList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let page = caller
            .services
            .custom_events(
                &caller.company,
                customer_id.0.as_deref(),
                kind.0.as_deref(),
                page,
            )
            .await?;
        Ok(Json(CustomEventList {
            custom_events: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }

    /// Get a Custom Event.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/custom_events/:id", method = "get")]
    async fn get(
        &self,
        caller: Tier2<'_>,
        id: Path<String>,
    ) -> Result<Json<CustomEvent>, ErrorResponse> {
        Ok(Json(
            caller.services.custom_event(&caller.company, &id.0).await?,
        ))
    }

    /// Process a trigger for a specific Customer.
    ///
    /// Evaluates the campaigns listening to the trigger's `type`
    /// (`on: { trigger: TYPE }`) and records the points they earn; the trigger
    /// itself is not stored.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/trigger", method = "post")]
    async fn trigger(
        &self,
        caller: Tier1<'_>,
        explain: Query<Option<bool>>,
        body: Json<NewEvent>,
    ) -> Result<Json<EventResponse>, ErrorResponse> {
        let explain = explain.0.unwrap_or(false);
        caller.answers_with(move |outcome: &EventOutcome| respond(outcome.clone(), explain));
        let outcome = caller
            .services
            .process_event(
                &caller.company,
                body.0,
                EventKind::Trigger,
                caller.language()?,
                explain,
            )
            .await?;
        Ok(Json(respond(outcome, explain)))
    }
}
