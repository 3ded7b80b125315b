//! The shipped JSON Schema of campaign files is what `loyalty campaigns
//! schema` prints, and every campaign the repository ships (the demo
//! Company's files, the scenarios' inline ones) is valid by it, while a
//! typo is not.

use std::path::{Path, PathBuf};

use loyalty::engine::schema::{SHIPPED_AT, campaign_schema, campaign_schema_text};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_shipped_schema_is_the_one_the_command_prints() {
    let shipped = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(SHIPPED_AT))
        .unwrap_or_default();
    assert!(
        shipped == campaign_schema_text(),
        "{SHIPPED_AT} is out of date: run `loyalty campaigns schema > {SHIPPED_AT}`"
    );
}

/// What is wrong with `value` by `schema` (the parts of JSON Schema the
/// campaign schema uses: `$ref`, `type`, `enum`, `const`, `properties`,
/// `additionalProperties`, `required`, `items`, `anyOf`).
fn violations(root: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut found = Vec::new();
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let target = root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or(&Value::Null);
        return violations(root, target, value, at);
    }
    if let Some(alternatives) = schema.get("anyOf").and_then(Value::as_array)
        && !alternatives
            .iter()
            .any(|alternative| violations(root, alternative, value, at).is_empty())
    {
        found.push(format!("{at}: matches none of its forms"));
    }
    let type_fits = match schema.get("type").and_then(Value::as_str) {
        Some("string") => value.is_string(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        Some("array") => value.is_array(),
        Some("object") => value.is_object(),
        _ => true,
    };
    if !type_fits {
        found.push(format!("{at}: {value} is not {}", schema["type"]));
        return found;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        found.push(format!("{at}: {value} is not one of {allowed:?}"));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        found.push(format!("{at}: {value} is not {constant}"));
    }
    if let (Some(items), Some(values)) = (schema.get("items"), value.as_array()) {
        for (index, item) in values.iter().enumerate() {
            found.extend(violations(root, items, item, &format!("{at}[{index}]")));
        }
    }
    if let Some(fields) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, field) in fields {
            match properties.and_then(|properties| properties.get(key)) {
                Some(property) => {
                    found.extend(violations(root, property, field, &format!("{at}.{key}")));
                }
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => found.push(format!("{at}: unknown key `{key}`")),
                    Some(more @ Value::Object(_)) => {
                        found.extend(violations(root, more, field, &format!("{at}.{key}")));
                    }
                    _ => {}
                },
            }
        }
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(key) = required.as_str()
                && !fields.contains_key(key)
            {
                found.push(format!("{at}: `{key}` is missing"));
            }
        }
    }
    found
}

/// Every campaign of the repository: the demo Company's files and the
/// scenarios' inline ones.
fn shipped_campaigns() -> Vec<(String, Value)> {
    let mut campaigns = Vec::new();
    let read = |path: &std::path::Path| -> Value {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        serde_yaml::from_str(&text).unwrap_or(Value::Null)
    };
    for entry in std::fs::read_dir(root().join("campaigns/demo/campaigns"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let path = entry.path();
        campaigns.push((path.display().to_string(), read(&path)));
    }
    for folder in ["scenarios/demo", "scenarios/inline", "scenarios/errors"] {
        for entry in std::fs::read_dir(root().join(folder))
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            let scenario = read(&path);
            for (name, campaign) in scenario["campaigns"].as_object().into_iter().flatten() {
                if name != "segments.yaml" && name != "cashback.yaml" {
                    campaigns.push((format!("{}: {name}", path.display()), campaign.clone()));
                }
            }
        }
    }
    campaigns
}

#[test]
fn every_shipped_campaign_is_valid_by_the_schema_and_a_typo_is_not() {
    let schema = campaign_schema();
    let campaigns = shipped_campaigns();
    assert!(campaigns.len() >= 30, "{} campaigns found", campaigns.len());
    for (name, campaign) in &campaigns {
        let found = violations(&schema, &schema, campaign, "");
        assert!(found.is_empty(), "{name}: {found:?}");
    }
    let typo: Value = serde_yaml::from_str(
        "id: 1\nkind: discount\nname: X\non: cart\ndiscount: { applies_to: every_nth, nth: 3, percnt: 5 }\nhours: 8-12\n",
    )
    .unwrap();
    let found = violations(&schema, &schema, &typo, "");
    assert!(
        found.iter().any(|f| f.contains("unknown key `percnt`")),
        "{found:?}"
    );
    let wrong_kind: Value = serde_yaml::from_str("id: 1\nkind: discout\nname: X\n").unwrap();
    assert!(!violations(&schema, &schema, &wrong_kind, "").is_empty());
}
