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

/// The methods each path of the spec answers, for the `Allow` header of a
/// 405 (RFC 9110 requires it).
#[derive(Debug, Clone, Default)]
pub struct AllowedMethods {
    /// (path template split at `/`, with `{name}` matching any one segment;
    /// its methods, upper case, comma-separated).
    paths: Vec<(Vec<String>, String)>,
}

impl AllowedMethods {
    /// The methods of every path in the OpenAPI `json`.
    pub fn of_spec(json: &str) -> AllowedMethods {
        let spec: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
        let paths: Vec<(Vec<String>, String)> = spec["paths"]
            .as_object()
            .map(|paths| {
                paths
                    .iter()
                    .map(|(path, operations)| {
                        let mut methods: Vec<String> = operations
                            .as_object()
                            .map(|o| o.keys().map(|m| m.to_ascii_uppercase()).collect())
                            .unwrap_or_default();
                        methods.sort();
                        (segments(path), methods.join(", "))
                    })
                    .collect()
            })
            .unwrap_or_default();
        AllowedMethods { paths }
    }

    /// The methods `path` answers, when it is one of the spec's paths.
    pub fn of_path(&self, path: &str) -> Option<&str> {
        let asked = segments(path);
        let matches = |template: &[String]| {
            template.len() == asked.len()
                && template
                    .iter()
                    .zip(&asked)
                    .all(|(t, a)| t.starts_with('{') || t == a)
        };
        // A literal segment beats a parameter: `/customers/search` is not
        // `/customers/{value}`.
        self.paths
            .iter()
            .filter(|(template, _)| matches(template))
            .min_by_key(|(template, _)| template.iter().filter(|t| t.starts_with('{')).count())
            .map(|(_, methods)| methods.as_str())
    }
}

fn segments(path: &str) -> Vec<String> {
    path.trim_matches('/')
        .split('/')
        .map(str::to_string)
        .collect()
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
            .content_type(crate::error::JSON_CONTENT_TYPE)
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
    fn allowed_methods_are_read_from_the_spec() {
        let json = r#"{"paths": {"/customers/{value}": {"get": {}, "patch": {}, "delete": {}},
            "/customers/search": {"post": {}}, "/carts": {"get": {}}}}"#;
        let allowed = AllowedMethods::of_spec(json);
        assert_eq!(
            allowed.of_path("/customers/cus_1"),
            Some("DELETE, GET, PATCH")
        );
        assert_eq!(allowed.of_path("/customers/search"), Some("POST"));
        assert_eq!(allowed.of_path("/nowhere"), None);
    }

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
