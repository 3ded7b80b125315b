//! Rate-limit answers: `RateLimit-Policy` and `RateLimit` headers (IETF
//! httpapi draft) on every charged response, and 429 with `Retry-After` when a
//! tier's quota is spent.

pub mod limiters;

use std::sync::{Arc, Mutex};

use poem::error::ResponseError;
use poem::http::StatusCode;
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::errors::error_response;
use crate::http::rate_limits::limiters::RateVerdict;
use crate::http::rate_limits::limiters::Tier;

/// Where the authentication extractor leaves the admission of the request, so
/// the middleware can describe it in the response headers.
#[derive(Debug, Clone, Default)]
pub struct RateVerdictSlot(Arc<Mutex<Option<RateVerdict>>>);

impl RateVerdictSlot {
    /// Records the admission of this request.
    pub fn record(&self, admission: RateVerdict) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(admission);
        }
    }

    /// The tier this request was charged to, once it was.
    pub fn charged(&self) -> Option<Tier> {
        self.0
            .lock()
            .ok()
            .and_then(|slot| slot.as_ref().map(|a| a.tier))
    }

    fn take(&self) -> Option<RateVerdict> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// The tier a charged `response` was charged to, read from its
/// `RateLimit-Policy` header.
pub fn charged_tier(response: &Response) -> Option<Tier> {
    let policy = response.headers().get("ratelimit-policy")?.to_str().ok()?;
    let name = policy.split(';').next()?.trim_matches('"');
    Tier::from_name(name)
}

/// Says `admission` in the RateLimit headers of `response` (and
/// `Retry-After` when the quota is spent).
pub fn set_headers(response: &mut Response, admission: &RateVerdict) {
    let name = admission.tier.name();
    let headers = response.headers_mut();
    let policy = format!("\"{name}\";q={};w=1", admission.limit);
    let state = format!(
        "\"{name}\";r={};t={}",
        admission.remaining,
        admission.retry_after.unwrap_or(1)
    );
    for (header, value) in [("ratelimit-policy", policy), ("ratelimit", state)] {
        if let Ok(value) = value.parse() {
            headers.insert(header, value);
        }
    }
    if let Some(seconds) = admission.retry_after
        && let Ok(value) = seconds.to_string().parse()
    {
        headers.insert("retry-after", value);
    }
}

/// A request refused because its tier's quota is spent.
#[derive(Debug)]
pub struct RateLimited(pub RateVerdict);

impl std::fmt::Display for RateLimited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rate limit of {} requests per second for {} exceeded; retry after {} s",
            self.0.limit,
            self.0.tier.name(),
            self.0.retry_after.unwrap_or(1)
        )
    }
}

impl std::error::Error for RateLimited {}

impl ResponseError for RateLimited {
    fn status(&self) -> StatusCode {
        StatusCode::TOO_MANY_REQUESTS
    }

    fn as_response(&self) -> Response {
        let mut response = error_response(&ApiError::new(ErrorCode::RateLimited, self.to_string()));
        set_headers(&mut response, &self.0);
        response
    }
}

/// Middleware adding the rate-limit headers to every charged response.
#[derive(Debug, Clone, Copy, Default)]
pub struct RateLimitHeaders;

impl<E: Endpoint> Middleware<E> for RateLimitHeaders {
    type Output = RateLimitHeadersEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        RateLimitHeadersEndpoint { inner }
    }
}

/// The endpoint produced by [`RateLimitHeaders`].
#[derive(Debug)]
pub struct RateLimitHeadersEndpoint<E> {
    inner: E,
}

impl<E: Endpoint> Endpoint for RateLimitHeadersEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut request: Request) -> poem::Result<Response> {
        let slot = RateVerdictSlot::default();
        request.extensions_mut().insert(slot.clone());
        let mut response = match self.inner.call(request).await {
            Ok(output) => output.into_response(),
            Err(error) => error.into_response(),
        };
        if let Some(admission) = slot.take()
            && !response.headers().contains_key("ratelimit")
        {
            set_headers(&mut response, &admission);
        }
        Ok(response)
    }
}
