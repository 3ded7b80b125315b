//! While the store cannot be reached ([`crate::storage::health`]), every
//! integrator request is answered at once with 503 `store_unavailable` (and
//! `Retry-After: 1`), before authentication, having sent nothing and changed
//! nothing; the spec and its page are still served. `GET /check` answers the
//! same, so a load balancer sees that the node cannot serve.

use poem::{Endpoint, Middleware, Request};

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::errors::poem_error;
use crate::services::Services;

/// The middleware.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoreGate;

impl<E: Endpoint> Middleware<E> for StoreGate {
    type Output = StoreGateEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        StoreGateEndpoint { inner }
    }
}

/// The endpoint produced by [`StoreGate`].
#[derive(Debug)]
pub struct StoreGateEndpoint<E> {
    inner: E,
}

impl<E: Endpoint> Endpoint for StoreGateEndpoint<E> {
    type Output = E::Output;

    async fn call(&self, request: Request) -> poem::Result<Self::Output> {
        let documents = matches!(request.uri().path(), "/openapi.json" | "/docs");
        let reachable = request
            .data::<Services>()
            .is_none_or(Services::store_reachable);
        if !documents && !reachable {
            return Err(poem_error(ApiError::new(
                ErrorCode::StoreUnavailable,
                "the store cannot be reached; nothing was sent or changed, retry",
            )));
        }
        self.inner.call(request).await
    }
}
