//! Carts: POST /carts/realtime, POST /carts/simulate, GET /carts/{id}, GET /carts.

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::common::time::Timestamp;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::pipeline::api::EffectBody;
use crate::pipeline::api::ExplanationBody;
use crate::pipeline::api::bodies;
use crate::resources::carts::model::Cart;
use crate::resources::carts::model::CartCancellation;
use crate::resources::carts::model::NewCart;
use crate::resources::carts::service::CartOutcome;
use crate::resources::carts::service::CartRun;
use crate::resources::customers::service::CustomerRef;
use crate::resources::messages::model::MessageBody;

#[derive(Tags)]
enum CartTags {
    /// Carts (transactions) evaluated against the campaigns.
    Carts,
}

/// Answer of POST /carts/realtime and /carts/simulate.
#[derive(Debug, Object)]
pub struct CartResponse {
    /// The cart (as recorded; for simulate, as it would be).
    pub cart: Cart,
    /// The effects of the campaigns that applied.
    pub effects: Vec<EffectBody>,
    /// The messages of the campaigns that applied, for the receipt or the
    /// app, in the Customer's language (print them with POST
    /// /messages/print).
    pub messages: Vec<MessageBody>,
    /// With `explain=true`: every campaign of the Company, applied or why not.
    #[oai(skip_serializing_if_is_none)]
    pub explanations: Option<Vec<ExplanationBody>>,
}

fn respond(outcome: CartOutcome, explain: bool) -> CartResponse {
    let (effects, explanations) = bodies(outcome.effects, outcome.explanations, explain);
    CartResponse {
        cart: outcome.cart,
        effects,
        messages: outcome.messages,
        explanations,
    }
}

/// A page of carts.
#[derive(Debug, Object)]
pub struct CartList {
    /// The carts, in id order.
    pub carts: Vec<Cart>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}

/// Cart endpoints.
#[derive(Debug, Default)]
pub struct CartsApi;

/// Whether the request's query names `at` (which only a simulation takes).
fn asks_another_time(request: &poem::Request) -> bool {
    request
        .uri()
        .query()
        .unwrap_or_default()
        .split('&')
        .any(|pair| pair.split('=').next() == Some("at"))
}

/// The error codes of its own each operation answers.
impl DeclaredErrors for CartsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /carts/realtime",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::CartAlreadyExists,
                ErrorCode::CustomerNotEnoughScore,
                ErrorCode::DrawContended,
            ],
        },
        OperationErrors {
            operation: "POST /carts/simulate",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::CustomerInactive],
        },
        OperationErrors {
            operation: "POST /carts/cancellation",
            codes: &[
                ErrorCode::CartNotFound,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                // A cart was recorded under the cancellation's own code.
                ErrorCode::CartAlreadyExists,
                ErrorCode::CartAlreadyCancelled,
                ErrorCode::CartIsCancellation,
            ],
        },
        OperationErrors {
            operation: "GET /carts/{id}",
            codes: &[ErrorCode::CartNotFound],
        },
        OperationErrors {
            operation: "GET /carts",
            codes: &[ErrorCode::CustomerNotFound],
        },
    ];
}

#[OpenApi(tag = "CartTags::Carts")]
impl CartsApi {
    /// Create a cart in real time.
    ///
    /// Evaluates the Company's campaigns against the cart and records the cart,
    /// its points and the Customer's new balance in one transaction; the
    /// effects array says what applied. A cart `code` is recorded once
    /// (`cart_already_exists`). `explain=true` adds, for every campaign, whether
    /// it applied and why not. Campaigns are evaluated at the time the cart is
    /// received; its `date` (at most 10 minutes ahead of the service's clock and
    /// 365 days behind) is kept for history and reports. `at` is refused
    /// (`invalid_request`): only a simulation is evaluated at another time.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/carts/realtime", method = "post")]
    async fn realtime(
        &self,
        caller: Tier1<'_>,
        explain: Query<Option<bool>>,
        body: Json<NewCart>,
    ) -> Result<Json<CartResponse>, ErrorResponse> {
        // Not a parameter of this operation: a client that sends it anyway
        // (copied from a simulation) is told, not silently evaluated now.
        if asks_another_time(caller.request) {
            return Err(ApiError::invalid(
                "`at` is for /carts/simulate only: a recorded cart is evaluated at the time it is received",
            )
            .into());
        }
        let services = caller.services;
        let language = caller.language()?;
        let explain = explain.0.unwrap_or(false);
        caller.answers_with(move |outcome: &CartOutcome| respond(outcome.clone(), explain));
        let outcome = services
            .guarded_cart(&caller.company, &caller.key, body.0, |cart, held_back| {
                let how = CartRun {
                    record: true,
                    explain,
                    at: None,
                };
                services.process_cart(&caller.company, cart, held_back, language, how)
            })
            .await?;
        Ok(Json(respond(outcome, explain)))
    }

    /// Simulate cart creation in real time: the same evaluation and answer as
    /// realtime, but nothing is recorded and nothing is consumed. With
    /// `at` (a DateTime), the campaigns are evaluated as if the cart were
    /// received at that instant (its day, weekday and hour, the campaigns'
    /// dates): "what if it were Sunday".
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/carts/simulate", method = "post")]
    async fn simulate(
        &self,
        caller: Tier1<'_>,
        explain: Query<Option<bool>>,
        at: Query<Option<Timestamp>>,
        body: Json<NewCart>,
    ) -> Result<Json<CartResponse>, ErrorResponse> {
        let at = at.0;
        let services = caller.services;
        let language = caller.language()?;
        let explain = explain.0.unwrap_or(false);
        let outcome = services
            .guarded_cart(&caller.company, &caller.key, body.0, |cart, held_back| {
                let how = CartRun {
                    record: false,
                    explain,
                    at,
                };
                services.process_cart(&caller.company, cart, held_back, language, how)
            })
            .await?;
        Ok(Json(respond(outcome, explain)))
    }

    /// Cancel a full cart by creating a new cart with negative amounts.
    ///
    /// The cancellation cart mirrors the original with opposite quantities and
    /// totals, and reverses every point the original earned (its `effects` are
    /// the reversing points entries). A cart is cancelled at most once
    /// (`cart_already_cancelled`).
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/carts/cancellation", method = "post")]
    async fn cancel(
        &self,
        caller: Tier2<'_>,
        body: Json<CartCancellation>,
    ) -> Result<Json<CartResponse>, ErrorResponse> {
        caller.answers_with(|outcome: &CartOutcome| respond(outcome.clone(), false));
        let outcome = caller.services.cancel_cart(&caller.company, body.0).await?;
        Ok(Json(respond(outcome, false)))
    }

    /// Get a cart.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/carts/:id", method = "get")]
    async fn get(&self, caller: Tier2<'_>, id: Path<String>) -> Result<Json<Cart>, ErrorResponse> {
        Ok(Json(caller.services.cart(&caller.company, &id.0).await?))
    }

    /// List carts, optionally of one Customer and between two instants
    /// (`from` and `to`, inclusive), one page at a time.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/carts", method = "get")]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        from: Query<Option<Timestamp>>,
        to: Query<Option<Timestamp>>,
        #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))] per_page: Query<
            Option<u32>,
        >,
        #[oai(validator(max_length = 128))] starting_after: Query<Option<String>>,
    ) -> Result<Json<CartList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let customer = customer_id.0.as_deref().map(CustomerRef::id);
        let page = caller
            .services
            .carts(&caller.company, customer, from.0, to.0, page)
            .await?;
        Ok(Json(CartList {
            carts: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }
}
