//! A Customer's reward transactions, and rolling a redemption back once:
//! its cost given back and what it gave taken back.

use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::customers::service::CustomerRef;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::rewards::model::RewardGiven;
use crate::resources::rewards::model::RewardState;
use crate::resources::rewards::model::RewardTransaction;
use crate::resources::rewards::store::RollbackWrite;
use crate::services::Services;

/// Longest rollback reason.
const MAX_REASON: usize = 500;

impl Services {
    /// GET /rewards/transactions: a Customer's reward transactions, newest first.
    pub async fn reward_transaction_page(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        page: PageRequest,
    ) -> ApiResult<Page<RewardTransaction>> {
        let customer = self.find_customer(company, customer).await?.customer;
        let fetched = self
            .store
            .reward_transaction_page(
                company,
                &customer.id,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        Ok(Page::from_fetched(fetched, &page, |t| t.id.clone()))
    }

    /// POST /rewards/transactions/{id}/rollback: gives a redemption's cost
    /// back and takes back what it gave (its Voucher voided, its game
    /// participation or points taken back), once.
    pub async fn rollback_reward_transaction(
        &self,
        company: &str,
        id: &str,
        reason: Option<String>,
        author: Option<&str>,
    ) -> ApiResult<RewardTransaction> {
        let reason = match reason {
            Some(reason) if reason.chars().count() > MAX_REASON => {
                return Err(ApiError::invalid(format!(
                    "reason is at most {MAX_REASON} characters"
                )));
            }
            Some(reason) if reason.trim().is_empty() => None,
            other => other,
        };
        let not_found = || {
            ApiError::new(
                ErrorCode::RewardTransactionNotFound,
                format!("no reward transaction `{id}`"),
            )
        };
        let done = self
            .store
            .reward_transaction(company, id)
            .await?
            .ok_or_else(not_found)?;
        let at: Timestamp = self.now();
        let mut ledger = Vec::new();
        if done.points > 0 {
            ledger.push(LedgerEntry {
                operation_id: Some(done.id.clone()),
                author_email: author.map(str::to_string),
                rule_id: Some(done.reward_id),
                ..LedgerEntry::new(
                    &done.customer_id,
                    done.balance,
                    done.points,
                    "reward_rollback",
                    at,
                )
            });
        }
        if let Some(RewardGiven {
            points: Some(points),
            balance: Some(kind),
            ..
        }) = &done.given
        {
            ledger.push(LedgerEntry {
                operation_id: Some(done.id.clone()),
                rule_id: Some(done.reward_id),
                ..LedgerEntry::new(&done.customer_id, *kind, -points, "reward_rollback", at)
            });
        }
        let rolled_back = RewardTransaction {
            state: RewardState::RolledBack,
            rolled_back_at: Some(at),
            rolled_back_by: author.map(str::to_string),
            rollback_reason: reason.clone(),
            ..done
        };
        let rollback = RollbackWrite {
            id: rolled_back.id.clone(),
            ledger,
            at,
            author: author.map(str::to_string),
            reason: reason.clone(),
            rolled_back: rolled_back.clone(),
        };
        answer_now(&rolled_back).await;
        match self.store.write_rollback(company, &rollback).await {
            Err(error) if error.code == ErrorCode::CustomerNotEnoughScore => {
                return Err(ApiError::new(
                    ErrorCode::RewardGiftUsed,
                    format!(
                        "the points reward transaction {id} gave were spent: {}",
                        error.message
                    ),
                ));
            }
            written => written?,
        }
        tracing::info!(company, transaction = %rolled_back.id, "reward redemption rolled back");
        Ok(rolled_back)
    }
}
