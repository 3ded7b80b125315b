//! The one seam a campaign kind plugs into the service by: a
//! [`Contribution`], implemented in the kind's resource folder and named
//! once in [`super::kinds::CONTRIBUTIONS`]. Its evaluation is the rules
//! crate's ([`crate::engine::kinds`]); here is everything around it that
//! reads or writes the store: the state its campaigns read before an event,
//! the ledger entries its effects write, its part of the event's
//! transaction, what is read again when a concurrent event took what the
//! write counted on, and what a cart's cancellation gives back. Every method
//! has a default that does nothing, so a kind states only what it has.

use std::future::Future;
use std::pin::Pin;

use chrono::NaiveDateTime;
use serde_json::Value;

use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::effect::Effect;
use crate::engine::facts::Facts;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::services::Services;

/// Work of a contribution that reads or computes before it answers.
pub(crate) type Pending<'a, T> = Pin<Box<dyn Future<Output = ApiResult<T>> + Send + 'a>>;

/// What a campaign kind contributes to the service around its evaluation.
pub(crate) trait Contribution: Sync {
    /// The state `campaign`, when it is of this kind, reads before an event
    /// at `wall_clock` on the Company's clocks (read with the Customer's
    /// facts, in one round trip: [`crate::pipeline::store`]).
    fn state_query(&self, _campaign: &Campaign, _wall_clock: NaiveDateTime) -> Option<StateQuery> {
        None
    }

    /// Puts into `facts` what this kind's campaigns read before `event` is
    /// evaluated, besides the state above (its own state goes in
    /// `facts.kind_states`, by rule id).
    fn read_before<'a>(
        &'a self,
        _services: &'a Services,
        _event: &'a EventScope<'a>,
        _facts: &'a mut Facts,
    ) -> Pending<'a, ()> {
        Box::pin(async { Ok(()) })
    }

    /// The refusals of an event's write after which the event is evaluated
    /// again, on what [`Contribution::read_before`] reads afresh.
    fn contended(&self) -> &'static [ErrorCode] {
        &[]
    }

    /// The ledger entries `effect`, when it is one of this kind's, earns:
    /// points the event itself counts.
    fn earned_entries(&self, _effect: &Effect, _context: &EntryContext<'_>) -> Vec<LedgerEntry> {
        Vec::new()
    }

    /// The ledger entries `drawn` gives besides what its effects earn
    /// (points prizes of its draws).
    fn given_entries(
        &self,
        _drawn: &DrawnEvaluation,
        _context: &EntryContext<'_>,
    ) -> Vec<LedgerEntry> {
        Vec::new()
    }

    /// Its part of an event's write, when it has one.
    fn event_part(&self) -> Option<&'static EventPart> {
        None
    }

    /// The document of its [`Contribution::event_part`] for what `drawn`
    /// evaluated of `event`; null when it writes nothing for it.
    fn part_document(&self, _event: &EventScope<'_>, _drawn: &DrawnEvaluation) -> ApiResult<Value> {
        Ok(Value::Null)
    }

    /// What follows the write of an event `drawn` evaluated (metrics, work
    /// woken); never fails the event, which is written.
    fn after_written(&self, _services: &Services, _company: &str, _drawn: &DrawnEvaluation) {}

    /// Statements of a cart's cancellation giving back what the cart took or
    /// moved of this kind's state. They read `$company`, `$now`,
    /// `$original` (the cancelled cart's record), `$original_code` and
    /// `$part`, the document [`Contribution::give_back`] made.
    fn cancellation_statements(&self) -> Option<String> {
        None
    }

    /// The kind's own tables, when it keeps state the other resources do
    /// not: (where it lives, its `schema.surql`), applied after every
    /// resource's part ([`crate::storage::schema`]).
    fn schema(&self) -> Option<(&'static str, &'static str)> {
        None
    }

    /// What cancelling the cart `cancelled` names gives back: the ledger
    /// entries it reverses beyond the cart's own, and the document its
    /// [`Contribution::cancellation_statements`] read as `$part`.
    fn give_back<'a>(
        &'a self,
        _services: &'a Services,
        _cancelled: &'a Cancelled<'a>,
    ) -> Pending<'a, GivenBack> {
        Box::pin(async { Ok(GivenBack::default()) })
    }
}

/// A part of an event's write: the field of the write holding its document
/// and the statements that write it, run event by event in the batch's
/// transaction ([`crate::storage::event_transaction`]) where the field is
/// not null, with the document as `$part` (and `$company`, `$customer`,
/// `$now` and `$write`, the whole event).
#[derive(Debug)]
pub(crate) struct EventPart {
    /// The write's field, unique among the parts.
    pub field: &'static str,
    /// The statements, in SurrealQL.
    pub statements: fn() -> String,
}

/// The event a kind reads for before its evaluation and writes its part
/// of.
pub(crate) struct EventScope<'a> {
    /// Its Company.
    pub company: &'a str,
    /// The Company's rules.
    pub rules: &'a CompanyRules,
    /// The campaigns that listen to it.
    pub listens: &'a Listens,
    /// Its Customer.
    pub customer_id: &'a str,
}

/// Where the pipeline's ledger entries for an event go and why.
pub(crate) struct EntryContext<'a> {
    /// Every campaign of the Company (an effect names its campaign by id).
    pub campaigns: &'a [Campaign],
    /// The Customer credited.
    pub customer_id: &'a str,
    /// The entries' reason.
    pub reason: &'a str,
    /// The cart they are for, when the event is one.
    pub cart_id: Option<&'a str>,
    /// When they are written.
    pub at: Timestamp,
    /// The Company's clocks, which expiry dates are counted on.
    pub locale: &'a Locale,
}

/// A cart being cancelled.
pub(crate) struct Cancelled<'a> {
    /// Its Company.
    pub company: &'a str,
    /// Its Customer.
    pub customer_id: &'a str,
    /// The cart's code.
    pub cart_id: &'a str,
    /// The cancellation's code, which its ledger entries name.
    pub code: &'a str,
    /// When it is cancelled.
    pub at: Timestamp,
}

/// What a kind gives back of a cancelled cart.
#[derive(Debug, Default)]
pub(crate) struct GivenBack {
    /// Ledger entries reversing what the kind gave for the cart.
    pub ledger: Vec<LedgerEntry>,
    /// What its cancellation statements read as `$part`.
    pub document: Value,
}
