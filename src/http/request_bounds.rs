//! Bounds on one request: its body's size ([`BodyLimit`], 413
//! `payload_too_large`) and its time ([`Timeout`], 503 `request_timeout`).
//! Both answer through [`crate::http::errors::JsonErrors`] in the documented
//! shape.

use poem::{Endpoint, Middleware, Request};

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::errors::poem_error;

/// Middleware refusing request bodies larger than a limit with 413, whether the
/// size is announced in Content-Length or only discovered while reading.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit {
    max_bytes: usize,
}

impl BodyLimit {
    /// Refuse bodies over `max_bytes`.
    pub fn new(max_bytes: usize) -> Self {
        BodyLimit { max_bytes }
    }
}

impl<E: Endpoint> Middleware<E> for BodyLimit {
    type Output = BodyLimitEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        BodyLimitEndpoint {
            inner,
            max_bytes: self.max_bytes,
        }
    }
}

/// The endpoint produced by [`BodyLimit`].
#[derive(Debug)]
pub struct BodyLimitEndpoint<E> {
    inner: E,
    max_bytes: usize,
}

impl<E: Endpoint> Endpoint for BodyLimitEndpoint<E> {
    type Output = E::Output;

    async fn call(&self, mut request: Request) -> poem::Result<Self::Output> {
        let too_large = || {
            ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!("the request body exceeds {} bytes", self.max_bytes),
            )
        };
        let announced = request
            .headers()
            .get(poem::http::header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<usize>().ok());
        if announced.is_some_and(|length| length > self.max_bytes) {
            return Err(poem_error(too_large()));
        }
        if announced.is_none() {
            // Chunked or unannounced body: read it here, up to the limit.
            let body = request.take_body();
            let bytes = body
                .into_bytes_limit(self.max_bytes)
                .await
                .map_err(|_| too_large())
                .map_err(poem_error)?;
            request.set_body(bytes);
        }
        self.inner.call(request).await
    }
}

/// Middleware answering 503 `request_timeout` when a request runs longer than
/// its limit.
#[derive(Debug, Clone, Copy)]
pub struct Timeout {
    limit: std::time::Duration,
}

impl Timeout {
    /// Requests may run for `limit`.
    pub fn new(limit: std::time::Duration) -> Self {
        Timeout { limit }
    }
}

impl<E: Endpoint> Middleware<E> for Timeout {
    type Output = TimeoutEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        TimeoutEndpoint {
            inner,
            limit: self.limit,
        }
    }
}

/// The endpoint produced by [`Timeout`].
#[derive(Debug)]
pub struct TimeoutEndpoint<E> {
    inner: E,
    limit: std::time::Duration,
}

impl<E: Endpoint> Endpoint for TimeoutEndpoint<E> {
    type Output = E::Output;

    async fn call(&self, request: Request) -> poem::Result<Self::Output> {
        match tokio::time::timeout(self.limit, self.inner.call(request)).await {
            Ok(result) => result,
            Err(_) => Err(poem_error(ApiError::new(
                ErrorCode::RequestTimeout,
                format!(
                    "the request took longer than {} ms; retry with the same Idempotency-Key",
                    self.limit.as_millis()
                ),
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::errors::JsonErrors;
    use poem::EndpointExt;
    use poem::http::StatusCode;
    use poem::test::TestClient;

    #[tokio::test]
    async fn a_request_over_its_time_limit_answers_503_json() {
        let slow = poem::endpoint::make(|_| async {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            "late"
        });
        let app = slow
            .with(Timeout::new(std::time::Duration::from_millis(10)))
            .with(JsonErrors::default());
        let response = TestClient::new(app).get("/").send().await;
        response.assert_status(StatusCode::SERVICE_UNAVAILABLE);
        let body: serde_json::Value = response.json().await.value().deserialize();
        assert_eq!(body["code"], "request_timeout");
    }

    #[tokio::test]
    async fn a_request_within_its_time_limit_is_untouched() {
        let quick = poem::endpoint::make(|_| async { "on time" });
        let app = quick.with(Timeout::new(std::time::Duration::from_secs(5)));
        let response = TestClient::new(app).get("/").send().await;
        response.assert_status_is_ok();
        response.assert_text("on time").await;
    }
}
