//! Rewards: GET /rewards, GET /rewards/{id}, POST /rewards/{id}/redeem,
//! GET /rewards/transactions, POST /rewards/transactions/{id}/rollback.

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::author::Author;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use crate::resources::rewards::model::RewardTransaction;
use crate::resources::rewards::view::RewardView;

#[derive(Tags)]
enum RewardsTags {
    /// The Rewards catalogue, redemptions with points and their rollback.
    Rewards,
}

/// The Rewards catalogue.
#[derive(Debug, Object)]
pub struct RewardList {
    /// By ascending id.
    pub rewards: Vec<RewardView>,
}

/// A page of reward transactions.
#[derive(Debug, Object)]
pub struct RewardTransactionList {
    /// Newest first.
    pub reward_transactions: Vec<RewardTransaction>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}

/// A redemption of a Reward.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct RewardRedemption {
    /// The Customer who redeems it, by id (or `customer_code`).
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The store where it is handed over.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub location_code: Option<String>,
}

/// Why a redemption is rolled back (`{}` when no reason is given).
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct RewardRollback {
    /// Kept on the transaction (at most 500 characters).
    #[oai(validator(max_length = 500))]
    pub reason: Option<String>,
}

/// Rewards endpoints.
#[derive(Default)]
pub struct RewardsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for RewardsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /rewards",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /rewards/{id}",
            codes: &[ErrorCode::RewardNotFound, ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "POST /rewards/{id}/redeem",
            codes: &[
                ErrorCode::RewardNotFound,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::CustomerNotEnoughScore,
                ErrorCode::RewardNotRedeemable,
                ErrorCode::RewardNotAvailable,
                ErrorCode::RewardOutOfStock,
                ErrorCode::RewardLimitReached,
                ErrorCode::CouponNotFound,
                ErrorCode::CouponIssueLimitReached,
                ErrorCode::VoucherCodeTaken,
            ],
        },
        OperationErrors {
            operation: "GET /rewards/transactions",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "POST /rewards/transactions/{id}/rollback",
            codes: &[
                ErrorCode::RewardTransactionNotFound,
                ErrorCode::RewardTransactionNotRedemption,
                ErrorCode::RewardTransactionRolledBack,
                ErrorCode::RewardGiftUsed,
            ],
        },
    ];
}

#[OpenApi(tag = "RewardsTags::Rewards")]
impl RewardsApi {
    /// List the Rewards catalogue.
    ///
    /// Every Reward with its price (`points_cost`, a tier's own in
    /// `points_cost_by_tier`), stock left and limit. With `customer_id` or
    /// `customer_code`, each also says whether that Customer can redeem it
    /// now (`can_redeem`) and, when not, the error code a redemption would
    /// answer (`reason`) and why in words: the balance, the stock, their
    /// limit, the Reward's dates, condition or tier.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/rewards", method = "get")]
    async fn rewards(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
    ) -> Result<Json<RewardList>, ErrorResponse> {
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        let rewards = caller
            .services
            .rewards(&caller.company, customer, caller.language()?)
            .await?;
        Ok(Json(RewardList { rewards }))
    }

    /// Get a Reward.
    ///
    /// As in the catalogue; with `customer_id` or `customer_code`, whether
    /// that Customer can redeem it now and why not.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/rewards/:id", method = "get")]
    async fn reward(
        &self,
        caller: Tier2<'_>,
        /// The Reward's id.
        id: Path<i64>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
    ) -> Result<Json<RewardView>, ErrorResponse> {
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        let reward = caller
            .services
            .reward(&caller.company, id.0, customer, caller.language()?)
            .await?;
        Ok(Json(reward))
    }

    /// Redeem a Reward.
    ///
    /// In one transaction: debits its cost (the Customer's tier price) from
    /// its balance, takes one unit of its stock, counts it against the
    /// Customer's limit, gives what it gives (a Voucher, points, a game
    /// participation, or an item to hand over) and records the reward
    /// transaction, answered here. Refused with the catalogue's `reason`
    /// codes, changing nothing; concurrent redemptions never take more than
    /// the stock, the limit or the balance allow. Send an
    /// `Idempotency-Key` to retry safely.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/rewards/:id/redeem", method = "post")]
    async fn redeem(
        &self,
        caller: Tier1<'_>,
        #[oai(name = "X-Author-Email")] author: Author,
        /// The Reward's id.
        id: Path<i64>,
        body: Json<RewardRedemption>,
    ) -> Result<Json<RewardTransaction>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        caller.answers_with(RewardTransaction::clone);
        let transaction = caller
            .services
            .redeem_reward(
                &caller.company,
                id.0,
                customer,
                body.location_code,
                author.0.as_deref(),
            )
            .await?;
        Ok(Json(transaction))
    }

    /// Reward transactions of a Customer.
    ///
    /// Redemptions, Instant Win prizes and rolled-back redemptions of the
    /// Customer (`customer_id` or `customer_code`), newest first, paginated.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/rewards/transactions", method = "get")]
    async fn transactions(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
        #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))] per_page: Query<
            Option<u32>,
        >,
        #[oai(validator(min_length = 1, max_length = 128))] starting_after: Query<Option<String>>,
    ) -> Result<Json<RewardTransactionList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let customer = CustomerRef::required(&customer_id.0, &customer_code.0, "customer")?;
        let page = caller
            .services
            .reward_transaction_page(&caller.company, customer, page)
            .await?;
        Ok(Json(RewardTransactionList {
            reward_transactions: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }

    /// Revert a reward redemption.
    ///
    /// Once: the cost comes back as a new ledger entry, the unit of stock
    /// and the Customer's count for the period return, a Voucher it issued
    /// is voided (its state becomes `inactive`), points or a game
    /// participation it gave are taken back, and the transaction answers
    /// `state: rolled_back` with who (`X-Author-Email`) and why (`reason`).
    /// Refused when what it gave was used since (`reward_gift_used`).
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/rewards/transactions/:id/rollback", method = "post")]
    async fn rollback(
        &self,
        caller: Tier1<'_>,
        #[oai(name = "X-Author-Email")] author: Author,
        /// The reward transaction's id.
        #[oai(validator(min_length = 1, max_length = 128))]
        id: Path<String>,
        body: Json<RewardRollback>,
    ) -> Result<Json<RewardTransaction>, ErrorResponse> {
        let reason = body.0.reason;
        caller.answers_with(RewardTransaction::clone);
        let transaction = caller
            .services
            .rollback_reward_transaction(&caller.company, &id.0, reason, author.0.as_deref())
            .await?;
        Ok(Json(transaction))
    }
}
