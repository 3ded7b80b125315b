//! Error bodies: every error leaves the service as JSON in the documented shape.
//!
//! Handlers return [`ApiError`]s, which render themselves. Failures raised by the
//! framework (unknown route, wrong method, unreadable JSON, wrong content type)
//! and by [`crate::http::request_bounds::BodyLimit`] arrive as plain text; [`JsonErrors`] rewrites them with
//! the code the registry assigns to their status.

use std::sync::Arc;

use poem::http::StatusCode;
use poem::http::header::CONTENT_TYPE;
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Object};

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::spec::AllowedMethods;
use crate::http::spec::errors::DeclaredCodes;

/// Body of every error except authentication failures.
#[derive(Debug, Clone, Object)]
pub struct ErrorBody {
    /// Human-readable message.
    pub error: String,
    /// Machine-friendly code from the registry (see the table in the API description).
    pub code: String,
    /// A request on several Vouchers (redeem, rollback): each one that
    /// failed; `error` and `code` are the first's.
    #[oai(skip_serializing_if_is_none)]
    pub errors: Option<Vec<VoucherError>>,
}

/// One Voucher of a request that failed.
#[derive(Debug, Clone, Object)]
pub struct VoucherError {
    /// The code as sent.
    pub voucher_code: String,
    /// Why, from the registry.
    pub code: String,
    /// Human-readable message.
    pub error: String,
}

/// Body of a 403: `{"message":"Forbidden"}` for an authentication failure;
/// `{"error": ..., "code": "forbidden_request"}` when the credentials are
/// good but the resource is forbidden for this request.
#[derive(Debug, Clone, Object)]
pub struct ForbiddenBody {
    /// Authentication failures: always `Forbidden`.
    #[oai(skip_serializing_if_is_none)]
    pub message: Option<String>,
    /// `forbidden_request`: what is forbidden, for humans.
    #[oai(skip_serializing_if_is_none)]
    pub error: Option<String>,
    /// `forbidden_request`.
    #[oai(skip_serializing_if_is_none)]
    pub code: Option<String>,
}

/// The error responses an integrator endpoint can return.
#[derive(Debug, ApiResponse)]
pub enum ErrorResponse {
    /// `invalid_request`: a parameter is missing or invalid, or the body is not valid JSON.
    #[oai(status = 400)]
    BadRequest(Json<ErrorBody>),
    /// Authentication failed (missing or wrong key, secret or version, or a
    /// disabled key: `{"message":"Forbidden"}`), or `forbidden_request`.
    #[oai(status = 403)]
    Forbidden(Json<ForbiddenBody>),
    /// A `*_not_found` code.
    #[oai(status = 404)]
    NotFound(Json<ErrorBody>),
    /// A conflict, e.g. an Idempotency-Key in use.
    #[oai(status = 409)]
    Conflict(Json<ErrorBody>),
    /// `payload_too_large`.
    #[oai(status = 413)]
    PayloadTooLarge(Json<ErrorBody>),
    /// `unsupported_media_type`: send `Content-Type: application/json`.
    #[oai(status = 415)]
    UnsupportedMediaType(Json<ErrorBody>),
    /// A business refusal (e.g. `customer_not_enough_score`).
    #[oai(status = 422)]
    Unprocessable(Json<ErrorBody>),
    /// `rate_limited`; see the Retry-After header.
    #[oai(status = 429)]
    RateLimited(Json<ErrorBody>),
    /// `server_error`: retry with exponential backoff.
    #[oai(status = 500)]
    ServerError(Json<ErrorBody>),
    /// `store_unavailable`, `store_full`, `server_busy`, `request_timeout`
    /// or `draw_contended`: retry after the Retry-After header's seconds.
    #[oai(status = 503)]
    Unavailable(
        Json<ErrorBody>,
        /// Seconds to wait before retrying (1; 30 for `store_full`).
        #[oai(header = "Retry-After")]
        Option<u64>,
    ),
}

impl From<ApiError> for ErrorResponse {
    fn from(error: ApiError) -> Self {
        if error.code == ErrorCode::Forbidden {
            return ErrorResponse::Forbidden(Json(ForbiddenBody {
                message: Some("Forbidden".to_string()),
                error: None,
                code: None,
            }));
        }
        let errors = (!error.voucher_failures.is_empty()).then(|| {
            error
                .voucher_failures
                .iter()
                .map(|failure| VoucherError {
                    voucher_code: failure.voucher_code.clone(),
                    code: failure.code.code().to_string(),
                    error: failure.message.clone(),
                })
                .collect()
        });
        let body = Json(ErrorBody {
            error: error.message,
            code: error.code.code().to_string(),
            errors,
        });
        match error.code.status().as_u16() {
            400 => ErrorResponse::BadRequest(body),
            403 => ErrorResponse::Forbidden(Json(ForbiddenBody {
                message: None,
                error: Some(body.0.error),
                code: Some(body.0.code),
            })),
            404 => ErrorResponse::NotFound(body),
            409 => ErrorResponse::Conflict(body),
            413 => ErrorResponse::PayloadTooLarge(body),
            415 => ErrorResponse::UnsupportedMediaType(body),
            422 => ErrorResponse::Unprocessable(body),
            429 => ErrorResponse::RateLimited(body),
            503 => ErrorResponse::Unavailable(body, Some(error.code.retry_after_seconds())),
            _ => ErrorResponse::ServerError(body),
        }
    }
}

/// An [`ApiError`] as poem's error, for middleware and extractors (handlers
/// answer [`ErrorResponse`]): its code's status, the JSON body of
/// [`ApiError::body`] and, on a 503, the code's `Retry-After`.
pub fn poem_error(error: ApiError) -> poem::Error {
    poem::Error::from_response(error_response(&error))
}

/// The response [`poem_error`] answers.
pub fn error_response(error: &ApiError) -> Response {
    let mut response = rendered(error, error.code.status());
    if response.status() == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(
            poem::http::header::RETRY_AFTER,
            error.code.retry_after_seconds().into(),
        );
    }
    response
}

/// `error` rendered with `status`, which differs from the code's own only
/// for framework failures whose status has no code of its own.
fn rendered(error: &ApiError, status: StatusCode) -> Response {
    Response::builder()
        .status(status)
        .content_type(crate::error::JSON_CONTENT_TYPE)
        .body(error.body().to_string())
}

/// Middleware turning every non-JSON error response into the documented
/// shape. With the published spec it also gives a 405 the methods its path
/// takes (`Allow`), and logs and keeps in [`UndeclaredErrors`] an error code
/// the operation does not declare.
#[derive(Debug, Clone, Default)]
pub struct JsonErrors {
    spec: Option<Arc<SpecAnswers>>,
}

/// What [`JsonErrors`] reads from the published spec, and where it keeps the
/// answers the spec does not declare.
#[derive(Debug)]
struct SpecAnswers {
    allowed: AllowedMethods,
    declared: DeclaredCodes,
    undeclared: Arc<UndeclaredErrors>,
}

impl JsonErrors {
    /// Errors in the documented shape, checked against the OpenAPI
    /// `spec_json`; undeclared codes are kept in `undeclared`.
    pub fn of_spec(spec_json: &str, undeclared: Arc<UndeclaredErrors>) -> Self {
        let document: serde_json::Value = serde_json::from_str(spec_json).unwrap_or_default();
        JsonErrors {
            spec: Some(Arc::new(SpecAnswers {
                allowed: AllowedMethods::of_document(&document),
                declared: DeclaredCodes::of_document(&document),
                undeclared,
            })),
        }
    }
}

impl<E: Endpoint> Middleware<E> for JsonErrors {
    type Output = JsonErrorsEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        JsonErrorsEndpoint {
            inner,
            spec: self.spec.clone(),
        }
    }
}

/// The endpoint produced by [`JsonErrors`].
#[derive(Debug)]
pub struct JsonErrorsEndpoint<E> {
    inner: E,
    spec: Option<Arc<SpecAnswers>>,
}

impl<E: Endpoint> Endpoint for JsonErrorsEndpoint<E> {
    type Output = Response;

    async fn call(&self, request: Request) -> poem::Result<Response> {
        let target = format!("{} {}", request.method(), request.uri().path());
        let response = match self.inner.call(request).await {
            Ok(output) => output.into_response(),
            Err(error) => error.into_response(),
        };
        let mut response = ensure_json_error(response, &target).await;
        if response.status() == StatusCode::SERVICE_UNAVAILABLE
            && !response
                .headers()
                .contains_key(poem::http::header::RETRY_AFTER)
        {
            // Overload and a lost store both pass within about a second.
            response.headers_mut().insert(
                poem::http::header::RETRY_AFTER,
                poem::http::HeaderValue::from_static("1"),
            );
        }
        let Some(spec) = &self.spec else {
            return Ok(response);
        };
        if !is_error(response.status()) {
            return Ok(response);
        }
        let (method, path) = target.split_once(' ').unwrap_or_default();
        if response.status() == StatusCode::METHOD_NOT_ALLOWED
            && let Some(allow) = spec
                .allowed
                .of_path(path)
                .and_then(|methods| poem::http::HeaderValue::from_str(methods).ok())
        {
            response
                .headers_mut()
                .insert(poem::http::header::ALLOW, allow);
        }
        let (code, mut response) = error_code(response).await;
        if spec.declared.declares(method, path, &code) == Some(false) {
            spec.undeclared
                .record(format!("{target} answered `{code}`"));
        }
        response
            .extensions_mut()
            .insert(crate::telemetry::requests::AnsweredCode(code));
        Ok(response)
    }
}

fn is_error(status: StatusCode) -> bool {
    status.is_client_error() || status.is_server_error()
}

/// The registered code of an error `response` in the documented shape
/// (`forbidden` for the authentication failure's `{"message": ...}`), and the
/// response with its body put back.
async fn error_code(mut response: Response) -> (String, Response) {
    let bytes = response.take_body().into_bytes().await.unwrap_or_default();
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let code = match body.get("code").and_then(serde_json::Value::as_str) {
        Some(code) => code.to_string(),
        None if body.get("message").is_some() => ErrorCode::Forbidden.code().to_string(),
        None => String::new(),
    };
    response.set_body(bytes);
    (code, response)
}

/// Error codes answered by operations whose spec does not declare them:
/// each is logged as an error when it happens and kept here, so tests (and
/// the fuzzing run, which reads the log) find a spec that does not say what
/// the service answers.
#[derive(Debug, Default)]
pub struct UndeclaredErrors {
    seen: std::sync::Mutex<Vec<String>>,
}

impl UndeclaredErrors {
    /// Logs and keeps `answer` (`METHOD /path answered `code``).
    pub fn record(&self, answer: String) {
        tracing::error!(%answer, "an error code its operation does not declare in the spec");
        if let Ok(mut seen) = self.seen.lock()
            && !seen.contains(&answer)
        {
            seen.push(answer);
        }
    }

    /// Every undeclared answer so far, each once.
    pub fn seen(&self) -> Vec<String> {
        self.seen
            .lock()
            .map(|seen| seen.clone())
            .unwrap_or_default()
    }
}

async fn ensure_json_error(mut response: Response, target: &str) -> Response {
    let status = response.status();
    if !is_error(status) || is_json(&response) {
        return response;
    }
    let code = ErrorCode::for_status(status);
    let text = response.take_body().into_string().await.unwrap_or_default();
    let message = match (code, text.trim()) {
        (ErrorCode::RouteNotFound, _) => format!("no endpoint at {target}"),
        (ErrorCode::MethodNotAllowed, _) => format!("{target}: method not allowed on this path"),
        // poem's own words name its internal parameter (`param0`).
        (_, text) if text.starts_with("failed to parse path") => path_value_refused(target, text),
        (_, "") => status.canonical_reason().unwrap_or("error").to_string(),
        (_, text) => text.to_string(),
    };
    let message = if code == ErrorCode::ServerError {
        tracing::error!(%status, %message, "unhandled error");
        "The service could not complete the request. Retry with backoff.".to_string()
    } else {
        message
    };
    let mut rendered = rendered(&ApiError::new(code, message), status);
    for (name, value) in response.headers() {
        if name != CONTENT_TYPE && name != poem::http::header::CONTENT_LENGTH {
            rendered.headers_mut().insert(name.clone(), value.clone());
        }
    }
    rendered
}

/// Why a value in the path of `target` was refused, in the API's words:
/// poem's `text` names its parameters by position, not by the path's names.
fn path_value_refused(target: &str, text: &str) -> String {
    // poem-openapi names whole numbers `integer(int64)` and the like.
    let whole_number = text.contains("\"integer");
    if whole_number {
        format!("{target}: the identifier in the path is a whole number")
    } else {
        format!("{target}: a value in the path is not of its documented form")
    }
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use poem::EndpointExt;
    use poem::test::TestClient;

    #[tokio::test]
    async fn an_error_code_the_operation_does_not_declare_is_kept() {
        let spec = serde_json::json!({"paths": {"/carts/{id}": {"get": {
            "x-error-codes": ["cart_not_found", "invalid_request"]
        }}}});
        let undeclared = Arc::new(UndeclaredErrors::default());
        let answering = |code: ErrorCode| {
            poem::endpoint::make(move |_| async move {
                Err::<Response, _>(poem_error(ApiError::new(code, "x")))
            })
            .with(JsonErrors::of_spec(&spec.to_string(), undeclared.clone()))
        };
        let declared = TestClient::new(answering(ErrorCode::CartNotFound));
        declared
            .get("/carts/c1")
            .send()
            .await
            .assert_status(StatusCode::NOT_FOUND);
        assert!(undeclared.seen().is_empty(), "a declared code is fine");
        let surprise = TestClient::new(answering(ErrorCode::CustomerInactive));
        let response = surprise.get("/carts/c1").send().await;
        response.assert_status(StatusCode::UNPROCESSABLE_ENTITY);
        let body: serde_json::Value = response.json().await.value().deserialize();
        assert_eq!(body["code"], "customer_inactive", "the answer is unchanged");
        surprise.get("/nowhere").send().await;
        assert_eq!(
            undeclared.seen(),
            ["GET /carts/c1 answered `customer_inactive`"]
        );
    }

    #[test]
    fn every_code_answers_with_its_registered_status() {
        use poem::IntoResponse;
        for code in ErrorCode::ALL {
            if matches!(code.status().as_u16(), 401 | 405 | 414 | 431) {
                // The back-office's, the router's and the HTTP parser's own
                // answers (`http::wire_errors`), not a handler's.
                continue;
            }
            let response = ErrorResponse::from(ApiError::new(*code, "x")).into_response();
            assert_eq!(response.status(), code.status(), "{}", code.code());
        }
    }
}
