//! The last pass over the published document: the shapes client generators
//! read without loss (orval, @hey-api/openapi-ts, openapi-python-client).
//!
//! - Media types are keyed `application/json`: generators look the key up
//!   exactly, and one keyed `application/json; charset=utf-8` gets no
//!   validator at all. The service still answers with the charset.
//! - A field that is another schema is a plain `$ref`. poem-openapi writes
//!   `allOf: [{$ref}, {description}]` to document the field, which
//!   generators turn into an intersection they cannot merge. A field that
//!   may be `null` keeps a one-member `allOf` beside `nullable`, the only
//!   way OpenAPI 3.0 says "this schema or null".

use serde_json::{Map, Value, json};

/// The media type every JSON body and answer is published under.
const JSON_MEDIA_TYPE: &str = "application/json";

/// Applies both rewrites to `document`.
pub fn shape_for_generators(document: &mut Value) {
    plain_json_media_types(document);
    unwrap_described_references(document);
}

/// Renames every `application/json; ...` content key to `application/json`.
fn plain_json_media_types(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::Object(content)) = object.get_mut("content") {
                let keys: Vec<String> = content.keys().cloned().collect();
                for key in keys {
                    if key != JSON_MEDIA_TYPE
                        && key.starts_with(JSON_MEDIA_TYPE)
                        && let Some(media) = content.remove(&key)
                    {
                        content.insert(JSON_MEDIA_TYPE.to_string(), media);
                    }
                }
            }
            object.values_mut().for_each(plain_json_media_types);
        }
        Value::Array(items) => items.iter_mut().for_each(plain_json_media_types),
        _ => {}
    }
}

/// Rewrites `{allOf: [{$ref}, {description}], ...}` as a plain `{$ref}`, or
/// as `{allOf: [{$ref}], nullable: true, description}` when null is allowed.
fn unwrap_described_references(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(reference) = described_reference(object) {
                if object.get("nullable") == Some(&Value::Bool(true)) {
                    object.insert("allOf".into(), json!([{ "$ref": reference }]));
                } else {
                    *object = Map::from_iter([("$ref".to_string(), json!(reference))]);
                }
                return;
            }
            object.values_mut().for_each(unwrap_described_references);
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_described_references),
        _ => {}
    }
}

/// The reference of a schema that is only an `allOf` of one `$ref` and
/// members carrying nothing but a description, with at most a
/// description and `nullable` beside it.
fn described_reference(object: &Map<String, Value>) -> Option<String> {
    if object
        .keys()
        .any(|key| !["allOf", "description", "nullable"].contains(&key.as_str()))
    {
        return None;
    }
    let members = object.get("allOf")?.as_array()?;
    let mut references = members.iter().filter_map(|member| member.get("$ref"));
    let reference = references.next()?.as_str()?.to_string();
    let only_descriptions = members.iter().all(|member| {
        member.get("$ref").is_some()
            || member
                .as_object()
                .is_some_and(|m| m.keys().all(|key| key == "description"))
    });
    (references.next().is_none() && only_descriptions).then_some(reference)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_are_plain_and_described_references_unwrapped() {
        let mut document = json!({
            "paths": {"/x": {"post": {
                "requestBody": {"content": {"application/json; charset=utf-8": {
                    "schema": {"$ref": "#/components/schemas/A"}}}},
            }}},
            "components": {"schemas": {"A": {"type": "object", "properties": {
                "b": {"allOf": [{"$ref": "#/components/schemas/B"}, {"description": "the b"}],
                      "description": "the b"},
                "c": {"allOf": [{"$ref": "#/components/schemas/B"}, {"description": "or none"}],
                      "description": "or none", "nullable": true},
                "d": {"allOf": [{"type": "object"}, {"$ref": "#/components/schemas/B"}]},
            }}}},
        });
        shape_for_generators(&mut document);
        let content = &document["paths"]["/x"]["post"]["requestBody"]["content"];
        assert_eq!(
            content.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["application/json"]
        );
        let properties = &document["components"]["schemas"]["A"]["properties"];
        assert_eq!(properties["b"], json!({"$ref": "#/components/schemas/B"}));
        assert_eq!(
            properties["c"],
            json!({"allOf": [{"$ref": "#/components/schemas/B"}],
                   "description": "or none", "nullable": true})
        );
        assert_eq!(properties["d"]["allOf"].as_array().unwrap().len(), 2);
    }
}
