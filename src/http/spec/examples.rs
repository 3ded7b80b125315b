//! Example bodies in the published spec: each resource lists, per
//! operation, a request an integrator would send and the answer it gets
//! (its `examples.rs`), and they are put on the operation's
//! `application/json` request body and `200` answer. Each example names
//! the payload type it is one of, and a test parses every one into it, so
//! an example cannot drift from what the service accepts and answers.

use poem_openapi::types::ParseFromJSON;
use serde_json::Value;

/// Whether an example's JSON text is what a payload type accepts: the
/// reason it is not, when it is not.
pub type Shape = fn(Option<&str>) -> Result<(), String>;

/// The examples of one operation, each with the payload type it is an
/// example of.
#[derive(Debug, Clone, Copy)]
pub struct OperationExample {
    /// `METHOD /path/{param}` as the spec names it.
    pub operation: &'static str,
    /// A request body, as JSON text.
    pub request: Option<&'static str>,
    /// The `200` answer, as JSON text.
    pub response: Option<&'static str>,
    /// What `request` must parse as.
    pub request_shape: Option<Shape>,
    /// What `response` must parse as.
    pub response_shape: Option<Shape>,
}

impl OperationExample {
    /// The examples of `operation`: none yet.
    pub const fn new(operation: &'static str) -> Self {
        Self {
            operation,
            request: None,
            response: None,
            request_shape: None,
            response_shape: None,
        }
    }

    /// With `request`, a body the operation takes as `T`.
    pub const fn takes<T: ParseFromJSON>(self, request: &'static str) -> Self {
        Self {
            request: Some(request),
            request_shape: Some(parses::<T>),
            ..self
        }
    }

    /// With `response`, the operation's `200` answer, a `T`.
    pub const fn answers<T: ParseFromJSON>(self, response: &'static str) -> Self {
        Self {
            response: Some(response),
            response_shape: Some(parses::<T>),
            ..self
        }
    }
}

/// Whether `text` is what `T` accepts ([`Shape`]).
fn parses<T: ParseFromJSON>(text: Option<&str>) -> Result<(), String> {
    let value = text
        .map(serde_json::from_str)
        .transpose()
        .map_err(|error| format!("not JSON: {error}"))?;
    T::parse_from_json(value)
        .map(drop)
        .map_err(|error| error.into_message())
}

/// Every resource's examples.
pub fn all() -> impl Iterator<Item = &'static OperationExample> {
    [
        crate::resources::customers::examples::EXAMPLES,
        crate::resources::carts::examples::EXAMPLES,
        crate::resources::points::examples::EXAMPLES,
        crate::resources::coupons::examples::EXAMPLES,
        crate::resources::discounts::examples::EXAMPLES,
        crate::resources::vouchers::examples::EXAMPLES,
        crate::resources::rewards::examples::EXAMPLES,
        crate::resources::games::examples::EXAMPLES,
        crate::resources::challenges::examples::EXAMPLES,
        crate::resources::products::examples::EXAMPLES,
        crate::resources::locations::examples::EXAMPLES,
        crate::resources::taxonomies::examples::EXAMPLES,
        crate::resources::promotions::examples::EXAMPLES,
        crate::resources::messages::examples::EXAMPLES,
    ]
    .into_iter()
    .flatten()
}

/// Puts `examples` on the operations of `document` they name.
pub fn publish<'a>(document: &mut Value, examples: impl Iterator<Item = &'a OperationExample>) {
    for example in examples {
        let Some((method, path)) = example.operation.split_once(' ') else {
            continue;
        };
        let pointer = format!(
            "/paths/{}/{}",
            path.replace('~', "~0").replace('/', "~1"),
            method.to_ascii_lowercase()
        );
        let Some(operation) = document.pointer_mut(&pointer) else {
            continue;
        };
        let parsed = |text: Option<&str>| text.and_then(|t| serde_json::from_str::<Value>(t).ok());
        if let Some(request) = parsed(example.request) {
            set_on_json_media(
                operation.pointer_mut("/requestBody/content"),
                "example",
                &request,
            );
        }
        if let Some(response) = parsed(example.response) {
            set_on_json_media(
                operation.pointer_mut("/responses/200/content"),
                "example",
                &response,
            );
        }
    }
}

/// Sets `field` to `value` on each JSON media type of the OpenAPI
/// `content` (`application/json; charset=utf-8`, ...).
pub(crate) fn set_on_json_media(content: Option<&mut Value>, field: &str, value: &Value) {
    let Some(media_types) = content.and_then(Value::as_object_mut) else {
        return;
    };
    for (media_type, media) in media_types.iter_mut() {
        if media_type.starts_with("application/json") {
            media[field] = value.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_is_json_and_names_an_operation_once() {
        let mut seen = std::collections::HashSet::new();
        for example in all() {
            assert!(
                seen.insert(example.operation),
                "{} twice",
                example.operation
            );
            let (method, path) = example.operation.split_once(' ').unwrap();
            assert!(["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&method));
            assert!(path.starts_with('/'), "{}", example.operation);
            assert!(
                example.request.is_some() || example.response.is_some(),
                "{} has no example",
                example.operation
            );
        }
    }

    #[test]
    fn every_example_is_what_its_operation_takes_and_answers() {
        for example in all() {
            for (text, shape, what) in [
                (example.request, example.request_shape, "request"),
                (example.response, example.response_shape, "answer"),
            ] {
                if let Some(shape) = shape {
                    shape(text).unwrap_or_else(|e| panic!("{} {what}: {e}", example.operation));
                }
            }
        }
    }

    #[test]
    fn an_example_that_is_not_its_type_is_told() {
        let parses_as_a_number: Shape = parses::<i64>;
        assert_eq!(parses_as_a_number(Some("12")), Ok(()));
        assert!(parses_as_a_number(Some(r#""twelve""#)).is_err());
        assert!(
            parses_as_a_number(Some("{"))
                .unwrap_err()
                .starts_with("not JSON")
        );
    }
}
