//! The request-shape check: every JSON body is read strictly
//! ([`json::parse_strict`]: no repeated keys, bounded nesting) and checked
//! against its operation's schema in the published spec
//! ([`check::SchemaChecker`], with the leaves in [`values`]) before a handler
//! sees it.
//!
//! The schemas are generated from the request types and tidied
//! ([`crate::http::spec::tidy`]), so one set of rules is both documented and
//! enforced, and an operation added later is covered by construction. A
//! refusal is 400 `invalid_request` naming the field, and nothing is written.

pub mod check;
pub mod json;
pub mod values;

use std::collections::HashMap;
use std::sync::Arc;

use poem::http::Method;
use poem::http::header::CONTENT_TYPE;
use poem::{Endpoint, Middleware, Request};
use serde_json::Value;

use crate::error::ApiError;
use crate::http::auth::Authentication;
use crate::http::errors::poem_error;
use crate::http::shape::check::SchemaChecker;
use crate::http::spec::PathTable;

/// What one operation takes: its JSON body's schema and its query
/// parameters' schemas.
#[derive(Debug, Clone, Default)]
struct OperationShape {
    body: Option<Value>,
    query: Vec<(String, Value)>,
}

/// The request schemas of a spec, by path and method.
#[derive(Debug, Clone, Default)]
pub struct RequestShapes {
    operations: PathTable<HashMap<Method, OperationShape>>,
    checker: SchemaChecker,
}

impl RequestShapes {
    /// The shapes of the OpenAPI document `json`.
    pub fn of_spec(json: &str) -> RequestShapes {
        let document: Value = serde_json::from_str(json).unwrap_or_default();
        let operations = PathTable::of_document(&document, |operations| {
            operations
                .iter()
                .filter_map(|(method, details)| {
                    let body = details
                        .pointer("/requestBody/content")
                        .and_then(Value::as_object)
                        .and_then(|content| {
                            content
                                .iter()
                                .find(|(media, _)| media.starts_with("application/json"))
                        })
                        .and_then(|(_, media)| media.get("schema"))
                        .cloned();
                    let query = details["parameters"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|parameter| parameter["in"] == "query")
                        .filter_map(|parameter| {
                            Some((
                                parameter["name"].as_str()?.to_string(),
                                parameter.get("schema")?.clone(),
                            ))
                        })
                        .collect();
                    let method = method.to_ascii_uppercase().parse().ok()?;
                    Some((method, OperationShape { body, query }))
                })
                .collect()
        });
        RequestShapes {
            operations,
            checker: SchemaChecker::of_document(&document),
        }
    }

    fn operation(&self, method: &Method, path: &str) -> Option<&OperationShape> {
        self.operations
            .get(path)
            .and_then(|methods| methods.get(method))
    }

    /// Checks the query string of a `method` request to `path` against the
    /// operation's parameters: each value sent must be what its schema
    /// says (a parameter the operation does not take is ignored).
    pub fn check_query(&self, method: &Method, path: &str, query: &str) -> Result<(), String> {
        let Some(operation) = self.operation(method, path) else {
            return Ok(());
        };
        if operation.query.is_empty() || query.is_empty() {
            return Ok(());
        }
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
            .map_err(|error| format!("the query string is not readable: {error}"))?;
        for (name, schema) in &operation.query {
            let sent: Vec<&str> = pairs
                .iter()
                .filter(|(key, _)| key == name)
                .map(|(_, value)| value.as_str())
                .collect();
            if sent.is_empty() {
                continue;
            }
            let schema = self.checker.resolve(schema);
            let value = if schema["type"] == "array" {
                let items = &schema["items"];
                Value::Array(
                    sent.iter()
                        .map(|text| typed(text, self.checker.resolve(items)))
                        .collect(),
                )
            } else {
                typed(sent[sent.len() - 1], schema)
            };
            self.checker.check(&value, schema, name)?;
        }
        Ok(())
    }

    /// Checks the JSON `body` of a `method` request to `path`: `Ok` when it
    /// is well-formed and matches its schema (or the operation takes no
    /// JSON body), otherwise why not.
    pub fn check(&self, method: &Method, path: &str, body: &[u8]) -> Result<(), String> {
        let Some(schema) = self
            .operation(method, path)
            .and_then(|operation| operation.body.as_ref())
        else {
            return Ok(());
        };
        let value =
            json::parse_strict(body).map_err(|why| format!("the body is not valid JSON: {why}"))?;
        self.checker.check(&value, schema, "")
    }
}

/// A query value as the JSON its schema expects, where it reads as one (so
/// `per_page=abc` is refused as not a whole number, naming `per_page`).
fn typed(text: &str, schema: &Value) -> Value {
    let parsed = match schema["type"].as_str() {
        Some("integer") => text.parse::<i64>().ok().map(Value::from),
        Some("number") => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        Some("boolean") => text.parse::<bool>().ok().map(Value::Bool),
        _ => None,
    };
    parsed.unwrap_or_else(|| Value::String(text.to_string()))
}

/// Middleware applying [`RequestShapes`] to every request's query string and
/// JSON body.
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
        if authenticated && let Some(query) = request.uri().query() {
            self.shapes
                .check_query(request.method(), request.uri().path(), query)
                .map_err(ApiError::invalid)
                .map_err(poem_error)?;
        }
        if has_body && is_json && authenticated {
            let bytes = request
                .take_body()
                .into_bytes()
                .await
                .map_err(|error| ApiError::invalid(format!("the body could not be read: {error}")))
                .map_err(poem_error)?;
            self.shapes
                .check(request.method(), request.uri().path(), &bytes)
                .map_err(ApiError::invalid)
                .map_err(poem_error)?;
            request.set_body(bytes);
        }
        self.inner.call(request).await
    }
}
