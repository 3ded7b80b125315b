//! What the limits of a campaign contribute to the event pipeline, whatever
//! its kind: the headroom read before the evaluation, what the event's
//! points campaigns take from their budgets (written with the event, read
//! again when a concurrent event took the last of one), and what a cart's
//! cancellation gives back to them.

use serde_json::Value;

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::EventPart;
use crate::pipeline::contribution::EventScope;
use crate::pipeline::contribution::Pending;
use crate::pipeline::contribution::ReadBefore;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::limits::store::TAKE_EVENT_LIMITS;
use crate::resources::limits::store::give_back_limits_sql;
use crate::resources::limits::store::limit_take_documents;

/// Limits' part of the pipeline.
pub(crate) struct Limits;

/// What an event's points campaigns take from their limits; a cart keeps it
/// (as `limit_takes`) for its cancellation to give back.
pub(crate) static EVENT_LIMIT_TAKES: EventPart = EventPart {
    field: "limit_takes",
    statements: event_limit_statements,
};

/// [`EVENT_LIMIT_TAKES`]' statements.
fn event_limit_statements() -> String {
    TAKE_EVENT_LIMITS.to_string()
}

/// SurrealQL giving back what the points campaigns of the cart `$original`
/// took from their limits: part of its cancellation's transaction.
const GIVE_BACK_CART_LIMITS: &str = concat!(
    "
    LET $limit_takes = ($original.limit_takes) ?? [];",
    give_back_limits_sql!()
);

impl Contribution for Limits {
    fn read_before<'a>(&'a self, read: ReadBefore<'a>) -> Pending<'a, ()> {
        Box::pin(read.services.read_limits(read.event, read.facts))
    }

    /// Another event took the last of a budget this one counted on.
    fn contended(&self) -> &'static [ErrorCode] {
        &[ErrorCode::DrawContended]
    }

    fn event_part(&self) -> Option<&'static EventPart> {
        Some(&EVENT_LIMIT_TAKES)
    }

    fn part_document(&self, _event: &EventScope<'_>, drawn: &DrawnEvaluation) -> ApiResult<Value> {
        Ok(match drawn.evaluation.event_limit_takes.as_slice() {
            [] => Value::Null,
            takes => Value::Array(limit_take_documents(takes)),
        })
    }

    fn cancellation_statements(&self) -> Option<String> {
        Some(GIVE_BACK_CART_LIMITS.to_string())
    }
}
