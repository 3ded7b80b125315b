//! Example bodies in the published spec: each resource lists, per
//! operation, a request an integrator would send and the answer it gets
//! (its `examples.rs`), and they are put on the operation's
//! `application/json` request body and `200` answer. Every resource's own
//! tests parse its request examples into the payload types, so an example
//! cannot drift from what the service accepts.

use serde_json::Value;

/// The examples of one operation.
#[derive(Debug, Clone, Copy)]
pub struct OperationExample {
    /// `METHOD /path/{param}` as the spec names it.
    pub operation: &'static str,
    /// A request body, as JSON text.
    pub request: Option<&'static str>,
    /// The `200` answer, as JSON text.
    pub response: Option<&'static str>,
}

/// Fails the test when `text` (an example of `operation`) is not what `T`
/// accepts.
#[cfg(test)]
pub(crate) fn parses<T: poem_openapi::types::ParseFromJSON>(operation: &str, text: Option<&str>) {
    let value = text.map(|t| serde_json::from_str(t).unwrap());
    if let Err(error) = T::parse_from_json(value) {
        panic!("{operation}: {}", error.into_message());
    }
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
            for text in [example.request, example.response].into_iter().flatten() {
                serde_json::from_str::<Value>(text)
                    .unwrap_or_else(|e| panic!("{}: {e}", example.operation));
            }
        }
    }
}
