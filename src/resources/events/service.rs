//! Custom Events and triggers: evaluated against the campaigns that listen to
//! their type; their points are recorded in one transaction.

use serde_json::Value;

use crate::common::ids::time_ordered_id;
use crate::common::language::Language;
use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::time::Timestamp;
use crate::common::validate::validate_slug;
use crate::engine::campaign::Listens;
use crate::engine::evaluate::Evaluation;
use crate::engine::facts::Facts;
use crate::engine::listens::CustomerMoment;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::contributions::EvaluatedEvent;
use crate::pipeline::occurrence::Occurrence;
use crate::pipeline::run::Mode;
use crate::resources::customers::service::CustomerRef;
use crate::resources::customers::service::Subject;
use crate::resources::events::model::CustomEvent;
use crate::resources::events::model::NewEvent;
use crate::services::Services;

/// Whether an event is a Custom Event (recorded and listable) or a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// POST /custom_events.
    CustomEvent,
    /// POST /trigger.
    Trigger,
    /// A moment of a Customer's life the service sees itself: no record of
    /// its own, like a trigger.
    Customer(CustomerMoment),
}

/// A Custom Event or trigger with what the campaigns made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct EventOutcome {
    /// The recorded Custom Event (none for triggers).
    pub event: Option<CustomEvent>,
    /// Effects and explanations.
    pub evaluated: EvaluatedEvent,
}

/// A Custom Event or trigger going through the event pipeline.
struct EventOccurrence {
    kind: EventKind,
    /// The Customer it is for.
    customer_id: String,
    new: NewEvent,
    /// When it happened.
    date: Timestamp,
    /// The id a Custom Event is recorded under (none for a trigger).
    id: Option<String>,
    /// The Custom Event as the last evaluation would record it.
    recorded: Option<CustomEvent>,
}

impl Occurrence for EventOccurrence {
    fn listens(&self) -> Listens {
        match self.kind {
            EventKind::CustomEvent => Listens::CustomEvent(self.new.kind.clone()),
            EventKind::Trigger => Listens::Trigger(self.new.kind.clone()),
            EventKind::Customer(moment) => Listens::Customer(moment),
        }
    }

    fn belongs_to(&mut self, customer_id: &str) {
        customer_id.clone_into(&mut self.customer_id);
    }

    fn date(&self) -> Timestamp {
        self.date
    }

    fn describe(&mut self, facts: &mut Facts) {
        let payload = serde_json::json!({
            "id": self.id,
            "type": self.new.kind,
            "data": self.new.data,
            "coupons_desired": self.new.coupons_desired,
            "date": self.date,
        });
        match self.kind {
            EventKind::CustomEvent | EventKind::Customer(_) => facts.event = payload,
            EventKind::Trigger => facts.trigger = payload,
        }
    }

    /// A Custom Event or trigger happens at a store when its data says
    /// `location_code`.
    fn location_code(&self) -> Option<&str> {
        self.new.data.get("location_code")?.as_str()
    }

    fn points_reason(&self) -> String {
        match self.kind {
            EventKind::CustomEvent => "custom_event".to_string(),
            EventKind::Trigger => format!("trigger:{}", self.new.kind),
            EventKind::Customer(moment) => moment.name().to_string(),
        }
    }

    fn draw_source(&self) -> String {
        match (&self.id, self.kind) {
            (Some(id), _) => format!("custom_event:{id}"),
            (None, EventKind::Customer(moment)) => {
                format!("{}:{}", moment.name(), self.customer_id)
            }
            (None, _) => format!("trigger:{}", self.new.kind),
        }
    }

    fn settle(&mut self, _evaluation: &Evaluation, points_earned: i64, at: Timestamp) {
        self.recorded = self.id.clone().map(|id| CustomEvent {
            id,
            customer_id: self.customer_id.clone(),
            kind: self.new.kind.clone(),
            data: self.new.data.clone(),
            date: self.date,
            points_earned,
            created_at: at,
        });
    }

    type Answer = EventOutcome;

    fn answer(&self, evaluated: EvaluatedEvent) -> EventOutcome {
        EventOutcome {
            event: self.recorded.clone(),
            evaluated,
        }
    }

    fn always_written(&self) -> bool {
        self.kind == EventKind::CustomEvent
    }

    fn custom_event(&self) -> Option<&CustomEvent> {
        self.recorded.as_ref()
    }

    fn webhook_event(&self, _evaluated: &EvaluatedEvent) -> Option<(&'static str, Value)> {
        let recorded = poem_openapi::types::ToJSON::to_json(self.recorded.as_ref()?)?;
        Some(("custom_event.recorded", recorded))
    }
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
        explain: bool,
    ) -> ApiResult<EventOutcome> {
        validate_slug("type", &new.kind)?;
        let customer_id = new.customer_id.clone();
        let customer_code = new.customer_code.clone();
        let reference = CustomerRef::required(&customer_id, &customer_code, "customer")?;
        let mut occurrence = EventOccurrence {
            kind,
            // Read with the event's facts, in one round trip.
            customer_id: String::new(),
            date: new.date.unwrap_or_else(|| self.now()),
            id: (kind == EventKind::CustomEvent).then(|| time_ordered_id("evt")),
            new,
            recorded: None,
        };
        let evaluated = self
            .run_pipeline(
                company,
                Subject::Named(reference),
                &mut occurrence,
                language,
                Mode::Record,
                explain,
            )
            .await?;
        Ok(EventOutcome {
            event: occurrence.recorded,
            evaluated,
        })
    }

    /// Runs the campaigns listening to `moment` of the Customer
    /// `customer_id` (a welcome campaign on `customer_created`), when any
    /// does: POST /customers and PATCH /customers run it before they
    /// answer. The Customer is created (changed) whatever it gives; a
    /// failure is logged with the Customer, never silent.
    pub(crate) async fn customer_moment(
        &self,
        company: &str,
        customer_id: &str,
        moment: CustomerMoment,
    ) {
        let listens = Listens::Customer(moment);
        let rules = self.catalog.company(company);
        if !rules
            .campaigns
            .iter()
            .any(|campaign| campaign.listens == listens)
        {
            return;
        }
        let language = match self.company_settings(company).await {
            Ok(settings) => Language {
                chosen: settings.default_language.clone(),
                default: settings.default_language.clone(),
                locale: settings.locale(),
            },
            Err(error) => {
                tracing::error!(company, customer = customer_id, moment = moment.name(), %error, "the campaigns of a Customer's moment did not run");
                return;
            }
        };
        let new = NewEvent {
            customer_id: Some(customer_id.to_string()),
            customer_code: None,
            kind: moment.name().to_string(),
            data: Default::default(),
            date: None,
            coupons_desired: Vec::new(),
        };
        let ran = self
            .process_event(company, new, EventKind::Customer(moment), &language, false)
            .await;
        match ran {
            Ok(outcome) => tracing::info!(
                company,
                customer = customer_id,
                moment = moment.name(),
                effects = outcome.evaluated.effects.len(),
                "the campaigns of a Customer's moment ran"
            ),
            Err(error) => tracing::error!(
                company,
                customer = customer_id,
                moment = moment.name(),
                %error,
                "the campaigns of a Customer's moment did not run"
            ),
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

    /// Custom Events, optionally of one Customer and one type; a Customer
    /// the Company does not have is `customer_not_found`, as for carts.
    pub async fn custom_events(
        &self,
        company: &str,
        customer_id: Option<&str>,
        kind: Option<&str>,
        page: PageRequest,
    ) -> ApiResult<Page<CustomEvent>> {
        let customer_id = match customer_id {
            Some(id) => Some(
                self.find_customer(company, CustomerRef::id(id))
                    .await?
                    .customer
                    .id,
            ),
            None => None,
        };
        let fetched = self
            .store
            .custom_events(
                company,
                customer_id.as_deref(),
                kind,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        Ok(Page::from_fetched(fetched, &page, |event| event.id.clone()))
    }
}
