//! The pipeline's reads: the active Customer an occurrence names, and the
//! facts and Instant Win state it is evaluated on, together in one round
//! trip.

use std::sync::Arc;

use crate::common::time::Timestamp;
use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::facts::Facts;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::contributions::state_queries;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;
use crate::resources::customers::service::Subject;
use crate::resources::instant_wins::store::draw_state::DrawState;
use crate::resources::messages::service::once_messages_listen;
use crate::resources::segments::service::SubjectFacts;
use crate::services::Services;

/// What an event is evaluated on, read in one round trip
/// ([`Services::event_facts`]).
pub(crate) struct EventFacts {
    /// The Company's rules.
    pub rules: Arc<CompanyRules>,
    /// The active Customer.
    pub customer: Customer,
    /// What the rules know about it.
    pub facts: Facts,
    /// The state of the draws listening to the event.
    pub state: DrawState,
}

/// `customer_inactive` when `customer` is deactivated, anonymized or merged:
/// it takes part in no campaign.
fn ensure_active(customer: &Customer) -> ApiResult<()> {
    if !customer.active || customer.anonymized_at.is_some() || customer.merged_into.is_some() {
        return Err(ApiError::new(
            ErrorCode::CustomerInactive,
            format!("Customer {} is inactive", customer.id),
        ));
    }
    Ok(())
}

impl Services {
    /// The active Customer `reference` names; `customer_inactive` when it is
    /// deactivated, anonymized or merged.
    pub(crate) async fn active_customer_by(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
    ) -> ApiResult<Customer> {
        let customer = self.find_customer(company, reference).await?.customer;
        ensure_active(&customer)?;
        Ok(customer)
    }

    /// The Company's rules, the active Customer `subject` names, what the
    /// rules know about it at `date` (with the `once` messages it was shown
    /// when a listening campaign has one) and the state of the Instant Wins
    /// listening to `event`, read in one round trip; refuses when the
    /// Company's campaign files never loaded.
    pub(crate) async fn event_facts(
        &self,
        company: &str,
        subject: Subject<'_>,
        date: Timestamp,
        event: &Listens,
        location_code: Option<&str>,
    ) -> ApiResult<EventFacts> {
        let rules = self.catalog.company(company);
        let mut locale = self.company_locale(company).await?;
        // A Location's local day, weekday and hour are its own.
        if let Some(zone) = location_code.and_then(|code| {
            self.master_data
                .company(company)
                .location(code)
                .and_then(|location| location.time_zone)
        }) {
            locale.time_zone = zone;
        }
        let queries = state_queries(&rules, event, date.as_datetime(), &locale);
        let printed_once = once_messages_listen(&rules.campaigns, event);
        let SubjectFacts {
            customer,
            mut facts,
            state,
        } = self
            .subject_facts(company, subject, date.as_datetime(), &queries, printed_once)
            .await?;
        // The Customer's own errors come first, as they did when it was
        // read on its own before the rest.
        ensure_active(&customer)?;
        self.segment_facts(&rules, &mut facts);
        // Tiers and audiences keep the Company's calendar; the event's own
        // day, weekday and hour are its Location's.
        facts.locale = locale;
        Ok(EventFacts {
            rules,
            customer,
            facts,
            state,
        })
    }

    /// Completes `facts` from the Company's master data: the cart's lines
    /// from its Products, and the Location the event names.
    pub(crate) fn describe_master_data(
        &self,
        company: &str,
        location_code: Option<&str>,
        facts: &mut Facts,
    ) {
        let master = self.master_data.company(company);
        if master.is_empty() {
            facts.location = location_code.map_or_else(
                || serde_json::json!({}),
                |code| serde_json::json!({ "code": code }),
            );
            return;
        }
        master.describe_lines(&mut facts.cart);
        facts.location = master.location_facts(location_code);
    }
}
