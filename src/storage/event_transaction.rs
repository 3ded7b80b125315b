//! What the transaction recording a batch of events writes for each: its
//! cart or Custom Event, the Voucher uses and discounts of a cart, the
//! Vouchers its campaigns issue, its Challenge progress, its ledger entries
//! and its Instant Win draws. Each resource writes its own part; this text
//! puts them in order, once, for the group commit
//! ([`crate::storage::group_commit`]) to run over a batch.

use serde_json::Value;

use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::carts::store::STORE_CART;
use crate::resources::challenges::store::advance_statements;
use crate::resources::discounts::store::STORE_DISCOUNTS;
use crate::resources::instant_wins::store::COUNT_PARTICIPATIONS;
use crate::resources::instant_wins::store::QUEUE_DELIVERIES;
use crate::resources::instant_wins::store::STORE_AUDIT;
use crate::resources::instant_wins::store::TAKE_STOCK;
use crate::resources::instant_wins::store::USE_GAME_PARTICIPATIONS;
use crate::resources::instant_wins::store::USE_VOUCHERS;
use crate::resources::limits::store::TAKE_EVENT_LIMITS;
use crate::resources::points::store::ledger::APPEND_LEDGER;
use crate::resources::vouchers::issue_store::issue_statements;
use crate::resources::vouchers::redemption_store::TAKE_VOUCHER_USES;

/// One event to record, as bound to the transaction (`$write`): `company`,
/// `customer`, `ledger` and `balances` (see [`crate::resources::points::store::ledger::ledger_documents`]),
/// `draw_write` ([`crate::resources::instant_wins::store::draw_write`]), one of `cart` (the stored cart)
/// or `event` (the stored Custom Event), the other null, and for a cart the
/// Voucher uses it redeems (`voucher_uses`, made by
/// [`crate::resources::vouchers::redemption_store::voucher_use_documents`]) at `now`
/// and the discounts it got (`discounts`, made by
/// [`crate::resources::discounts::store::transaction_document`], or null),
/// the Vouchers its campaigns issue (`voucher_issues`), the Challenge
/// records it moved (`challenges`) and what its points campaigns take from
/// their limits (`limit_takes`, made by
/// [`crate::resources::limits::store::limit_take_documents`]), each null
/// when there are none; and the answer of its request when it carries an
/// Idempotency-Key (`answer`,
/// [`crate::http::idempotency::answer::written_answer`]), written in the
/// same transaction.
pub(crate) type EventWrite = Value;

/// The transaction recording `$writes`, each as [`EventWrite`]. Every part
/// is written once and skipped at run time where an event does not need it.
pub(crate) fn batch_query() -> String {
    format!(
        "BEGIN TRANSACTION;
         FOR $write IN $writes {{
             LET $company = $write.company;
             LET $customer = $write.customer;
             LET $ledger = $write.ledger;
             LET $balances = $write.balances;
             LET $draw_write = $write.draw_write;
             LET $voucher_uses = $write.voucher_uses;
             LET $now = $write.now;
             IF $write.cart {{
                 {STORE_CART}
             }};
             IF $voucher_uses {{
                 {TAKE_VOUCHER_USES}
             }};
             IF $write.discounts {{
                 {STORE_DISCOUNTS}
             }};
             IF $write.voucher_issues {{
                 LET $vouchers = $write.voucher_issues;
                 LET $refuse = true;
                 {issue_vouchers}
             }};
             IF $write.challenges {{
                 {advance_challenges}
             }};
             IF $write.event {{
                 CREATE type::record('custom_event', [$company, $write.event.eid]) CONTENT $write.event RETURN NONE;
             }};
             IF $write.limit_takes {{
                 {TAKE_EVENT_LIMITS}
             }};
             {APPEND_LEDGER}
             LET $answer = $write.answer;
             {WRITE_ANSWER}
             IF $draw_write {{
                 {COUNT_PARTICIPATIONS}
                 IF $draw_write.used {{
                     {USE_VOUCHERS}
                 }};
                 IF $draw_write.limited {{
                     {TAKE_STOCK}
                 }};
                 IF $draw_write.played {{
                     {USE_GAME_PARTICIPATIONS}
                 }};
                 {STORE_AUDIT}
                 IF $draw_write.won {{
                     {QUEUE_DELIVERIES}
                 }};
             }};
         }};
         COMMIT TRANSACTION;",
        issue_vouchers = issue_statements(),
        advance_challenges = advance_statements(),
    )
}
