//! Repository of Rewards: the units of stock taken, each Customer's
//! redemptions per period, and reward transactions; a redemption and its
//! rollback are each one transaction with the ledger entries, the Voucher
//! or game participation they give or take back.

use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::instant_wins::store::prizes::ADD_GAME_PARTICIPATION;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::resources::points::store::ledger::APPEND_LEDGER;
use crate::resources::points::store::ledger::GUARD_DEBITS;
use crate::resources::rewards::model::RewardState;
use crate::resources::rewards::model::RewardTransaction;
use crate::resources::vouchers::issue_store::issue_documents;
use crate::resources::vouchers::issue_store::issue_statements;
use crate::resources::vouchers::model::VoucherIssue;
use crate::resources::vouchers::static_codes::store_key;
use crate::resources::webhooks::outbox::WRITE_WEBHOOKS;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::first_rows;
use crate::storage::page_query::PageQuery;

/// What one Customer's redemption of one Reward depends on, read together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RedemptionStanding {
    /// The balance that pays.
    pub balance: i64,
    /// Units of stock taken.
    pub stock_taken: i64,
    /// The Customer's redemptions in the current period of the limit.
    pub redeemed_in_period: i64,
}

/// A redemption to write: the transaction, and what it takes and gives.
#[derive(Debug, Clone)]
pub struct RedemptionWrite {
    /// The transaction recorded.
    pub transaction: RewardTransaction,
    /// The Reward's stock; -1: unlimited (nothing is counted).
    pub stock: i64,
    /// The Reward's limit per Customer and the current period's key.
    pub limit: Option<(i64, String)>,
    /// The cost debited and any points the Reward gives.
    pub ledger: Vec<LedgerEntry>,
    /// The Voucher it gives.
    pub voucher: Option<VoucherIssue>,
    /// The game it gives a participation in.
    pub game_id: Option<i64>,
}

/// How a reward transaction is rolled back.
#[derive(Debug, Clone)]
pub struct RollbackWrite {
    /// The transaction's id.
    pub id: String,
    /// The cost given back and any points the Reward gave taken back.
    pub ledger: Vec<LedgerEntry>,
    /// When.
    pub at: Timestamp,
    /// Who (`X-Author-Email`).
    pub author: Option<String>,
    /// Why.
    pub reason: Option<String>,
    /// The transaction as it is once rolled back, as answered.
    pub rolled_back: RewardTransaction,
}

/// The transaction of a redemption: stock and limit checked and counted,
/// the cost debited (never below zero), what it gives given, the
/// transaction recorded.
fn redeem_query() -> String {
    format!(
        "BEGIN TRANSACTION;
         IF $stock >= 0 {{
             LET $stocked = type::record('reward_stock', [$company, $reward_id]);
             LET $taken = ($stocked.taken) ?? 0;
             IF $taken >= $stock {{
                 THROW '{REFUSED}{out}|every unit of Reward ' + <string> $reward_id + ' is taken';
             }};
             UPSERT $stocked SET company = $company, reward_id = $reward_id, taken = $taken + 1 RETURN NONE;
         }};
         IF $limit != NONE {{
             LET $counted = type::record('reward_count', [$company, $reward_id, $customer, $limit.period]);
             LET $count = ($counted.count) ?? 0;
             IF $count >= $limit.count {{
                 THROW '{REFUSED}{limited}|the Customer redeemed Reward ' + <string> $reward_id + ' '
                     + <string> $count + ' times in this period, its limit';
             }};
             UPSERT $counted SET company = $company, count = $count + 1 RETURN NONE;
         }};
         {GUARD_DEBITS}
         {APPEND_LEDGER}
         {issue}
         IF $game != NONE {{
             LET $participant = $customer;
             {ADD_GAME_PARTICIPATION}
         }};
         CREATE type::record('reward_transaction', [$company, $transaction.tid]) CONTENT $transaction RETURN NONE;
         {WRITE_WEBHOOKS}
         {WRITE_ANSWER}
         COMMIT TRANSACTION;",
        out = ErrorCode::RewardOutOfStock.code(),
        limited = ErrorCode::RewardLimitReached.code(),
        issue = issue_statements(),
    )
}

/// The transaction of a rollback: once, only of a redemption, only while
/// what it gave is unused; the stock and the period's count given back.
fn rollback_query() -> String {
    format!(
        "BEGIN TRANSACTION;
         LET $key = type::record('reward_transaction', [$company, $id]);
         LET $done = ($key.*);
         IF $done == NONE {{
             THROW '{REFUSED}{missing}|no reward transaction ' + $id;
         }};
         IF $done.source != 'redemption' {{
             THROW '{REFUSED}{prize}|reward transaction ' + $id + ' is a prize, not a redemption';
         }};
         IF $done.state == 'rolled_back' {{
             THROW '{REFUSED}{twice}|reward transaction ' + $id + ' was rolled back at ' + <string> $done.rolled_back_at;
         }};
         IF $done.stock_taken {{
             UPDATE type::record('reward_stock', [$company, $done.reward_id])
                 SET taken = math::max([(taken ?? 0) - 1, 0]) RETURN NONE;
         }};
         IF $done.limit_period != NONE {{
             UPDATE type::record('reward_count', [$company, $done.reward_id, $done.customer_id, $done.limit_period])
                 SET count = math::max([(count ?? 0) - 1, 0]) RETURN NONE;
         }};
         IF $done.voucher_key != NONE {{
             LET $voucher = type::record('voucher', [$company, $done.voucher_key]);
             LET $held = ($voucher.{{uses_left, customer_id}});
             IF $held == NONE OR $held.uses_left < $done.voucher_uses OR $held.customer_id != $done.customer_id {{
                 THROW '{REFUSED}{used}|the Voucher ' + $done.given.voucher_code + ' it gave was used';
             }};
             UPDATE $voucher SET state = 'inactive', voided_at = $now RETURN NONE;
         }};
         IF $done.given.game_id != NONE {{
             LET $held = type::record('game_participation', [$company, $done.customer_id, $done.given.game_id]);
             LET $available = ($held.available) ?? 0;
             IF $available < 1 {{
                 THROW '{REFUSED}{used}|the participation in game ' + <string> $done.given.game_id + ' it gave was played';
             }};
             UPDATE $held SET available = $available - 1 RETURN NONE;
         }};
         {GUARD_DEBITS}
         {APPEND_LEDGER}
         UPDATE $key SET state = 'rolled_back', rolled_back_at = $now,
             rolled_back_by = $author, rollback_reason = $reason RETURN NONE;
         {WRITE_WEBHOOKS}
         {WRITE_ANSWER}
         COMMIT TRANSACTION;",
        missing = ErrorCode::RewardTransactionNotFound.code(),
        prize = ErrorCode::RewardTransactionNotRedemption.code(),
        twice = ErrorCode::RewardTransactionRolledBack.code(),
        used = ErrorCode::RewardGiftUsed.code(),
    )
}

/// The order key of a transaction id: its time-ordered part, shared by
/// redemption (`rwt_`) and prize (`drw_`) ids.
pub(crate) fn order_key(id: &str) -> &str {
    id.split_once('_').map_or(id, |(_, key)| key)
}

/// `transaction` of `company` as it is stored: keyed by `tid`, in order of `seq`.
pub(crate) fn transaction_document(company: &str, transaction: &RewardTransaction) -> Value {
    let mut document = json!(transaction);
    if let Some(object) = document.as_object_mut() {
        let id = object.remove("id").unwrap_or(Value::Null);
        object.insert("tid".into(), id);
        object.insert("company".into(), json!(company));
        object.insert("seq".into(), json!(order_key(&transaction.id)));
    }
    document
}

/// A stored reward transaction as the API answers it. Prizes delivered
/// before redemptions existed say `status` where newer ones say `state`.
fn transaction_from(mut document: Value) -> ApiResult<RewardTransaction> {
    if let Some(object) = document.as_object_mut() {
        if let Some(id) = object.remove("tid") {
            object.insert("id".into(), id);
        }
        if !object.contains_key("state") {
            object.insert("state".into(), json!(RewardState::Available));
        }
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored reward transaction unreadable: {e}")))
}

impl Store {
    /// The balance, the stock taken and the Customer's redemptions in
    /// `period` of Reward `reward_id`, in one round trip.
    pub async fn redemption_standing(
        &self,
        company: &str,
        customer_id: &str,
        reward_id: i64,
        balance: PointsKind,
        period: Option<&str>,
    ) -> ApiResult<RedemptionStanding> {
        let read: Vec<i64> = first(
            self.db
                .query(
                    "RETURN [
                         type::record('customer_state', [$company, $customer]).*[$kind] ?? 0,
                         (type::record('reward_stock', [$company, $reward]).taken) ?? 0,
                         IF $period == NONE { 0 } ELSE {
                             (type::record('reward_count', [$company, $reward, $customer, $period]).count) ?? 0
                         }
                     ]",
                )
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("kind", balance.name()))
                .bind(("reward", reward_id))
                .bind(("period", period.map(str::to_string))),
        )
        .await?;
        Ok(RedemptionStanding {
            balance: read.first().copied().unwrap_or(0),
            stock_taken: read.get(1).copied().unwrap_or(0),
            redeemed_in_period: read.get(2).copied().unwrap_or(0),
        })
    }

    /// Units taken of each Reward of `company` that counts its stock, by id.
    pub async fn reward_stock_taken(&self, company: &str) -> ApiResult<Vec<(i64, i64)>> {
        first_rows(
            self.db
                .query("SELECT reward_id, taken FROM reward_stock WHERE company = $company")
                .bind(("company", company.to_string())),
            &["reward_id", "taken"],
        )
        .await
    }

    /// The outbox rows of the webhook event `reported` of `transaction`.
    fn reward_webhooks(
        &self,
        company: &str,
        reported: &str,
        transaction: &RewardTransaction,
    ) -> Vec<Value> {
        poem_openapi::types::ToJSON::to_json(transaction).map_or_else(Vec::new, |data| {
            self.memory.webhooks.rows(
                company,
                reported,
                Some(&transaction.customer_id),
                data,
                transaction.rolled_back_at.unwrap_or(transaction.created_at),
            )
        })
    }

    /// Writes `redemption` whole, or refuses (`reward_out_of_stock`,
    /// `reward_limit_reached`, `customer_not_enough_score`,
    /// `voucher_code_taken`, `coupon_issue_limit_reached`) and writes nothing.
    pub async fn write_redemption(
        &self,
        company: &str,
        redemption: &RedemptionWrite,
    ) -> ApiResult<()> {
        let transaction = &redemption.transaction;
        let mut document = transaction_document(company, transaction);
        if let Some(object) = document.as_object_mut() {
            object.insert("stock_taken".into(), json!(redemption.stock >= 0));
            if let Some((_, period)) = &redemption.limit {
                object.insert("limit_period".into(), json!(period));
            }
            if let Some(issue) = &redemption.voucher {
                object.insert("voucher_key".into(), json!(store_key(&issue.voucher)));
                object.insert("voucher_uses".into(), json!(issue.voucher.uses_left));
            }
        }
        // First, in the order it happened: the redemption, then what it
        // gave and took.
        let webhooks = self.reward_webhooks(company, "reward.redeemed", transaction);
        let vouchers = issue_documents(
            &self.memory.webhooks,
            company,
            redemption.voucher.as_slice(),
        )?;
        let written = self.ledger_write(company, &redemption.ledger);
        let limit = redemption
            .limit
            .as_ref()
            .map(|(count, period)| json!({"count": count, "period": period}));
        let query = redeem_query();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("customer", transaction.customer_id.clone()))
                .bind(("reward_id", transaction.reward_id))
                .bind(("stock", redemption.stock))
                .bind(("limit", limit.clone()))
                .bind_ledger(&written)
                .bind(("vouchers", vouchers.clone()))
                .bind(("refuse", true))
                .bind(("game", redemption.game_id))
                .bind(("transaction", document.clone()))
                .bind(("webhook_deliveries", webhooks.clone()))
        })
        .await?;
        Ok(())
    }

    /// Rolls back the redemption `rollback.id` once, or refuses
    /// (`reward_transaction_not_found`, `reward_transaction_not_redemption`,
    /// `reward_transaction_rolled_back`, `reward_gift_used`,
    /// `customer_not_enough_score`) and writes nothing.
    pub async fn write_rollback(&self, company: &str, rollback: &RollbackWrite) -> ApiResult<()> {
        let webhooks = self.reward_webhooks(company, "reward.rolled_back", &rollback.rolled_back);
        let written = self.ledger_write(company, &rollback.ledger);
        let query = rollback_query();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("id", rollback.id.clone()))
                .bind_ledger(&written)
                .bind(("now", rollback.at.to_string()))
                .bind(("author", rollback.author.clone()))
                .bind(("reason", rollback.reason.clone()))
                .bind(("webhook_deliveries", webhooks.clone()))
        })
        .await?;
        Ok(())
    }

    /// The reward transaction `id` of `company`.
    pub async fn reward_transaction(
        &self,
        company: &str,
        id: &str,
    ) -> ApiResult<Option<RewardTransaction>> {
        let document: Option<Value> = first(
            self.db
                .query("SELECT * OMIT id, company FROM ONLY type::record('reward_transaction', [$company, $id])")
                .bind(("company", company.to_string()))
                .bind(("id", id.to_string())),
        )
        .await?;
        document.map(transaction_from).transpose()
    }

    /// A page of the reward transactions of a Customer, newest first.
    pub async fn reward_transaction_page(
        &self,
        company: &str,
        customer_id: &str,
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<RewardTransaction>> {
        let documents = PageQuery::new("SELECT * OMIT id, company FROM reward_transaction", "seq")
            .newest_first()
            .filter("customer_id = $customer", "customer", customer_id)
            .fetch(self, company, starting_after.map(order_key), limit)
            .await?;
        documents.into_iter().map(transaction_from).collect()
    }

    /// Every reward transaction of a Customer, newest first.
    pub async fn reward_transactions(
        &self,
        company: &str,
        customer_id: &str,
    ) -> ApiResult<Vec<RewardTransaction>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT * OMIT id, company FROM reward_transaction WHERE company = $company AND customer_id = $customer ORDER BY seq DESC")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string())),
        )
        .await?;
        rows.into_iter().map(transaction_from).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prizes_and_redemptions_share_one_order() {
        assert_eq!(order_key("drw_0190aa0000001234"), "0190aa0000001234");
        assert_eq!(order_key("rwt_0190aa0000001235"), "0190aa0000001235");
        assert!(order_key("drw_0190aa0000001234") < order_key("rwt_0190aa0000001235"));
    }

    #[test]
    fn a_prize_stored_before_states_reads_as_available() {
        let read = transaction_from(json!({
            "tid": "drw_1", "customer_id": "c", "reward_id": 401, "source": "instant_win",
            "rule_id": 301, "status": "available", "created_at": "2026-11-22T10:00:00Z"
        }))
        .unwrap();
        assert_eq!(read.id, "drw_1");
        assert_eq!(read.state, RewardState::Available);
        assert_eq!(read.points, 0);
    }
}
