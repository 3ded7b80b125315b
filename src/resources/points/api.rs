//! Points and wallet: GET /customers/{value}/points, GET /points/transactions,
//! POST /points/redeem, POST /points/redeem_cart, POST /points/transfer, and
//! the author-recording POST /scores/transfer and POST /scores/trigger.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::common::time::Timestamp;
use crate::http::auth::ApiCaller;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::author::Author;
use crate::http::errors::ErrorResponse;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::service::CustomerRef;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsTransaction;
use crate::resources::points::operations::Adjustment;
use crate::resources::points::operations::CartRedemption;
use crate::resources::points::operations::OperationResult;
use crate::resources::points::operations::Redemption;
use crate::resources::points::operations::Transfer;
use crate::resources::points::operations::answer_of;
use crate::resources::points::service::Movement;

#[derive(Tags)]
enum PointsTags {
    /// Points and wallet balances, redemptions and transfers.
    Points,
}

/// A Customer's balances.
#[derive(Debug, Object)]
pub struct Balances {
    /// The Customer's id.
    pub customer_id: String,
    /// Loyalty points: the sum of the Customer's points entries.
    pub points: i64,
    /// Wallet money, in cents: the sum of the Customer's wallet entries.
    pub wallet: i64,
}

/// A page of ledger entries.
#[derive(Debug, Object)]
pub struct PointsTransactionList {
    /// Newest first.
    pub transactions: Vec<PointsTransaction>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}

/// Points of a balance still to expire.
#[derive(Debug, Object)]
pub struct ExpiringPoints {
    /// The Customer's id.
    pub customer_id: String,
    /// The balance.
    pub kind: PointsKind,
    /// What expires when, soonest first (first-in-first-out: what the
    /// Customer spends comes out of the oldest points).
    pub expiring: Vec<Expiring>,
}

/// Points expiring at one instant.
#[derive(Debug, Object)]
pub struct Expiring {
    /// When.
    pub expires_at: Timestamp,
    /// How many.
    pub points: i64,
}

/// Points endpoints.
#[derive(Default)]
pub struct PointsApi;

/// What a transfer between two Customers can answer (both endpoints).
const TRANSFER_ERRORS: &[ErrorCode] = &[
    ErrorCode::SameCustomer,
    ErrorCode::CustomerNotFound,
    ErrorCode::CustomerInactive,
    ErrorCode::CustomerNotEnoughScore,
];

/// The error codes of its own each operation answers.
impl DeclaredErrors for PointsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /customers/{value}/points",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /customers/{value}/points_expiring",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /points/transactions",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "POST /points/redeem",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::CustomerNotEnoughScore,
            ],
        },
        OperationErrors {
            operation: "POST /points/redeem_cart",
            codes: &[
                ErrorCode::CartNotFound,
                ErrorCode::CartAlreadyCancelled,
                ErrorCode::CartIsCancellation,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::CustomerNotEnoughScore,
            ],
        },
        OperationErrors {
            operation: "POST /points/transfer",
            codes: TRANSFER_ERRORS,
        },
        OperationErrors {
            operation: "POST /scores/transfer",
            codes: TRANSFER_ERRORS,
        },
        OperationErrors {
            operation: "POST /scores/trigger",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::CustomerNotEnoughScore,
            ],
        },
    ];
}

#[OpenApi(tag = "PointsTags::Points")]
impl PointsApi {
    /// Total points and wallet balance of a Customer.
    ///
    /// `search_by` says what `value` is (`id` by default).
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/customers/:value/points", method = "get")]
    async fn balances(
        &self,
        caller: Tier1<'_>,
        value: Path<String>,
        search_by: Query<Option<SearchBy>>,
    ) -> Result<Json<Balances>, ErrorResponse> {
        let reference = CustomerRef::by(&value.0, search_by.0);
        let (customer_id, points, wallet) =
            caller.services.balances(&caller.company, reference).await?;
        Ok(Json(Balances {
            customer_id,
            points,
            wallet,
        }))
    }

    /// Points about to expire.
    ///
    /// `search_by` says what `value` is (`id` by default); `kind` is
    /// `points` (default) or `wallet`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:value/points_expiring", method = "get")]
    async fn expiring(
        &self,
        caller: Tier2<'_>,
        value: Path<String>,
        search_by: Query<Option<SearchBy>>,
        kind: Query<Option<PointsKind>>,
    ) -> Result<Json<ExpiringPoints>, ErrorResponse> {
        let reference = CustomerRef::by(&value.0, search_by.0);
        let kind = kind.0.unwrap_or_default();
        let (customer_id, expiring) = caller
            .services
            .points_expiring(&caller.company, reference, kind)
            .await?;
        Ok(Json(ExpiringPoints {
            customer_id,
            kind,
            expiring: expiring
                .into_iter()
                .map(|(expires_at, points)| Expiring { expires_at, points })
                .collect(),
        }))
    }

    /// Points transactions of a Customer: every ledger entry, newest first,
    /// with its cause (cart, campaign, prize, redemption, transfer, author).
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/points/transactions", method = "get")]
    #[allow(clippy::too_many_arguments)]
    async fn transactions(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
        kind: Query<Option<PointsKind>>,
        #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))] per_page: Query<
            Option<u32>,
        >,
        #[oai(validator(min_length = 1, max_length = 128))] starting_after: Query<Option<String>>,
    ) -> Result<Json<PointsTransactionList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let customer = CustomerRef::required(&customer_id.0, &customer_code.0, "customer")?;
        let page = caller
            .services
            .points_transactions(&caller.company, customer, kind.0, page)
            .await?;
        Ok(Json(PointsTransactionList {
            transactions: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }

    /// Redeem points from the balance.
    ///
    /// Takes `points` from the Customer's `kind` balance, or refuses with 422
    /// `customer_not_enough_score` and takes nothing: concurrent redemptions
    /// that together exceed the balance leave exactly the ones that fit.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/points/redeem", method = "post")]
    async fn redeem(
        &self,
        caller: Tier1<'_>,
        #[oai(name = "X-Author-Email")] author: Author,
        body: Json<Redemption>,
    ) -> Result<Json<OperationResult>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        caller.answers_with(answer_of);
        let operation = caller
            .services
            .redeem_points(
                &caller.company,
                customer,
                Movement::new(
                    body.kind,
                    body.points,
                    body.description,
                    author.0.as_deref(),
                ),
            )
            .await?;
        Ok(Json(operation.into()))
    }

    /// Redeem points from the balance for a specific cart.
    ///
    /// The cart's Customer pays. Cancelling the cart (POST
    /// /carts/cancellation) gives the points back, once; a cancelled cart
    /// cannot be redeemed for (`cart_already_cancelled`).
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/points/redeem_cart", method = "post")]
    async fn redeem_cart(
        &self,
        caller: Tier1<'_>,
        #[oai(name = "X-Author-Email")] author: Author,
        body: Json<CartRedemption>,
    ) -> Result<Json<OperationResult>, ErrorResponse> {
        let body = body.0;
        caller.answers_with(answer_of);
        let operation = caller
            .services
            .redeem_points_for_cart(
                &caller.company,
                &body.cart_id,
                Movement::new(body.kind, body.points, None, author.0.as_deref()),
            )
            .await?;
        Ok(Json(operation.into()))
    }

    /// Transfer points from one Customer to another.
    ///
    /// Both legs are written in one transaction, or neither
    /// (`customer_not_enough_score` when the giver has too few).
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/points/transfer", method = "post")]
    async fn transfer(
        &self,
        caller: Tier1<'_>,
        #[oai(name = "X-Author-Email")] author: Author,
        body: Json<Transfer>,
    ) -> Result<Json<OperationResult>, ErrorResponse> {
        transfer(caller, author, body.0).await
    }

    /// Transfer points between Customers, recording the author.
    ///
    /// The same operation as POST /points/transfer; the `X-Author-Email`
    /// header is kept on both ledger entries.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/scores/transfer", method = "post")]
    async fn scores_transfer(
        &self,
        caller: Tier1<'_>,
        #[oai(name = "X-Author-Email")] author: Author,
        body: Json<Transfer>,
    ) -> Result<Json<OperationResult>, ErrorResponse> {
        transfer(caller, author, body.0).await
    }

    /// Credit or debit a Customer's balance by hand, recording the author.
    ///
    /// Positive `points` credit, negative debit (never below a zero balance:
    /// `customer_not_enough_score`). The `X-Author-Email` header and the
    /// description are kept on the ledger entry (reason `adjustment`).
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/scores/trigger", method = "post")]
    async fn scores_trigger(
        &self,
        caller: Tier1<'_>,
        #[oai(name = "X-Author-Email")] author: Author,
        body: Json<Adjustment>,
    ) -> Result<Json<OperationResult>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        caller.answers_with(answer_of);
        let operation = caller
            .services
            .adjust_points(
                &caller.company,
                customer,
                Movement::new(
                    body.kind,
                    body.points,
                    body.description,
                    author.0.as_deref(),
                ),
                body.expires_at,
            )
            .await?;
        Ok(Json(operation.into()))
    }
}

async fn transfer<const TIER: u8>(
    caller: ApiCaller<'_, TIER>,
    author: Author,
    body: Transfer,
) -> Result<Json<OperationResult>, ErrorResponse> {
    let from = CustomerRef::required(
        &body.from_customer_id,
        &body.from_customer_code,
        "from_customer",
    )?;
    let to = CustomerRef::required(&body.to_customer_id, &body.to_customer_code, "to_customer")?;
    caller.answers_with(answer_of);
    let operation = caller
        .services
        .transfer_points(
            &caller.company,
            from,
            to,
            Movement::new(
                body.kind,
                body.points,
                body.description,
                author.0.as_deref(),
            ),
        )
        .await?;
    Ok(Json(operation.into()))
}
