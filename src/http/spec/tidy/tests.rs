use super::*;

#[test]
fn reads_lose_the_idempotency_key_and_writes_keep_it() {
    let header = json!({"name": "IDEMPOTENCY-KEY", "in": "header"});
    let mut document = json!({"paths": {"/carts": {
        "get": {"parameters": [header.clone()]},
        "post": {"parameters": [header.clone()]},
        "delete": {"parameters": [header.clone(), {"name": "id", "in": "query"}]}
    }}});
    tidy(&mut document);
    assert_eq!(document["paths"]["/carts"]["get"]["parameters"], json!([]));
    let kept = &document["paths"]["/carts"]["post"]["parameters"][0];
    assert_eq!(kept["name"], "Idempotency-Key");
    assert_eq!(kept["schema"]["maxLength"], 255);
    assert_eq!(
        document["paths"]["/carts"]["delete"]["parameters"][0]["name"],
        "id"
    );
}

#[test]
fn enum_wrappers_become_plain_enums_and_optional_fields_nullable() {
    let mut document = json!({
        "paths": {"/things": {"post": {"requestBody": {"content": {"application/json":
            {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}},
        "components": {"schemas": {
        "Kind": {"type": "string", "enum": ["a", "b"]},
        "Other": {"type": "object", "properties": {"x": {"type": "integer"}}},
        "Thing": {"type": "object", "required": ["kind"], "properties": {
            "kind": {"allOf": [{"$ref": "#/components/schemas/Kind"}], "description": "k"},
            "name": {"type": "string", "maxLength": 20},
            "other": {"$ref": "#/components/schemas/Other"}
        }},
        "Answer": {"type": "object", "properties": {"text": {"type": "string"}}}
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
    // Answers carry no bounds: an error message may quote any input.
    assert_eq!(
        document["components"]["schemas"]["Answer"]["properties"]["text"],
        json!({"type": "string", "nullable": true})
    );
}
