//! What every request leaves behind: a request id (the caller's
//! `X-Request-Id` when it is a sensible one, a new one otherwise), given
//! back in the answer's `X-Request-Id`; a `request` span carrying it, so
//! every log line of the request names it; one log line with the status and
//! the time taken; and its count and latency in [`Metrics`], by operation
//! (the method and the spec's path template, never the raw path: a
//! Customer's id in a label would grow the metrics without bound).

use std::sync::Arc;
use std::time::Instant;

use poem::http::HeaderValue;
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};
use tracing::Instrument;

use crate::http::spec::PathTable;
use crate::secrets::random_hex;
use crate::telemetry::metrics::Metrics;

/// The header a request id arrives and leaves in.
pub const REQUEST_ID: &str = "x-request-id";

/// Longest request id accepted from a caller.
const MAX_REQUEST_ID: usize = 128;

/// The error code an error answer carries, left in the answer's extensions
/// by [`crate::http::errors::JsonErrors`] for [`Observe`] to count.
#[derive(Debug, Clone)]
pub struct AnsweredCode(pub String);

/// The request id of the request being served, in its extensions.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// The middleware, outermost on a listener.
#[derive(Clone)]
pub struct Observe {
    listener: &'static str,
    metrics: Arc<Metrics>,
    operations: Arc<Operations>,
}

/// The operations of a listener's spec, to name a request's operation.
#[derive(Debug, Default)]
pub struct Operations {
    /// Where the spec's paths are mounted (`/api` on the back-office).
    prefix: &'static str,
    templates: PathTable<()>,
    /// Paths outside the spec named as they are (`/metrics`).
    fixed: &'static [&'static str],
    /// The name of every other path (`page` on the back-office).
    others: &'static str,
}

/// Paths outside a spec every listener names as they are.
const FIXED: &[&str] = &["/openapi.json", "/docs", "/metrics", "/login", "/logout"];

impl Operations {
    /// The operations of the OpenAPI `spec_json`, mounted at `prefix`;
    /// other paths are named `others`.
    pub fn of_spec(spec_json: &str, prefix: &'static str, others: &'static str) -> Operations {
        let document: serde_json::Value = serde_json::from_str(spec_json).unwrap_or_default();
        Operations {
            prefix,
            templates: PathTable::of_document(&document, |_| ()),
            fixed: FIXED,
            others,
        }
    }

    /// `METHOD /template` of a request; a path outside the spec is
    /// `METHOD /path` when fixed, otherwise the listener's `others` (a
    /// page, an unknown route).
    pub fn name(&self, method: &str, path: &str) -> String {
        if let Some(template) = path
            .strip_prefix(self.prefix)
            .and_then(|rest| self.templates.template(rest))
        {
            return format!("{method} {}{template}", self.prefix);
        }
        if self.fixed.contains(&path) {
            return format!("{method} {path}");
        }
        self.others.to_string()
    }
}

impl Observe {
    /// Observes the requests of `listener` (`api` or `back_office`).
    pub fn new(listener: &'static str, metrics: Arc<Metrics>, operations: Operations) -> Self {
        Observe {
            listener,
            metrics,
            operations: Arc::new(operations),
        }
    }
}

impl<E: Endpoint> Middleware<E> for Observe {
    type Output = ObserveEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        ObserveEndpoint {
            inner,
            observe: self.clone(),
        }
    }
}

/// The endpoint produced by [`Observe`].
pub struct ObserveEndpoint<E> {
    inner: E,
    observe: Observe,
}

impl<E: Endpoint> Endpoint for ObserveEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut request: Request) -> poem::Result<Response> {
        let started = Instant::now();
        let id = request
            .headers()
            .get(REQUEST_ID)
            .and_then(|value| value.to_str().ok())
            .filter(|value| acceptable(value))
            .map_or_else(|| random_hex(12), str::to_string);
        let method = request.method().as_str().to_string();
        let path = request.uri().path().to_string();
        request.extensions_mut().insert(RequestId(id.clone()));
        let span = tracing::info_span!("request", id = %id, method = %method, path = %path);
        let mut response = match self.inner.call(request).instrument(span.clone()).await {
            Ok(output) => output.into_response(),
            Err(error) => error.into_response(),
        };
        let elapsed = started.elapsed();
        let status = response.status();
        let operation = self.observe.operations.name(&method, &path);
        let metrics = &self.observe.metrics;
        metrics
            .requests
            .with_label_values(&[self.observe.listener, &operation, status.as_str()])
            .inc();
        metrics
            .latency
            .with_label_values(&[self.observe.listener, &operation])
            .observe(elapsed.as_secs_f64());
        let code = response.extensions().get::<AnsweredCode>().cloned();
        if let Some(AnsweredCode(code)) = &code {
            metrics
                .errors
                .with_label_values(&[status.as_str(), code])
                .inc();
        }
        span.in_scope(|| {
            tracing::info!(
                status = status.as_u16(),
                code = code.as_ref().map(|code| code.0.as_str()),
                micros = elapsed.as_micros() as u64,
                "answered"
            );
        });
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(REQUEST_ID, value);
        }
        Ok(response)
    }
}

/// Whether a caller's request id is kept: 1 to 128 characters of letters,
/// digits and `-_.:/+=` (what tracing systems and load balancers send); any
/// other is replaced, so a log line never carries what a caller smuggled in.
fn acceptable(id: &str) -> bool {
    (1..=MAX_REQUEST_ID).contains(&id.len())
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"-_.:/+=".contains(&byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sensible_request_ids_are_kept() {
        assert!(acceptable("5f2c-41aa:till-12"));
        assert!(!acceptable(""));
        assert!(!acceptable("a b"));
        assert!(!acceptable("line\nbreak"));
        assert!(!acceptable(&"x".repeat(129)));
    }

    #[test]
    fn operations_are_named_by_their_template() {
        let spec =
            r#"{"paths": {"/customers/{value}": {"get": {}}, "/customers/search": {"get": {}}}}"#;
        let api = Operations::of_spec(spec, "", "other");
        assert_eq!(
            api.name("GET", "/customers/c-123"),
            "GET /customers/{value}"
        );
        assert_eq!(
            api.name("GET", "/customers/search"),
            "GET /customers/search"
        );
        assert_eq!(api.name("GET", "/nowhere/at/all"), "other");
        let office = Operations::of_spec(spec, "/api", "page");
        assert_eq!(
            office.name("GET", "/api/customers/x"),
            "GET /api/customers/{value}"
        );
        assert_eq!(office.name("GET", "/companies/demo"), "page");
        assert_eq!(office.name("GET", "/metrics"), "GET /metrics");
    }
}
