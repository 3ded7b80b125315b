//! Passes over the generated OpenAPI document that make it say exactly what
//! the service does, in the shapes client generators understand.
//!
//! poem-openapi declares extra headers on every operation, leaves optional
//! fields non-nullable although they are written as `null`, wraps enum
//! references in `allOf`, and has no notion of a default bound. Each pass
//! below fixes one of those, on the JSON, once at start. The request-shape
//! check ([`crate::http::shape`]) enforces the tidied document, so what the
//! spec says is what the service refuses.

use serde_json::{Map, Value, json};

use crate::http::spec::rules;

/// The characters text never holds, as the inside of a regex class: control
/// characters (C0, DEL, C1), U+2027 to U+202E (the hyphenation point, the
/// line and paragraph separators, and the bidirectional embeddings and
/// overrides, which make a name read differently from what it is), the
/// bidirectional isolates and the byte-order mark.
///
/// Written for every regex dialect that reads the spec (ECMA, Python, Rust)
/// and for generators that write a pattern into a JavaScript regex literal
/// with its `\uXXXX` escapes decoded: no escape of U+2028 or U+2029 survives
/// that, so they are only inside a range whose ends are other characters.
macro_rules! refused {
    () => {
        "\\x00-\\x1f\\x7f-\\x9f\\u2027-\\u202e\\u2066-\\u2069\\ufeff"
    };
}

/// Characters a string may hold unless its field says otherwise: any but
/// those `refused!` lists.
pub const PRINTABLE: &str = concat!("^[^", refused!(), "]*$");

/// Characters of multi-line text (conditions, descriptions): [`PRINTABLE`]
/// plus tab, line feed and carriage return.
pub const MULTI_LINE: &str =
    "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\u2027-\\u202e\\u2066-\\u2069\\ufeff]*$";

/// Characters of an identifier or code: [`PRINTABLE`], and not blank. A
/// string whose validator asks for at least one character and no pattern
/// gets it (poem-openapi's own pattern validators compile their regex on
/// every request, so fields state patterns here instead).
pub const IDENTIFIER: &str = concat!(
    "^[^",
    refused!(),
    "]*[^\\s",
    refused!(),
    "][^",
    refused!(),
    "]*$"
);

/// The years a date or DateTime may have (1900 to 2199,
/// [`crate::common::time::Timestamp::is_in_window`]), as a pattern.
pub const DATE_WINDOW: &str = "^(19|20|21)[0-9]{2}-";

/// Longest string a field takes unless it says otherwise.
pub const DEFAULT_MAX_LENGTH: u64 = 1000;

/// Most entries a free-form object (attributes, features) takes unless it
/// says otherwise.
pub const DEFAULT_MAX_PROPERTIES: u64 = 100;

/// Most items a list takes unless it says otherwise.
pub const DEFAULT_MAX_ITEMS: u64 = 1000;

/// The headers an operation that changes nothing must not be sent.
const WRITE_ONLY_HEADERS: [&str; 1] = ["Idempotency-Key"];

/// What an Idempotency-Key may be: 1 to 255 visible ASCII characters.
const IDEMPOTENCY_KEY_PATTERN: &str = "^[!-~]+$";

/// Applies every pass to `document`.
pub fn tidy(document: &mut Value) {
    tidy_headers(document);
    inline_enum_references(document);
    rules::state_rules(document);
    let requested = request_schemas(document);
    if let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for (name, schema) in schemas.iter_mut() {
            // Bounds describe what the service accepts; answers are written
            // by the service and carry none (an error may quote any input).
            let bounded = requested.contains(&format!("#/components/schemas/{name}"));
            bound_and_null(schema, bounded);
            if bounded && !rules::CUSTOMER_OPTIONAL.contains(&name.as_str()) {
                rules::require_a_customer(schema);
            }
        }
    }
    for_each_operation(document, |_, details| {
        for parameter in details
            .get_mut("parameters")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let in_query = parameter["in"] == "query";
            if parameter["name"] == "Accept-Language" {
                // Any value is taken (see `tidy_headers`), however long.
                continue;
            }
            let in_path = parameter["in"] == "path";
            if let Some(schema) = parameter.get_mut("schema") {
                if in_path && schema["type"] == "string" && schema.get("minLength").is_none() {
                    // A path segment is never blank: the service refuses
                    // one that is only spaces, so the spec says so.
                    schema["minLength"] = json!(1);
                }
                if in_query {
                    // A URL longer than 64 KiB is refused before the service
                    // sees it; short query values keep every URL well within.
                    bound_query_strings(schema);
                }
                bound_and_null(schema, true);
            }
        }
        if let Some(content) = details
            .pointer_mut("/requestBody/content")
            .and_then(Value::as_object_mut)
        {
            for media in content.values_mut() {
                if let Some(schema) = media.get_mut("schema") {
                    bound_and_null(schema, true);
                }
            }
        }
    });
}

/// Calls `visit(method, operation)` for every operation of `document`.
fn for_each_operation(document: &mut Value, mut visit: impl FnMut(&str, &mut Value)) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for operations in paths.values_mut().filter_map(Value::as_object_mut) {
        for (method, details) in operations.iter_mut() {
            visit(method, details);
        }
    }
}

/// The components a request can contain (through any number of
/// references), by reference.
fn request_schemas(document: &Value) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    let mut pending: Vec<String> = Vec::new();
    for operations in document["paths"].as_object().into_iter().flatten() {
        for details in operations
            .1
            .as_object()
            .into_iter()
            .flatten()
            .map(|(_, d)| d)
        {
            collect_references(&details["parameters"], &mut pending);
            collect_references(&details["requestBody"], &mut pending);
        }
    }
    while let Some(reference) = pending.pop() {
        if found.insert(reference.clone()) {
            let name = reference.trim_start_matches("#/components/schemas/");
            if let Some(schema) = document.pointer(&format!("/components/schemas/{name}")) {
                collect_references(schema, &mut pending);
            }
        }
    }
    found
}

fn collect_references(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
                into.push(reference.to_string());
            }
            object
                .values()
                .for_each(|child| collect_references(child, into));
        }
        Value::Array(items) => items.iter().for_each(|item| collect_references(item, into)),
        _ => {}
    }
}

/// Header parameters get their usual spelling (the generator upper-cases
/// them); GET, HEAD and DELETE, which refuse an Idempotency-Key, do not
/// declare it; and the key's own limits are stated.
fn tidy_headers(document: &mut Value) {
    for_each_operation(document, |method, details| {
        let reads = matches!(method, "get" | "head" | "delete");
        let Some(parameters) = details.get_mut("parameters").and_then(Value::as_array_mut) else {
            return;
        };
        parameters.retain(|parameter| {
            !(reads
                && parameter["in"] == "header"
                && WRITE_ONLY_HEADERS.iter().any(|header| {
                    parameter["name"]
                        .as_str()
                        .is_some_and(|name| name.eq_ignore_ascii_case(header))
                }))
        });
        for parameter in parameters.iter_mut().filter(|p| p["in"] == "header") {
            let Some(name) = parameter["name"].as_str().map(str::to_string) else {
                continue;
            };
            if name.eq_ignore_ascii_case("Idempotency-Key") {
                parameter["name"] = json!("Idempotency-Key");
                parameter["schema"] = json!({
                    "type": "string", "minLength": 1, "maxLength": 255,
                    "pattern": IDEMPOTENCY_KEY_PATTERN
                });
            } else if name.eq_ignore_ascii_case("Accept-Language") {
                // Any value is taken: one the service cannot read is ignored
                // (RFC 9110), and the Company's default language answers.
                parameter["name"] = json!("Accept-Language");
                parameter["schema"] = json!({"type": "string", "pattern": "^.*$"});
            }
        }
    });
}

/// `{"allOf": [{"$ref": E}], ...}` where `E` is a string enum becomes the
/// enum itself, inline: generators drop the wrapped form.
fn inline_enum_references(document: &mut Value) {
    let enums: Map<String, Value> = document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .map(|schemas| {
            schemas
                .iter()
                .filter(|(_, schema)| schema.get("enum").is_some())
                .map(|(name, schema)| (format!("#/components/schemas/{name}"), schema.clone()))
                .collect()
        })
        .unwrap_or_default();
    replace_enum_wrappers(document, &enums);
}

fn replace_enum_wrappers(value: &mut Value, enums: &Map<String, Value>) {
    match value {
        Value::Object(object) => {
            if let Some(enum_schema) = referenced_enum(object, enums) {
                object.remove("$ref");
                let annotations = object.remove("allOf");
                // Annotations beside the reference (description, default)
                // and the field's own win over the enum's.
                for part in annotations
                    .as_ref()
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_object)
                {
                    for (key, annotation) in part.iter().filter(|(key, _)| *key != "$ref") {
                        object
                            .entry(key.clone())
                            .or_insert_with(|| annotation.clone());
                    }
                }
                for (key, part) in enum_schema {
                    object.entry(key).or_insert(part);
                }
            }
            for child in object.values_mut() {
                replace_enum_wrappers(child, enums);
            }
        }
        Value::Array(items) => {
            for item in items {
                replace_enum_wrappers(item, enums);
            }
        }
        _ => {}
    }
}

/// The enum `object` stands for: a `$ref` to one, or an `allOf` of one
/// reference to one and annotations only.
fn referenced_enum(
    object: &Map<String, Value>,
    enums: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    let lookup = |reference: &Value| {
        reference
            .as_str()
            .and_then(|reference| enums.get(reference))
            .and_then(Value::as_object)
            .cloned()
    };
    if let Some(reference) = object.get("$ref") {
        return lookup(reference);
    }
    let parts = object.get("allOf")?.as_array()?;
    let mut references = parts.iter().filter_map(|part| part.get("$ref"));
    let reference = references.next()?;
    let annotations_only = references.next().is_none()
        && parts.iter().all(|part| {
            part.get("$ref").is_some()
                || !["type", "properties", "allOf", "oneOf", "anyOf"]
                    .iter()
                    .any(|key| part.get(*key).is_some())
        });
    if annotations_only {
        lookup(reference)
    } else {
        None
    }
}

/// Longest query parameter value unless it says otherwise.
pub const DEFAULT_MAX_QUERY_LENGTH: u64 = 128;

/// Gives the strings of a query parameter (or its items) the query's default
/// length, when they state none.
fn bound_query_strings(schema: &mut Value) {
    let target = if schema["type"] == "array" {
        schema.get_mut("items")
    } else {
        Some(schema)
    };
    if let Some(object) = target.and_then(Value::as_object_mut)
        && object.get("type").and_then(Value::as_str) == Some("string")
        && !object.contains_key("enum")
    {
        object
            .entry("maxLength")
            .or_insert(json!(DEFAULT_MAX_QUERY_LENGTH));
    }
}

/// Gives `schema`, and every schema inside it, the default bounds it lacks,
/// and marks each optional property nullable (the service writes an absent
/// value as `null`, and reads `null` as absent).
fn bound_and_null(schema: &mut Value, bounded: bool) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    // poem-openapi calls a calendar date `naive-date`; OpenAPI calls it `date`.
    if object.get("format").and_then(Value::as_str) == Some("naive-date") {
        object.insert("format".to_string(), json!("date"));
    }
    match object.get("type").and_then(Value::as_str) {
        _ if !bounded => {}
        Some("string")
            if !object.contains_key("pattern")
                && !object.contains_key("enum")
                && object.get("minLength").and_then(Value::as_u64).unwrap_or(0) >= 1 =>
        {
            object.insert("pattern".to_string(), json!(IDENTIFIER));
            object
                .entry("maxLength")
                .or_insert(json!(DEFAULT_MAX_LENGTH));
        }
        Some("string")
            if matches!(
                object.get("format").and_then(Value::as_str),
                Some("date" | "date-time")
            ) =>
        {
            // The accepted window, 1900 to 2199, as OpenAPI can say it.
            object.entry("pattern").or_insert(json!(DATE_WINDOW));
        }
        Some("string") if !object.contains_key("enum") && !object.contains_key("format") => {
            object
                .entry("maxLength")
                .or_insert(json!(DEFAULT_MAX_LENGTH));
            object.entry("pattern").or_insert(json!(PRINTABLE));
        }
        Some("array") => {
            object.entry("maxItems").or_insert(json!(DEFAULT_MAX_ITEMS));
        }
        Some("object") if object.contains_key("additionalProperties") => {
            object
                .entry("maxProperties")
                .or_insert(json!(DEFAULT_MAX_PROPERTIES));
            if object["additionalProperties"] == json!({}) {
                let said = object["description"].as_str().unwrap_or_default();
                object.insert(
                    "description".to_string(),
                    json!(format!(
                        "{said}\n\nFree data: any JSON, with text of at most {DEFAULT_MAX_LENGTH} \
                         characters, lists of at most {DEFAULT_MAX_ITEMS} items and objects of at \
                         most {DEFAULT_MAX_PROPERTIES} entries, nested at most 32 deep."
                    )
                    .trim_start()),
                );
            }
        }
        _ => {}
    }
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(|name| name.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if let Some(properties) = object.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            // A field with a default is written with its value, never null.
            if !required.contains(name) && property.get("default").is_none() {
                make_nullable(property);
            }
            bound_and_null(property, bounded);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get_mut(key) {
            bound_and_null(child, bounded);
        }
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for part in object
            .get_mut(key)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            bound_and_null(part, bounded);
        }
    }
}

/// Marks `property` nullable; a bare `$ref` (whose siblings OpenAPI 3.0
/// ignores) is wrapped in `allOf` first.
fn make_nullable(property: &mut Value) {
    let Some(object) = property.as_object_mut() else {
        return;
    };
    if let Some(reference) = object.remove("$ref") {
        object.insert("allOf".to_string(), json!([{ "$ref": reference }]));
    }
    object.insert("nullable".to_string(), Value::Bool(true));
}

#[cfg(test)]
mod tests;
