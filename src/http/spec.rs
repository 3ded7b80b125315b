//! The OpenAPI document served at /openapi.json and the interactive UI at /docs.

use poem::endpoint::make_sync;
use poem::web::Html;
use poem::{Endpoint, Response};
use poem_openapi::{OpenApi, OpenApiService};
use serde_json::Value;

use crate::error::ErrorCode;

/// Introduction of the API description, followed by the error-code table.
const INTRODUCTION: &str = "\
Customer Loyalty and Data Collection service for retail Companies.

**Authentication.** Every call carries three headers: `X-Api-Key`, `X-Api-Secret` and \
`X-Api-Version: 1`. A missing or wrong key, secret or version, or a disabled key, answers \
403 with exactly `{\"message\":\"Forbidden\"}`. Keys belong to one Company (sandbox or \
production) and are managed by operators with `loyalty keys ...`.

**Errors.** Every other error has the body `{\"error\": \"...\", \"code\": \"...\"}`. \
Each code has one HTTP status:

";

/// The spec and UI, rendered once at start.
#[derive(Debug, Clone)]
pub struct SpecDocuments {
    /// The OpenAPI JSON.
    pub json: String,
    /// The Swagger UI page with the spec embedded.
    pub html: String,
}

/// Renders the spec of `service` with the three authentication headers joined
/// into one requirement and the error table in the description.
pub fn render<T: OpenApi>(service: OpenApiService<T, ()>) -> SpecDocuments {
    let service = service.description(format!("{INTRODUCTION}{}", ErrorCode::markdown_table()));
    let generated = service.spec();
    let json = join_security_requirements(&generated);
    let html = service.swagger_ui_html().replace(&generated, &json);
    SpecDocuments { json, html }
}

/// poem-openapi lists each security scheme of an operation as an alternative
/// (`[{A}, {B}, {C}]`); every operation here needs all of them (`[{A, B, C}]`).
pub fn join_security_requirements(spec: &str) -> String {
    let Ok(mut document) = serde_json::from_str::<Value>(spec) else {
        return spec.to_string();
    };
    if let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) {
        for operation in paths.values_mut().filter_map(Value::as_object_mut) {
            for details in operation.values_mut() {
                let Some(security) = details.get_mut("security") else {
                    continue;
                };
                let Some(alternatives) = security.as_array() else {
                    continue;
                };
                let mut joined = serde_json::Map::new();
                for requirement in alternatives.iter().filter_map(Value::as_object) {
                    joined.extend(requirement.clone());
                }
                *security = Value::Array(vec![Value::Object(joined)]);
            }
        }
    }
    serde_json::to_string_pretty(&document).unwrap_or_else(|_| spec.to_string())
}

/// GET /openapi.json.
pub fn json_endpoint(documents: &SpecDocuments) -> impl Endpoint + 'static {
    let json = documents.json.clone();
    make_sync(move |_| {
        Response::builder()
            .content_type("application/json")
            .body(json.clone())
    })
}

/// GET /docs.
pub fn ui_endpoint(documents: &SpecDocuments) -> impl Endpoint + 'static {
    let html = documents.html.clone();
    make_sync(move |_| Html(html.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_alternatives_become_one_requirement() {
        let spec = r#"{"paths":{"/check":{"get":{"security":[{"A":[]},{"B":[]},{"C":[]}]}}}}"#;
        let joined: Value = serde_json::from_str(&join_security_requirements(spec)).unwrap();
        assert_eq!(
            joined["paths"]["/check"]["get"]["security"],
            serde_json::json!([{"A": [], "B": [], "C": []}])
        );
    }
}
