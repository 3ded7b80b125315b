//! The OpenAPI document served at /openapi.json and the interactive UI at /docs.
//!
//! [`render`] generates it from the operations' types, [`tidy`] makes it
//! say exactly what the service does (with [`rules`], the rules of
//! particular fields and operations), and [`errors`] adds the error codes
//! each operation answers; [`generators`] puts it in the shapes client
//! generators read.

pub mod choices;
pub mod errors;
pub mod examples;
pub mod generators;
pub mod rules;
pub mod tidy;

use poem::endpoint::make_sync;
use poem::web::Html;
use poem::{Endpoint, Response};
use poem_openapi::{OpenApi, OpenApiService};
use serde_json::Value;

use crate::error::ErrorCode;
use errors::{DeclaredErrors, OperationErrors, Surface};

/// Introduction of the API description, followed by the error-code table.
const INTRODUCTION: &str = "\
Customer Loyalty and Data Collection service for retail Companies.

**Authentication.** Every call carries three headers: `X-Api-Key`, `X-Api-Secret` and \
`X-Api-Version: 1`, each once. A missing or wrong key, secret or version, one of them sent \
twice, or a disabled key, answers 403 with exactly `{\"message\":\"Forbidden\"}`. Keys belong to one Company (sandbox or \
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
/// into one requirement, the error table in the description and each
/// operation's error codes.
pub fn render<T: OpenApi + DeclaredErrors>(service: OpenApiService<T, ()>) -> SpecDocuments {
    let service = service.description(format!("{INTRODUCTION}{}", ErrorCode::markdown_table()));
    let generated = service.spec();
    let json = finish(&generated, Surface::Integrator, &errors::declared_by::<T>());
    let html = service.swagger_ui_html().replace(&generated, &json);
    SpecDocuments { json, html }
}

/// The spec poem-openapi `generated`, with its security requirements joined,
/// [`tidy`], and the error codes of the operations of `surface` published
/// from `declared`: the document the service publishes.
pub fn finish(generated: &str, surface: Surface, declared: &[OperationErrors]) -> String {
    match serde_json::from_str::<Value>(generated) {
        Ok(mut document) => {
            join_security_requirements(&mut document);
            tidy::tidy(&mut document);
            errors::publish(&mut document, surface, declared);
            examples::publish(&mut document, examples::all());
            generators::shape_for_generators(&mut document);
            serde_json::to_string_pretty(&document).unwrap_or_else(|_| generated.to_string())
        }
        Err(_) => generated.to_string(),
    }
}

/// Values keyed by the spec's path templates, looked up by a request path:
/// `{name}` matches any one segment, and a literal segment beats a parameter
/// (`/customers/search` is not `/customers/{value}`).
#[derive(Debug, Clone)]
pub struct PathTable<T> {
    /// (template split at `/`, its value).
    entries: Vec<(Vec<String>, T)>,
}

impl<T> Default for PathTable<T> {
    fn default() -> Self {
        PathTable {
            entries: Vec::new(),
        }
    }
}

impl<T> PathTable<T> {
    /// A table of `value(path, operations)` for every path of the OpenAPI
    /// `document`.
    pub fn of_document(
        document: &Value,
        value: impl Fn(&serde_json::Map<String, Value>) -> T,
    ) -> Self {
        let entries = document["paths"]
            .as_object()
            .map(|paths| {
                paths
                    .iter()
                    .filter_map(|(path, operations)| {
                        Some((segments(path), value(operations.as_object()?)))
                    })
                    .collect()
            })
            .unwrap_or_default();
        PathTable { entries }
    }

    /// The value of the template `path` matches.
    pub fn get(&self, path: &str) -> Option<&T> {
        self.best_match(path).map(|(_, value)| value)
    }

    /// The template `path` matches, as the spec writes it
    /// (`/customers/{value}`).
    pub fn template(&self, path: &str) -> Option<String> {
        self.best_match(path)
            .map(|(template, _)| format!("/{}", template.join("/")))
    }

    fn best_match(&self, path: &str) -> Option<&(Vec<String>, T)> {
        let asked = segments(path);
        let matches = |template: &[String]| {
            template.len() == asked.len()
                && template
                    .iter()
                    .zip(&asked)
                    .all(|(t, a)| t.starts_with('{') || t == a)
        };
        self.entries
            .iter()
            .filter(|(template, _)| matches(template))
            .min_by_key(|(template, _)| template.iter().filter(|t| t.starts_with('{')).count())
    }
}

fn segments(path: &str) -> Vec<String> {
    path.trim_matches('/')
        .split('/')
        .map(str::to_string)
        .collect()
}

/// The methods each path of the spec answers, for the `Allow` header of a
/// 405 (RFC 9110 requires it).
#[derive(Debug, Clone, Default)]
pub struct AllowedMethods {
    /// Each path's methods, upper case, comma-separated.
    paths: PathTable<String>,
}

impl AllowedMethods {
    /// The methods of every path in the OpenAPI `document`.
    pub fn of_document(document: &Value) -> AllowedMethods {
        let paths = PathTable::of_document(document, |operations| {
            let mut methods: Vec<String> = operations
                .keys()
                .map(|method| method.to_ascii_uppercase())
                .collect();
            methods.sort();
            methods.join(", ")
        });
        AllowedMethods { paths }
    }

    /// The methods `path` answers, when it is one of the spec's paths.
    pub fn of_path(&self, path: &str) -> Option<&str> {
        self.paths.get(path).map(String::as_str)
    }
}

/// poem-openapi lists each security scheme of an operation as an alternative
/// (`[{A}, {B}, {C}]`); every operation here needs all of them (`[{A, B, C}]`).
pub fn join_security_requirements(document: &mut Value) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
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
        let allowed = AllowedMethods::of_document(&serde_json::from_str(json).unwrap());
        assert_eq!(
            allowed.of_path("/customers/cus_1"),
            Some("DELETE, GET, PATCH")
        );
        assert_eq!(allowed.of_path("/customers/search"), Some("POST"));
        assert_eq!(allowed.of_path("/nowhere"), None);
    }

    #[test]
    fn security_alternatives_become_one_requirement() {
        let mut joined: Value = serde_json::from_str(
            r#"{"paths":{"/check":{"get":{"security":[{"A":[]},{"B":[]},{"C":[]}]}}}}"#,
        )
        .unwrap();
        join_security_requirements(&mut joined);
        assert_eq!(
            joined["paths"]["/check"]["get"]["security"],
            serde_json::json!([{"A": [], "B": [], "C": []}])
        );
    }
}
