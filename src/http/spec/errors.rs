//! Which error codes each operation answers, in the spec.
//!
//! A resource states, beside its handlers, the codes of its own that each
//! operation can answer ([`OperationErrors`], through [`DeclaredErrors`]).
//! [`publish`] joins them with the codes every operation of its kind shares
//! ([`Surface::shared_codes`]) and writes them into the spec: each error
//! response lists its codes with their meaning, statuses the operation never
//! answers are left out, and `x-error-codes` lists them all for tools.
//! [`DeclaredCodes`] reads them back from the published spec, so the service
//! notices an answer its spec does not declare (see
//! [`crate::http::errors::JsonErrors`]).

use std::collections::{BTreeSet, HashMap};

use serde_json::{Value, json};

use crate::error::ErrorCode;
use crate::http::spec::PathTable;
use crate::http::spec::examples::set_on_json_media;

/// The codes one operation answers beyond those its [`Surface`] shares.
#[derive(Debug, Clone, Copy)]
pub struct OperationErrors {
    /// `METHOD /path` as the spec writes it, e.g. `GET /customers/{value}`.
    pub operation: &'static str,
    /// Its own codes, e.g. `customer_not_found`.
    pub codes: &'static [ErrorCode],
}

impl OperationErrors {
    /// The codes `codes` of `operation`.
    pub const fn new(operation: &'static str, codes: &'static [ErrorCode]) -> Self {
        OperationErrors { operation, codes }
    }
}

/// The codes of an `#[OpenApi]` group's operations; tuples of groups join
/// theirs.
pub trait DeclaredErrors {
    /// One entry per operation of the group.
    const ERRORS: &'static [OperationErrors] = &[];

    /// Appends this group's entries (and, for a tuple, its members') to `into`.
    fn declared(into: &mut Vec<OperationErrors>) {
        into.extend_from_slice(Self::ERRORS);
    }
}

macro_rules! tuple_declared_errors {
    ($($member:ident),+) => {
        impl<$($member: DeclaredErrors),+> DeclaredErrors for ($($member,)+) {
            fn declared(into: &mut Vec<OperationErrors>) {
                $($member::declared(into);)+
            }
        }
    };
}

tuple_declared_errors!(A, B);
tuple_declared_errors!(A, B, C);
tuple_declared_errors!(A, B, C, D);
tuple_declared_errors!(A, B, C, D, E);
tuple_declared_errors!(A, B, C, D, E, F);

/// Every entry `Groups` declares.
pub fn declared_by<Groups: DeclaredErrors>() -> Vec<OperationErrors> {
    let mut declared = Vec::new();
    Groups::declared(&mut declared);
    declared
}

/// Which listener an operation is served on, which decides the codes every
/// operation there shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The integrator API: authenticated by key, rate limited, admitted,
    /// timed, idempotent writes.
    Integrator,
    /// The operators' back-office: one token, no quotas.
    BackOffice,
}

impl Surface {
    /// The codes any operation of this surface can answer, for an operation
    /// with `method` that takes a body or not.
    pub fn shared_codes(self, method: &str, takes_body: bool) -> Vec<ErrorCode> {
        use ErrorCode::*;
        let mut codes = match self {
            Surface::Integrator => vec![
                InvalidRequest,
                Forbidden,
                RateLimited,
                ServerError,
                StoreUnavailable,
                RequestTimeout,
                ServerBusy,
            ],
            Surface::BackOffice => vec![
                InvalidRequest,
                OperatorUnauthorized,
                ServerError,
                StoreUnavailable,
            ],
        };
        if takes_body {
            codes.extend([PayloadTooLarge, UnsupportedMediaType]);
        }
        let writes = method != "get";
        if writes {
            // A write's transaction may keep colliding with others, or find
            // the store's disk full.
            codes.extend([ConcurrentModification, StoreFull]);
        }
        if self == Surface::Integrator && matches!(method, "post" | "patch" | "put") {
            codes.extend([IdempotencyKeyInUse, IdempotencyKeyReused]);
        }
        codes
    }
}

/// Writes every operation's codes into `document`: each error response's
/// description lists the codes answered with its status, statuses no code
/// of the operation has are removed, and `x-error-codes` lists them all.
/// An operation `declared` does not name gets only its surface's codes;
/// [`coverage`] tells which operations lack an entry.
pub fn publish(document: &mut Value, surface: Surface, declared: &[OperationErrors]) {
    let own: HashMap<&str, &[ErrorCode]> = declared
        .iter()
        .map(|entry| (entry.operation, entry.codes))
        .collect();
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, operations) in paths.iter_mut() {
        let Some(operations) = operations.as_object_mut() else {
            continue;
        };
        for (method, operation) in operations.iter_mut() {
            let takes_body = operation.get("requestBody").is_some();
            let mut codes = surface.shared_codes(method, takes_body);
            let name = format!("{} {path}", method.to_ascii_uppercase());
            for code in own.get(name.as_str()).copied().unwrap_or_default() {
                if !codes.contains(code) {
                    codes.push(*code);
                }
            }
            // The registry's order, so every operation lists them alike.
            codes.sort_by_key(|code| ErrorCode::ALL.iter().position(|known| known == code));
            describe_responses(operation, &codes);
        }
    }
}

fn describe_responses(operation: &mut Value, codes: &[ErrorCode]) {
    if let Some(responses) = operation
        .get_mut("responses")
        .and_then(Value::as_object_mut)
    {
        responses.retain(|status, _| {
            !is_error_status(status) || codes.iter().any(|code| status_of(*code) == *status)
        });
        for (status, response) in responses.iter_mut() {
            if !is_error_status(status) {
                continue;
            }
            let answered: Vec<&ErrorCode> = codes
                .iter()
                .filter(|code| status_of(**code) == *status)
                .collect();
            let lines: Vec<String> = answered
                .iter()
                .map(|code| format!("- `{}`: {}", code.code(), code.meaning()))
                .collect();
            response["description"] = json!(lines.join("\n"));
            // One example body per code the status stands for.
            let examples: serde_json::Map<String, Value> = answered
                .iter()
                .map(|code| {
                    (
                        code.code().to_string(),
                        json!({"value": {"error": code.meaning(), "code": code.code()}}),
                    )
                })
                .collect();
            set_on_json_media(
                response.get_mut("content"),
                "examples",
                &Value::Object(examples),
            );
        }
    }
    let listed: Vec<&str> = codes.iter().map(|code| code.code()).collect();
    operation["x-error-codes"] = json!(listed);
}

fn is_error_status(status: &str) -> bool {
    status.starts_with('4') || status.starts_with('5')
}

fn status_of(code: ErrorCode) -> String {
    code.status().as_u16().to_string()
}

/// How `declared` covers the operations of `document`: the operations it
/// has no entry for, and the entries that name no operation (a typo, or an
/// operation since removed).
pub fn coverage(document: &Value, declared: &[OperationErrors]) -> (Vec<String>, Vec<String>) {
    let mut operations = BTreeSet::new();
    for (path, methods) in document["paths"].as_object().into_iter().flatten() {
        for method in methods.as_object().into_iter().flatten().map(|(m, _)| m) {
            operations.insert(format!("{} {path}", method.to_ascii_uppercase()));
        }
    }
    let named: BTreeSet<String> = declared
        .iter()
        .map(|entry| entry.operation.to_string())
        .collect();
    let missing = operations.difference(&named).cloned().collect();
    let unknown = named.difference(&operations).cloned().collect();
    (missing, unknown)
}

/// The codes each operation of a published spec declares, read back from its
/// `x-error-codes`.
#[derive(Debug, Clone, Default)]
pub struct DeclaredCodes {
    /// Per path template: per upper-case method, its codes.
    paths: PathTable<HashMap<String, Vec<String>>>,
}

impl DeclaredCodes {
    /// The codes of every operation in the OpenAPI `document`.
    pub fn of_document(document: &Value) -> DeclaredCodes {
        let paths = PathTable::of_document(document, |operations| {
            operations
                .iter()
                .map(|(method, operation)| {
                    let codes = operation["x-error-codes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect();
                    (method.to_ascii_uppercase(), codes)
                })
                .collect()
        });
        DeclaredCodes { paths }
    }

    /// Whether the operation `method path` declares `code`; `None` when the
    /// request reached no operation of the spec (an unknown route).
    pub fn declares(&self, method: &str, path: &str, code: &str) -> Option<bool> {
        let codes = self.paths.get(path)?.get(method)?;
        Some(codes.iter().any(|declared| declared == code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> Value {
        json!({"paths": {
            "/customers/{value}": {
                "get": {"responses": {
                    "200": {"description": "ok"},
                    "400": {"description": "x"}, "403": {"description": "x"},
                    "404": {"description": "x"}, "409": {"description": "x"},
                    "413": {"description": "x"}, "422": {"description": "x"}
                }},
                "patch": {"requestBody": {}, "responses": {
                    "200": {"description": "ok"}, "409": {"description": "x"},
                    "413": {"description": "x"}, "422": {"description": "x"}
                }}
            }
        }})
    }

    const DECLARED: &[OperationErrors] = &[
        OperationErrors {
            operation: "GET /customers/{value}",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "PATCH /customers/{value}",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::CustomerInactive],
        },
    ];

    #[test]
    fn each_response_lists_its_codes_and_unanswered_statuses_go() {
        let mut document = document();
        publish(&mut document, Surface::Integrator, DECLARED);
        let get = &document["paths"]["/customers/{value}"]["get"];
        let statuses: Vec<&String> = get["responses"].as_object().unwrap().keys().collect();
        assert_eq!(statuses, ["200", "400", "403", "404"]);
        let not_found = get["responses"]["404"]["description"].as_str().unwrap();
        assert!(
            not_found.starts_with("- `customer_not_found`: "),
            "{not_found}"
        );
        assert!(
            !get["x-error-codes"]
                .as_array()
                .unwrap()
                .contains(&json!("idempotency_key_reused")),
            "a GET takes no Idempotency-Key"
        );
        let patch = &document["paths"]["/customers/{value}"]["patch"];
        let unprocessable = patch["responses"]["422"]["description"].as_str().unwrap();
        assert!(
            unprocessable.contains("`customer_inactive`"),
            "{unprocessable}"
        );
        assert!(
            unprocessable.contains("`idempotency_key_reused`"),
            "{unprocessable}"
        );
        assert!(
            patch["responses"]["413"].is_object(),
            "a body can be too large"
        );
    }

    #[test]
    fn the_published_codes_are_read_back_by_operation() {
        let mut document = document();
        publish(&mut document, Surface::Integrator, DECLARED);
        let codes = DeclaredCodes::of_document(&document);
        assert_eq!(
            codes.declares("GET", "/customers/cus_1", "customer_not_found"),
            Some(true)
        );
        assert_eq!(
            codes.declares("GET", "/customers/cus_1", "customer_inactive"),
            Some(false)
        );
        assert_eq!(codes.declares("GET", "/nowhere", "route_not_found"), None);
    }

    #[test]
    fn operations_without_an_entry_and_entries_without_an_operation_are_told() {
        let entries = [
            DECLARED[0],
            OperationErrors {
                operation: "GET /customer/{value}",
                codes: &[],
            },
        ];
        let (missing, unknown) = coverage(&document(), &entries);
        assert_eq!(missing, ["PATCH /customers/{value}"]);
        assert_eq!(unknown, ["GET /customer/{value}"]);
    }
}
