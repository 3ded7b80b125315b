//! What Vouchers contribute to the event pipeline: the uses of the Vouchers
//! a cart presents, taken in its transaction; the Vouchers `voucher`
//! campaigns issue ([`super::earned`]), with the counts of capped Coupons
//! read before the evaluation and read again when a concurrent event
//! issued meanwhile; the Voucher uses a cart's cancellation gives back; and
//! the Vouchers a merge moves ([`super::merges`]).

use serde_json::Value;

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::EventPart;
use crate::pipeline::contribution::EventScope;
use crate::pipeline::contribution::MergePart;
use crate::pipeline::contribution::Pending;
use crate::pipeline::contribution::ReadBefore;
use crate::pipeline::contribution::SettledCart;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::vouchers::cart_uses::cart_voucher_uses;
use crate::resources::vouchers::earned::ISSUE_CONTENDED;
use crate::resources::vouchers::earned::voucher_issues;
use crate::resources::vouchers::issue_store::issue_documents;
use crate::resources::vouchers::issue_store::issue_statements;
use crate::resources::vouchers::merges;
use crate::resources::vouchers::redemption_store::GIVE_BACK_CART_VOUCHERS;
use crate::resources::vouchers::redemption_store::TAKE_VOUCHER_USES;
use crate::resources::vouchers::redemption_store::voucher_use_documents;

/// Vouchers' part of the pipeline.
pub(crate) struct Vouchers;

/// The Vouchers an event's campaigns issue.
static VOUCHER_ISSUES: EventPart = EventPart {
    field: "voucher_issues",
    statements: voucher_issue_statements,
};

/// [`VOUCHER_ISSUES`]' statements: a code taken or a cap reached refuses
/// the event, which is evaluated again.
fn voucher_issue_statements() -> String {
    format!(
        "LET $vouchers = $part;
         LET $refuse = true;
         {}",
        issue_statements()
    )
}

/// The uses of the Vouchers a cart presents that applied, made with the
/// cart ([`cart_voucher_uses`]).
static VOUCHER_USES: [EventPart; 1] = [EventPart {
    field: "voucher_uses",
    statements: voucher_use_statements,
}];

/// [`VOUCHER_USES`]' statements: a Voucher used up or held by another
/// checkout refuses the cart.
fn voucher_use_statements() -> String {
    format!(
        "LET $voucher_uses = $part;
         {TAKE_VOUCHER_USES}"
    )
}

impl Contribution for Vouchers {
    fn read_before<'a>(&'a self, read: ReadBefore<'a>) -> Pending<'a, ()> {
        Box::pin(read.services.read_voucher_issues(read.event, read.facts))
    }

    fn contended(&self) -> &'static [ErrorCode] {
        ISSUE_CONTENDED
    }

    fn event_part(&self) -> Option<&'static EventPart> {
        Some(&VOUCHER_ISSUES)
    }

    fn carried_parts(&self) -> &'static [EventPart] {
        &VOUCHER_USES
    }

    fn cart_parts(&self, cart: &SettledCart<'_>) -> Vec<(&'static str, Value)> {
        let uses = cart_voucher_uses(cart);
        if uses.is_empty() {
            return Vec::new();
        }
        vec![(
            VOUCHER_USES[0].field,
            Value::Array(voucher_use_documents(cart.webhooks, cart.company, &uses)),
        )]
    }

    fn part_document(&self, event: &EventScope<'_>, drawn: &DrawnEvaluation) -> ApiResult<Value> {
        let issues = voucher_issues(&drawn.evaluation.effects);
        if issues.is_empty() {
            return Ok(Value::Null);
        }
        Ok(Value::Array(issue_documents(
            event.webhooks,
            event.company,
            &issues,
        )?))
    }

    fn cancellation_statements(&self) -> Option<String> {
        Some(GIVE_BACK_CART_VOUCHERS.to_string())
    }

    fn merge_part(&self) -> Option<&'static MergePart> {
        Some(&merges::VOUCHER_MOVES)
    }
}
