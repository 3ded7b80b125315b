//! The one seam a campaign kind plugs into the service by: a
//! [`Contribution`], implemented in the kind's resource folder and named
//! once in [`super::kinds::CONTRIBUTIONS`]. Its evaluation is the rules
//! crate's ([`crate::engine::kinds`]); here is everything around it that
//! reads or writes the store: the state its campaigns read before an event,
//! the ledger entries its effects write, its part of the event's
//! transaction, what is read again when a concurrent event took what the
//! write counted on, what a cart's cancellation gives back, and what a
//! merge of two Customers moves of what they hold. Every method
//! has a default that does nothing, so a kind states only what it has.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use chrono::NaiveDateTime;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::effect::Effect;
use crate::engine::evaluate::Evaluation;
use crate::engine::facts::Facts;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::carts::model::Cart;
use crate::resources::coupons::apply::DesiredVoucher;
use crate::resources::customers::recorded::RecordedChange;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::merges::model::NotRestored;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::webhooks::emit::Subscriptions;
use crate::services::Services;
use crate::storage::event_transaction::BatchPart;
use crate::storage::memory::Memory;

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

    /// Puts into the facts what this kind's campaigns read before an event
    /// is evaluated, besides the state above (its own state goes in
    /// `facts.kind_states`, by rule id).
    fn read_before<'a>(&'a self, _read: ReadBefore<'a>) -> Pending<'a, ()> {
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

    /// Its parts whose documents the event's own write carries (made with
    /// the cart: [`Contribution::cart_parts`]): run like an
    /// [`Contribution::event_part`], but first, before every kind's own
    /// part.
    fn carried_parts(&self) -> &'static [EventPart] {
        &[]
    }

    /// Its documents in a cart's write, made from what the evaluation
    /// settled of the cart: each under its field of the write (a cart's
    /// Voucher uses, the discounts it got, what they take from their
    /// limits), read by its [`Contribution::carried_parts`] and
    /// [`Contribution::batch_rows`].
    fn cart_parts(&self, _cart: &SettledCart<'_>) -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// The fields of an event's write this kind adds whose change to the
    /// Customer's state this process keeps ([`RecordedChange`]) it knows
    /// (or that change none of it): any other field present makes the
    /// Customer read again after the event.
    fn known_fields(&self) -> &'static [&'static str] {
        &[]
    }

    /// Puts into `change` what `write`, an event that committed, changed
    /// through this kind's [`Contribution::known_fields`] in its Customer's
    /// kept state; false when it changed more than that state holds, and
    /// the Customer is read again.
    fn recorded_change(&self, _write: &Value, _change: &mut RecordedChange) -> bool {
        true
    }

    /// Hands `add` its rows of the statements that run once over a whole
    /// batch of events ([`BatchPart`]s, checks before writes), from
    /// `write`, one event's write of `company`
    /// ([`crate::storage::event_transaction`]).
    fn batch_rows(
        &self,
        _company: &str,
        _write: &Value,
        _add: &mut dyn FnMut(&'static BatchPart, Value),
    ) {
    }

    /// The part of its [`Contribution::batch_rows`] whose rows may not
    /// repeat a record within one batch (the batch's checks could not see
    /// each other's writes), and the refusal of a batch where one does: it
    /// is then recorded event by event, where each event gets the answer
    /// it would have had alone.
    fn once_per_batch(&self) -> Option<OncePerBatch> {
        None
    }

    /// Learns what this kind keeps in `memory` from the outcome `recorded`
    /// of the event `write`, before the event is answered (a lost answer
    /// may have committed).
    fn learn_outcome(&self, _memory: &Memory, _write: &Value, _recorded: &ApiResult<()>) {}

    /// What this kind keeps in this process's memory, fresh (found again
    /// by its type: [`crate::storage::memory::KindsMemory::get`]).
    fn kept_in_memory(&self) -> Option<Arc<dyn Any + Send + Sync>> {
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

    /// Its part of a merge, when its Customers hold something a merge
    /// moves to the survivor (and an unmerge gives back).
    fn merge_part(&self) -> Option<&'static MergePart> {
        None
    }
}

/// A kind's planning of a merge or an unmerge.
pub(crate) type PlanMoves = for<'a> fn(&'a Services, &'a MergeScope<'a>) -> Pending<'a, MergeMoves>;

/// A kind's part of a merge or unmerge: how it plans its moves, the field
/// of the merge record listing what it moved, and the statements applying
/// one of its moves (`$move`, with `$company`) in the merge's transaction
/// ([`crate::resources::merges::store`]). They run `stale` (a `THROW`)
/// when what the move was planned on changed since it was read.
pub(crate) struct MergePart {
    /// The field of [`crate::resources::merges::model::MovedHoldings`]; a
    /// test checks it is one.
    pub field: &'static str,
    /// What merging `from` into `to` moves of what `from` holds, with what
    /// the merge record keeps of it.
    pub plan_merge: PlanMoves,
    /// What undoing a merge gives back of what its merge moved, as far as
    /// the survivor (`from`) still holds it, and what stays, and why.
    pub plan_unmerge: PlanMoves,
    /// The statements, given the refusal to run.
    pub statements: fn(stale: &str) -> String,
}

/// A merge or an unmerge, seen by a kind: what `from` holds moves to `to`.
pub(crate) struct MergeScope<'a> {
    /// Its Company.
    pub company: &'a str,
    /// The Customer that gives: the merged one of a merge, the survivor of
    /// an unmerge.
    pub from: &'a str,
    /// The Customer that receives.
    pub to: &'a str,
    /// For an unmerge, the kind's field of the merge record undone (what
    /// its merge moved); null for a merge.
    pub recorded: &'a Value,
}

/// A kind's moves in a merge or unmerge.
#[derive(Debug, Default)]
pub(crate) struct MergeMoves {
    /// The moves its [`MergePart`] statements apply, one by one.
    pub moves: Vec<Value>,
    /// For a merge, its field of the merge record (what an unmerge reads
    /// back as [`MergeScope::recorded`]).
    pub recorded: Value,
    /// For an unmerge, what stays with the survivor, and why.
    pub not_restored: Vec<NotRestored>,
}

/// A batch part whose rows may not repeat a record within one batch
/// ([`Contribution::once_per_batch`]).
pub(crate) struct OncePerBatch {
    /// The part.
    pub part: &'static BatchPart,
    /// The refusal of a batch repeating one of its records.
    pub refusal: ErrorCode,
    /// Why, as the refusal says it.
    pub why: &'static str,
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
    /// Whom the webhook events of what it writes go to.
    pub webhooks: &'a Subscriptions,
}

/// A kind's read before an event's evaluation
/// ([`Contribution::read_before`]).
pub(crate) struct ReadBefore<'a> {
    /// The services it reads through.
    pub services: &'a Services,
    /// The event.
    pub event: &'a EventScope<'a>,
    /// The facts it puts what it read into.
    pub facts: &'a mut Facts,
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

/// A cart as an evaluation settled it, before it is written.
pub(crate) struct SettledCart<'a> {
    /// Its Company.
    pub company: &'a str,
    /// The cart, its lines' discounts and totals settled.
    pub cart: &'a Cart,
    /// The Vouchers it presented, as read before the evaluation.
    pub vouchers: &'a [DesiredVoucher],
    /// The evaluation settled.
    pub evaluation: &'a Evaluation,
    /// Whom the webhook events of what it writes go to.
    pub webhooks: &'a Subscriptions,
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

impl MergeScope<'_> {
    /// [`MergeScope::recorded`] read back as the kind wrote it (nothing when
    /// the merge record has none).
    pub fn recorded<T: DeserializeOwned>(&self) -> ApiResult<Vec<T>> {
        if self.recorded.is_null() {
            return Ok(Vec::new());
        }
        serde_json::from_value(self.recorded.clone())
            .map_err(|e| ApiError::internal(format!("stored merge record unreadable: {e}")))
    }
}

impl MergeMoves {
    /// A merge's `moves`, recorded as `recorded`.
    pub fn merged<M: Serialize, R: Serialize>(moves: &[M], recorded: &[R]) -> ApiResult<Self> {
        Ok(Self {
            moves: documents(moves)?,
            recorded: serde_json::to_value(recorded).map_err(ApiError::internal)?,
            not_restored: Vec::new(),
        })
    }

    /// An unmerge's `moves`, and what stays.
    pub fn unmerged<M: Serialize>(moves: &[M], not_restored: Vec<NotRestored>) -> ApiResult<Self> {
        Ok(Self {
            moves: documents(moves)?,
            recorded: Value::Null,
            not_restored,
        })
    }
}

/// Each of `items` as a document.
fn documents<T: Serialize>(items: &[T]) -> ApiResult<Vec<Value>> {
    items
        .iter()
        .map(|item| serde_json::to_value(item).map_err(ApiError::internal))
        .collect()
}
