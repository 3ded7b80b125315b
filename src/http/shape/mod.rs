//! The request-shape check: every JSON body is read strictly
//! ([`json::parse_strict`]: no repeated keys, bounded nesting) and checked
//! against its operation's schema in the published spec
//! ([`check::SchemaChecker`]) before a handler sees it.
//!
//! The schemas are generated from the request types and tidied
//! ([`crate::http::spec::tidy`]), so one set of rules is both documented and
//! enforced, and an operation added later is covered by construction. A
//! refusal is 400 `invalid_request` naming the field, and nothing is written.

pub mod check;
pub mod json;

use std::collections::HashMap;
use std::sync::Arc;

use poem::http::Method;
use poem::http::header::CONTENT_TYPE;
use poem::{Endpoint, Middleware, Request};
use serde_json::Value;

use crate::error::ApiError;
use crate::http::auth::Authentication;
use crate::http::shape::check::SchemaChecker;
use crate::http::spec::PathTable;

/// The request-body schemas of a spec, by path and method.
#[derive(Debug, Clone, Default)]
pub struct RequestShapes {
    bodies: PathTable<HashMap<Method, Value>>,
    checker: SchemaChecker,
}

impl RequestShapes {
    /// The shapes of the OpenAPI document `json`.
    pub fn of_spec(json: &str) -> RequestShapes {
        let document: Value = serde_json::from_str(json).unwrap_or_default();
        let bodies = PathTable::of_document(&document, |operations| {
            operations
                .iter()
                .filter_map(|(method, details)| {
                    let schema = details
                        .pointer("/requestBody/content")?
                        .as_object()?
                        .iter()
                        .find(|(media, _)| media.starts_with("application/json"))?
                        .1
                        .get("schema")?
                        .clone();
                    Some((method.to_ascii_uppercase().parse().ok()?, schema))
                })
                .collect()
        });
        RequestShapes {
            bodies,
            checker: SchemaChecker::of_document(&document),
        }
    }

    /// Checks the JSON `body` of a `method` request to `path`: `Ok` when it
    /// is well-formed and matches its schema (or the operation takes no
    /// JSON body), otherwise why not.
    pub fn check(&self, method: &Method, path: &str, body: &[u8]) -> Result<(), String> {
        let Some(schema) = self
            .bodies
            .get(path)
            .and_then(|methods| methods.get(method))
        else {
            return Ok(());
        };
        let value =
            json::parse_strict(body).map_err(|why| format!("the body is not valid JSON: {why}"))?;
        self.checker.check(&value, schema, "")
    }
}

/// Middleware applying [`RequestShapes`] to every JSON request body.
#[derive(Debug, Clone)]
pub struct RequestShape {
    shapes: Arc<RequestShapes>,
}

impl RequestShape {
    /// Checks bodies against `shapes`.
    pub fn new(shapes: RequestShapes) -> Self {
        RequestShape {
            shapes: Arc::new(shapes),
        }
    }
}

impl<E: Endpoint> Middleware<E> for RequestShape {
    type Output = RequestShapeEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        RequestShapeEndpoint {
            inner,
            shapes: self.shapes.clone(),
        }
    }
}

/// The endpoint produced by [`RequestShape`].
#[derive(Debug)]
pub struct RequestShapeEndpoint<E> {
    inner: E,
    shapes: Arc<RequestShapes>,
}

impl<E: Endpoint> Endpoint for RequestShapeEndpoint<E> {
    type Output = E::Output;

    async fn call(&self, mut request: Request) -> poem::Result<Self::Output> {
        let has_body = matches!(
            *request.method(),
            Method::POST | Method::PUT | Method::PATCH
        );
        // Other content types are left to the framework's 415.
        let is_json = request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/json"));
        // A request without good credentials is answered 403 by its handler
        // without its body being looked at.
        let authenticated = request
            .data::<Authentication>()
            .is_some_and(|outcome| outcome.0.is_some());
        if has_body && is_json && authenticated {
            let bytes = request.take_body().into_bytes().await.map_err(|error| {
                ApiError::invalid(format!("the body could not be read: {error}"))
            })?;
            self.shapes
                .check(request.method(), request.uri().path(), &bytes)
                .map_err(ApiError::invalid)?;
            request.set_body(bytes);
        }
        self.inner.call(request).await
    }
}
