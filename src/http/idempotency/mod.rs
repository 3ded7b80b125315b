//! The Idempotency-Key layer: a retried POST, PATCH or PUT with the same key
//! and the same request gets the first response again, byte for byte, and
//! changes nothing; every endpoint gets this by going through [`Idempotency`].

pub mod answer;
pub mod here;
pub mod model;
pub mod service;
pub mod store;

use poem::http::{Method, StatusCode};
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::auth::Authentication;
use crate::http::errors::poem_error;
use crate::http::idempotency::answer::PendingAnswer;
use crate::http::idempotency::here::KeyOutcome;
use crate::http::idempotency::model::KeyClaim;
use crate::http::idempotency::model::StoredResponse;
use crate::http::idempotency::service::{claim_idempotency_key, record_key_outcome};
use crate::http::rate_limits::limiters::Tier;
use crate::http::rate_limits::limiters::admit;
use crate::http::rate_limits::{RateLimited, charged_tier, set_headers};
use crate::services::Services;

/// The request header.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
/// Set on replayed responses.
pub const REPLAYED: &str = "idempotent-replayed";

/// Middleware applying Idempotency-Keys.
#[derive(Debug, Clone, Copy, Default)]
pub struct Idempotency;

impl<E: Endpoint> Middleware<E> for Idempotency {
    type Output = IdempotencyEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        IdempotencyEndpoint { inner }
    }
}

/// The endpoint produced by [`Idempotency`].
#[derive(Debug)]
pub struct IdempotencyEndpoint<E> {
    inner: E,
}

/// Request headers that change the answer, and so are part of a request's
/// identity: the author recorded on changes and the answer's language.
const IDENTITY_HEADERS: [&str; 2] = ["x-author-email", "accept-language"];

/// Identifies a request: the same key with another fingerprint is refused.
/// A JSON body counts by what it says, not how it is written: the same
/// parameters re-serialised by a retrying client (other key order, other
/// whitespace) are the same request.
fn fingerprint(request: &Request, body: &[u8]) -> String {
    let mut hasher = Sha256::new();
    for part in [
        request.method().as_str().as_bytes(),
        request.uri().path().as_bytes(),
        request.uri().query().unwrap_or_default().as_bytes(),
    ] {
        hasher.update(part);
        hasher.update(b"\0");
    }
    for header in IDENTITY_HEADERS {
        let value = request.headers().get(header).map(|v| v.as_bytes());
        hasher.update(value.unwrap_or_default());
        hasher.update(b"\0");
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(parsed) => hasher.update(canonical(parsed).to_string().as_bytes()),
        Err(_) => hasher.update(body),
    }
    hex::encode(hasher.finalize())
}

/// `value` with every object's keys in order and every whole number written
/// as one (`1.0` is `1`), so equal parameters print the same.
fn canonical(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(fields) => {
            let mut sorted: Vec<(String, Value)> = fields.into_iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                sorted
                    .into_iter()
                    .map(|(key, value)| (key, canonical(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        Value::Number(number) => match number.as_f64() {
            // Within ±2^53 a float that is a whole number is that number exactly.
            Some(float) if float.fract() == 0.0 && float.abs() < 9_007_199_254_740_992.0 => {
                Value::from(float as i64)
            }
            _ => Value::Number(number),
        },
        other => other,
    }
}

/// Whether a response is final and must be replayed: transient failures
/// (server errors, rate limits, concurrent modifications) are not.
/// Whether an answer of `status` with `body` is the one its key keeps: not
/// a server error, a rate limit or a transient conflict, which a retry
/// with the same key runs again.
pub fn is_final_answer(status: u16, body: &str) -> bool {
    StatusCode::from_u16(status).is_ok_and(|status| is_final(status, body))
}

fn is_final(status: StatusCode, body: &str) -> bool {
    if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
        return false;
    }
    let transient = [
        ErrorCode::ConcurrentModification,
        ErrorCode::IdempotencyKeyInUse,
    ];
    !(status == StatusCode::CONFLICT
        && transient
            .iter()
            .any(|code| body.contains(&format!("\"{}\"", code.code()))))
}

fn replay(stored: StoredResponse) -> Response {
    let mut response = Response::builder()
        .status(StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK))
        .header(REPLAYED, "true");
    if let Some(content_type) = &stored.content_type {
        response = response.content_type(content_type.as_str());
    }
    if let Some(language) = &stored.content_language {
        response = response.header(poem::http::header::CONTENT_LANGUAGE, language.as_str());
    }
    response.body(stored.body)
}

impl<E: Endpoint> Endpoint for IdempotencyEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut request: Request) -> poem::Result<Response> {
        let Some(key) = request
            .headers()
            .get(IDEMPOTENCY_KEY)
            .map(|value| value.to_str().map(str::to_string))
        else {
            return self
                .inner
                .call(request)
                .await
                .map(IntoResponse::into_response);
        };
        match *request.method() {
            Method::POST | Method::PATCH | Method::PUT => {}
            Method::GET | Method::DELETE | Method::HEAD => {
                return Err(poem_error(ApiError::invalid(
                    "Idempotency-Key is accepted on POST, PATCH and PUT only, never on GET or DELETE",
                )));
            }
            // No route has it (TRACE, OPTIONS, ...): the router answers 405.
            _ => {
                return self
                    .inner
                    .call(request)
                    .await
                    .map(IntoResponse::into_response);
            }
        }
        let key = key
            .map_err(|_| ApiError::invalid("Idempotency-Key must be visible ASCII"))
            .map_err(poem_error)?;
        let caller = request
            .data::<Authentication>()
            .and_then(|auth| auth.0.clone());
        let (Some(caller), Some(services)) = (caller, request.data::<Services>().cloned()) else {
            // Unauthenticated: the endpoint answers 403 and nothing is stored.
            return self
                .inner
                .call(request)
                .await
                .map(IntoResponse::into_response);
        };
        let body = request.take_body().into_bytes().await?;
        let fingerprint = fingerprint(&request, &body);
        request.set_body(body);
        let company = caller.company.as_str();
        let (claim, _running) = claim_idempotency_key(&services, company, &key, &fingerprint)
            .await
            .map_err(poem_error)?;
        match claim {
            KeyClaim::Replay(stored) => {
                // A replay is a request like any other: it is charged to the
                // tier the first answer was, and says so.
                let tier = stored.tier.as_deref().and_then(Tier::from_name);
                let mut response = replay(stored);
                if let Some(tier) = tier {
                    let admission = admit(&services, company, tier).await.map_err(poem_error)?;
                    if admission.retry_after.is_some() {
                        return Err(RateLimited(admission).into());
                    }
                    set_headers(&mut response, &admission);
                }
                return Ok(response);
            }
            KeyClaim::InUse => {
                return Err(poem_error(ApiError::new(
                    ErrorCode::IdempotencyKeyInUse,
                    "a request with this Idempotency-Key is still being processed; retry shortly",
                )));
            }
            KeyClaim::Mismatch => {
                return Err(poem_error(ApiError::new(
                    ErrorCode::IdempotencyKeyReused,
                    "this Idempotency-Key was used with different parameters or on another endpoint",
                )));
            }
            KeyClaim::Run => {}
        }
        let pending = PendingAnswer::new(company, &key, &fingerprint);
        let mut response = match pending.clone().scope(self.inner.call(request)).await {
            Ok(output) => output.into_response(),
            Err(error) => error.into_response(),
        };
        if services.crashes_before_key_completion() {
            // A crash test: the process is as good as gone here.
            return Ok(response);
        }
        let status = response.status();
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let content_type = header(poem::http::header::CONTENT_TYPE);
        let content_language = header(poem::http::header::CONTENT_LANGUAGE);
        let tier = charged_tier(&response).map(|tier| tier.name().to_string());
        let bytes = response.take_body().into_bytes().await?;
        let body = String::from_utf8_lossy(&bytes).into_owned();
        if !(status.is_success() && pending.written_as(status.as_u16(), &body)) {
            // Not completed by the work's own transaction.
            let outcome = if is_final(status, &body) {
                KeyOutcome::Complete(StoredResponse {
                    status: status.as_u16(),
                    content_type,
                    content_language,
                    body,
                    tier,
                })
            } else {
                KeyOutcome::Release
            };
            record_key_outcome(&services, company, &key, &fingerprint, outcome).await;
        }
        response.set_body(bytes);
        Ok(response)
    }
}
