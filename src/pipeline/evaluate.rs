//! The pipeline's evaluation step: the campaigns listening to an event,
//! evaluated by the rules engine on the Customer's facts and the state the
//! kinds read before it (read afresh when a retry has none), with the
//! Instant Win draws the evaluation makes ([`crate::resources::instant_wins::draws`]).

use crate::common::language::Language;
use crate::engine::evaluate::evaluate;
use crate::engine::facts::Facts;
use crate::error::ApiResult;
use crate::pipeline::contribution::EventScope;
use crate::pipeline::contributions::state_queries;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::instant_wins::store::draw_state::DrawState;
use crate::services::Services;

/// An event of a Customer to evaluate.
pub(crate) struct EventToEvaluate<'a> {
    /// Its Company, rules, campaigns listening and Customer.
    pub scope: &'a EventScope<'a>,
    /// What conditions see.
    pub facts: &'a Facts,
}

impl Services {
    /// Evaluates `event` with new random values for its draws, on the state
    /// `read` with the facts ([`Services::event_facts`]) or, when none is
    /// given (a retry after a contended write), read afresh; messages are
    /// resolved in `language`.
    pub(crate) async fn evaluate_event(
        &self,
        event: &EventToEvaluate<'_>,
        read: Option<DrawState>,
        language: &Language,
    ) -> ApiResult<DrawnEvaluation> {
        let EventScope {
            company,
            customer_id,
            rules,
            listens,
            ..
        } = *event.scope;
        let facts = event.facts;
        let state = match read {
            Some(state) => state,
            None => {
                let queries = state_queries(rules, listens, facts.now, &facts.locale);
                if queries.is_empty() {
                    DrawState::default()
                } else {
                    self.store
                        .instant_win_states(company, customer_id, &queries)
                        .await?
                }
            }
        };
        Ok(self.draw(company, customer_id, state, |draws| {
            evaluate(
                self.catalog.engine(),
                &rules.campaigns,
                listens,
                facts,
                draws,
                &|text| text.resolve(&language.chosen, &language.default),
            )
        }))
    }
}
