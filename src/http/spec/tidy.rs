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

/// Characters a string may hold unless its field says otherwise: no control
/// characters (C0, DEL, C1), no line or paragraph separators and no
/// bidirectional overrides, embeddings or isolates (which make a name read
/// differently from what it is).
pub const PRINTABLE: &str =
    "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]*$";

/// Characters of multi-line text (conditions, descriptions): [`PRINTABLE`]
/// plus tab, line feed and carriage return.
pub const MULTI_LINE: &str = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]*$";

/// Longest string a field takes unless it says otherwise.
pub const DEFAULT_MAX_LENGTH: u64 = 1000;

/// Most entries a free-form object (attributes, features) takes unless it
/// says otherwise.
pub const DEFAULT_MAX_PROPERTIES: u64 = 100;

/// Most items a list takes unless it says otherwise.
pub const DEFAULT_MAX_ITEMS: u64 = 1000;

/// The headers an operation that changes nothing must not be sent.
const WRITE_ONLY_HEADERS: [&str; 1] = ["Idempotency-Key"];

/// Applies every pass to `document`.
pub fn tidy(document: &mut Value) {
    drop_write_headers_from_reads(document);
    inline_enum_references(document);
    if let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for schema in schemas.values_mut() {
            bound_and_null(schema);
        }
    }
    if let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) {
        for operation in paths.values_mut().filter_map(Value::as_object_mut) {
            for details in operation.values_mut() {
                for parameter in details
                    .get_mut("parameters")
                    .and_then(Value::as_array_mut)
                    .into_iter()
                    .flatten()
                {
                    if let Some(schema) = parameter.get_mut("schema") {
                        bound_and_null(schema);
                    }
                }
                if let Some(content) = details
                    .pointer_mut("/requestBody/content")
                    .and_then(Value::as_object_mut)
                {
                    for media in content.values_mut() {
                        if let Some(schema) = media.get_mut("schema") {
                            bound_and_null(schema);
                        }
                    }
                }
            }
        }
    }
}

/// GET, HEAD and DELETE refuse an Idempotency-Key; so they do not declare it.
fn drop_write_headers_from_reads(document: &mut Value) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for operations in paths.values_mut().filter_map(Value::as_object_mut) {
        for (method, details) in operations.iter_mut() {
            if !matches!(method.as_str(), "get" | "head" | "delete") {
                continue;
            }
            if let Some(parameters) = details.get_mut("parameters").and_then(Value::as_array_mut) {
                parameters.retain(|parameter| {
                    !(parameter["in"] == "header"
                        && WRITE_ONLY_HEADERS
                            .iter()
                            .any(|header| parameter["name"] == *header))
                });
            }
        }
    }
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
            let wrapped = object
                .get("allOf")
                .and_then(Value::as_array)
                .filter(|parts| parts.len() == 1)
                .and_then(|parts| parts[0].get("$ref"))
                .and_then(Value::as_str)
                .and_then(|reference| enums.get(reference))
                .cloned();
            if let Some(Value::Object(enum_schema)) = wrapped {
                object.remove("allOf");
                for (key, part) in enum_schema {
                    // The field's own description and default win.
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

/// Gives `schema`, and every schema inside it, the default bounds it lacks,
/// and marks each optional property nullable (the service writes an absent
/// value as `null`, and reads `null` as absent).
fn bound_and_null(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    // poem-openapi calls a calendar date `naive-date`; OpenAPI calls it `date`.
    if object.get("format").and_then(Value::as_str) == Some("naive-date") {
        object.insert("format".to_string(), json!("date"));
    }
    match object.get("type").and_then(Value::as_str) {
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
            if !required.contains(name) {
                make_nullable(property);
            }
            bound_and_null(property);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get_mut(key) {
            bound_and_null(child);
        }
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for part in object
            .get_mut(key)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            bound_and_null(part);
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
mod tests {
    use super::*;

    #[test]
    fn reads_lose_the_idempotency_key_and_writes_keep_it() {
        let header = json!({"name": "Idempotency-Key", "in": "header"});
        let mut document = json!({"paths": {"/carts": {
            "get": {"parameters": [header.clone()]},
            "post": {"parameters": [header.clone()]},
            "delete": {"parameters": [header.clone(), {"name": "id", "in": "query"}]}
        }}});
        tidy(&mut document);
        assert_eq!(document["paths"]["/carts"]["get"]["parameters"], json!([]));
        assert_eq!(
            document["paths"]["/carts"]["post"]["parameters"],
            json!([header])
        );
        assert_eq!(
            document["paths"]["/carts"]["delete"]["parameters"][0]["name"],
            "id"
        );
    }

    #[test]
    fn enum_wrappers_become_plain_enums_and_optional_fields_nullable() {
        let mut document = json!({"components": {"schemas": {
            "Kind": {"type": "string", "enum": ["a", "b"]},
            "Other": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "Thing": {"type": "object", "required": ["kind"], "properties": {
                "kind": {"allOf": [{"$ref": "#/components/schemas/Kind"}], "description": "k"},
                "name": {"type": "string", "maxLength": 20},
                "other": {"$ref": "#/components/schemas/Other"}
            }}
        }}});
        tidy(&mut document);
        let thing = &document["components"]["schemas"]["Thing"]["properties"];
        assert_eq!(
            thing["kind"],
            json!({"type": "string", "enum": ["a", "b"], "description": "k"})
        );
        assert_eq!(thing["name"]["nullable"], true);
        assert_eq!(thing["name"]["maxLength"], 20);
        assert_eq!(thing["name"]["pattern"], PRINTABLE);
        assert_eq!(
            thing["other"],
            json!({"allOf": [{"$ref": "#/components/schemas/Other"}], "nullable": true})
        );
    }
}
