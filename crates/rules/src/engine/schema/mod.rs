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

/// The kinds whose section is required, with it.
const SECTION_OF_KIND: [(&str, &str); 5] = [
    ("discount", "discount"),
    ("points", "points"),
    ("voucher", "voucher"),
    ("coupon", "coupon"),
    ("challenge", "goal"),
];

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
        "properties": sections::top_level(),
        "allOf": SECTION_OF_KIND.iter().map(|(kind, section)| json!({
            "if": { "properties": { "kind": { "const": kind } }, "required": ["kind"] },
            "then": { "required": [section] }
        })).collect::<Vec<_>>(),
        "$defs": sections::definitions(),
    });
    schema["properties"]["kind"] = one_of(
        &CampaignKind::NAMES,
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
