//! The JSON Schema of campaign files (`loyalty campaigns schema`, shipped as
//! `campaigns/campaign.schema.json`): every kind, key, enumerated value and
//! a description of each, so a YAML editor checks and completes a file as
//! it is typed. The loader stays the judge (conditions, tiers, references
//! are checked when the files load); the tests keep the schema's keys the
//! loader's, section by section.

mod sections;
#[cfg(test)]
mod tests;

use serde_json::{Value, json};

use crate::engine::kinds::CampaignKind;

/// Where the schema is shipped, from the repository's root.
pub const SHIPPED_AT: &str = "campaigns/campaign.schema.json";

/// A string key with `description`.
pub fn text(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

/// A whole number key with `description`, at least `minimum`.
pub fn whole(description: &str, minimum: i64) -> Value {
    json!({ "type": "integer", "minimum": minimum, "description": description })
}

/// A list of strings with `description`.
pub fn strings(description: &str) -> Value {
    json!({ "type": "array", "items": { "type": "string" }, "description": description })
}

/// One of `values`, with `description`.
pub fn one_of(values: &[&str], description: &str) -> Value {
    json!({ "type": "string", "enum": values, "description": description })
}

/// A number, or a rhai expression worked out for each cart (line).
pub fn figure(description: &str) -> Value {
    json!({
        "description": description,
        "anyOf": [
            { "type": "number", "exclusiveMinimum": 0 },
            { "type": "string", "description": "A rhai expression, worked out exactly in decimals." }
        ]
    })
}

/// A reference to the definition `name`, with `description`.
pub fn def(name: &str, description: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}"), "description": description })
}

/// The periods limits, participations and Challenges are counted over.
pub const PERIODS: [&str; 5] = ["day", "week", "month", "year", "campaign"];

/// The keys at the top of a campaign file: every campaign's, then each
/// kind's ([`crate::engine::kinds::KindDefinition::schema`]).
fn top_level() -> serde_json::Map<String, Value> {
    let mut keys = sections::top_level();
    for definition in CampaignKind::DEFINITIONS {
        for (key, schema) in (definition.schema)() {
            keys.insert(key.to_string(), schema);
        }
    }
    keys
}

/// The schema of one campaign file.
pub fn campaign_schema() -> Value {
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://loyalty.example/campaign.schema.json",
        "title": "loyalty campaign file",
        "description": "One campaign of a Company: campaigns/<company>/campaigns/*.yaml. See campaigns/README.md.",
        "type": "object",
        "additionalProperties": false,
        "required": ["id", "kind", "name"],
        "properties": top_level(),
        "allOf": CampaignKind::NAMES.iter().zip(CampaignKind::DEFINITIONS).filter_map(|(kind, definition)| {
            let section = definition.required?;
            Some(json!({
                "if": { "properties": { "kind": { "const": kind } }, "required": ["kind"] },
                "then": { "required": [section] }
            }))
        }).collect::<Vec<_>>(),
        "$defs": sections::definitions(),
    });
    schema["properties"]["kind"] = one_of(
        CampaignKind::NAMES,
        "What the campaign does; its section (discount:, points:, ...) goes with it.",
    );
    schema
}

/// The schema as shipped: pretty JSON with a final newline.
pub fn campaign_schema_text() -> String {
    let mut text =
        serde_json::to_string_pretty(&campaign_schema()).unwrap_or_else(|_| String::from("{}"));
    text.push('\n');
    text
}
