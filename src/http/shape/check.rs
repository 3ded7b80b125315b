//! Checking a JSON value against a schema of the published OpenAPI document:
//! types (strictly: no `false` where a string is expected), required fields,
//! lengths, patterns, ranges, list sizes, enums and the DateTime window. The
//! first mismatch is answered with the field's path, so every refusal names
//! what to fix.

use std::collections::HashMap;

use regex::Regex;
use serde_json::Value;

use crate::common::time::{Timestamp, TimestampRefused};
use crate::http::shape::values::{
    check_free, check_integer, check_number, name, printable, shown, too_many, wrong_type,
};
use crate::http::spec::tidy::{DATE_WINDOW, IDENTIFIER, MULTI_LINE, PRINTABLE};

/// The schemas of one OpenAPI document and its compiled patterns.
#[derive(Debug, Clone, Default)]
pub struct SchemaChecker {
    /// `components.schemas`, by reference (`#/components/schemas/Name`).
    components: HashMap<String, Value>,
    /// Every other `pattern` the document uses, compiled once.
    patterns: HashMap<String, Regex>,
}

impl SchemaChecker {
    /// The checker of `document`.
    pub fn of_document(document: &Value) -> SchemaChecker {
        let components: HashMap<String, Value> = document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .map(|schemas| {
                schemas
                    .iter()
                    .map(|(name, schema)| (format!("#/components/schemas/{name}"), schema.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let mut patterns = HashMap::new();
        collect_patterns(document, &mut patterns);
        SchemaChecker {
            components,
            patterns,
        }
    }

    /// Whether `value` is what `schema` describes; otherwise what is wrong,
    /// naming the field at `path` (empty for the whole body). Its own type
    /// and fields are checked before the rules combining schemas, so that a
    /// wrong field is named rather than a rule it happens to break.
    pub fn check(&self, value: &Value, schema: &Value, path: &str) -> Result<(), String> {
        // A nullable wrapper (`allOf: [$ref]`, `nullable`) takes null before
        // its parts are asked.
        if value.is_null() && schema["nullable"] == true {
            return Ok(());
        }
        let schema = self.resolve(schema);
        self.check_own(value, schema, path)?;
        self.check_combined(value, schema, path)
    }

    /// `allOf`, `anyOf`, `oneOf` and `not`.
    fn check_combined(&self, value: &Value, schema: &Value, path: &str) -> Result<(), String> {
        for part in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.check(value, part, path)?;
        }
        // `anyOf`: at least one option holds; `oneOf`: exactly one. A schema
        // stating its rule in words (`x-rule`) is refused in them.
        for (keyword, exactly_one) in [("anyOf", false), ("oneOf", true)] {
            let Some(options) = schema.get(keyword).and_then(Value::as_array) else {
                continue;
            };
            let outcomes: Vec<Result<(), String>> = options
                .iter()
                .map(|option| self.check(value, option, path))
                .collect();
            let holding = outcomes.iter().filter(|outcome| outcome.is_ok()).count();
            if holding == 0 || (exactly_one && holding > 1) {
                return Err(match schema["x-rule"].as_str() {
                    Some(rule) => rule.to_string(),
                    None => outcomes
                        .into_iter()
                        .find_map(Result::err)
                        .unwrap_or_else(|| {
                            format!("{} holds more than one of its forms", name(path))
                        }),
                });
            }
        }
        if let Some(excluded) = schema.get("not")
            && self.check(value, excluded, path).is_ok()
        {
            return Err(match excluded["description"].as_str() {
                Some(rule) => rule.to_string(),
                None => format!("{} is not taken here", name(path)),
            });
        }
        Ok(())
    }

    /// Null, `enum`, and what the schema's type says.
    fn check_own(&self, value: &Value, schema: &Value, path: &str) -> Result<(), String> {
        if value.is_null() {
            return if schema.get("type").is_none() || schema["nullable"] == true {
                Ok(())
            } else {
                Err(format!("{} must not be null", name(path)))
            };
        }
        if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
            && !allowed.contains(value)
        {
            let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
            return Err(format!(
                "{} must be one of {}, not {}",
                name(path),
                listed.join(", "),
                shown(value)
            ));
        }
        // An untyped option of a rule between fields says only that a list
        // or map is not empty.
        let least = |keyword: &str| schema.get(keyword).and_then(Value::as_u64).unwrap_or(0);
        let size = match value {
            Value::Array(items) if schema.get("type").is_none() => {
                Some((items.len(), least("minItems")))
            }
            Value::Object(fields) if schema.get("type").is_none() => {
                Some((fields.len(), least("minProperties")))
            }
            _ => None,
        };
        if let Some((size, least)) = size
            && (size as u64) < least
        {
            return Err(format!("{} must not be empty", name(path)));
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string") => self.check_string(value, schema, path),
            Some("integer") => check_integer(value, schema, path),
            Some("number") => check_number(value, schema, path),
            Some("boolean") if !value.is_boolean() => Err(wrong_type(path, "true or false", value)),
            Some("array") => self.check_array(value, schema, path),
            Some("object") => self.check_object(value, schema, path),
            Some(_) => Ok(()),
            None => check_free(value, path),
        }
    }

    /// `schema`, or the component it refers to.
    pub fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        let mut schema = schema;
        // A reference to a reference is followed a few times, never forever.
        for _ in 0..4 {
            match schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| self.components.get(reference))
            {
                Some(target) => schema = target,
                None => break,
            }
        }
        schema
    }

    fn check_string(&self, value: &Value, schema: &Value, path: &str) -> Result<(), String> {
        let Value::String(text) = value else {
            return Err(wrong_type(path, "a string", value));
        };
        let length = text.chars().count() as u64;
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
            && length > max
        {
            return Err(too_many(path, length, "characters", max));
        }
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
            && length < min
        {
            if length == 0 {
                return Err(format!("{} must not be blank", name(path)));
            }
            return Err(format!(
                "{} must have at least {min} character{}",
                name(path),
                if min == 1 { "" } else { "s" }
            ));
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            let matches = match pattern {
                // The window itself is checked below, with a clearer message.
                DATE_WINDOW => true,
                PRINTABLE => text.chars().all(|c| printable(c, false)),
                IDENTIFIER => {
                    text.chars().all(|c| printable(c, false))
                        && text.chars().any(|c| !c.is_whitespace())
                }
                MULTI_LINE => text.chars().all(|c| printable(c, true)),
                other => self
                    .patterns
                    .get(other)
                    .is_none_or(|regex| regex.is_match(text)),
            };
            if !matches {
                return Err(match pattern {
                    IDENTIFIER if text.chars().all(char::is_whitespace) => {
                        format!("{} must not be blank", name(path))
                    }
                    PRINTABLE | MULTI_LINE | IDENTIFIER => format!(
                        "{} contains a control, invisible or direction-override character (U+{:04X})",
                        name(path),
                        text.chars()
                            .find(|&c| !printable(c, pattern == MULTI_LINE))
                            .map_or(0, u32::from)
                    ),
                    other => format!("{} must match `{other}`", name(path)),
                });
            }
        }
        if schema["format"] == "date-time" {
            let at: Timestamp = text.parse().map_err(|refused| match refused {
                TimestampRefused::NotADateTime => format!(
                    "{} must be a DateTime such as 2026-05-01T10:00:00Z, not {}",
                    name(path),
                    shown(value)
                ),
                other => format!("{} {}: {other}", name(path), shown(value)),
            })?;
            if !at.is_in_window() {
                return Err(format!(
                    "{} {at} is outside the accepted dates, {} to {}",
                    name(path),
                    Timestamp::EARLIEST,
                    Timestamp::LATEST
                ));
            }
        }
        if schema["format"] == "date" {
            let date = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
                format!(
                    "{} must be a date such as 1990-05-01, not {}",
                    name(path),
                    shown(value)
                )
            })?;
            let midnight: Timestamp = date
                .and_hms_opt(0, 0, 0)
                .unwrap_or_default()
                .and_utc()
                .into();
            if !midnight.is_in_window() {
                return Err(format!(
                    "{} {date} is outside the accepted dates, {} to {}",
                    name(path),
                    &Timestamp::EARLIEST[..10],
                    &Timestamp::LATEST[..10]
                ));
            }
        }
        Ok(())
    }

    fn check_array(&self, value: &Value, schema: &Value, path: &str) -> Result<(), String> {
        let Value::Array(items) = value else {
            return Err(wrong_type(path, "a list", value));
        };
        let count = items.len() as u64;
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
            && count > max
        {
            return Err(too_many(path, count, "items", max));
        }
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
            && count < min
        {
            return Err(format!(
                "{} needs at least {min} item{}",
                name(path),
                if min == 1 { "" } else { "s" }
            ));
        }
        if let Some(item_schema) = schema.get("items") {
            for (index, item) in items.iter().enumerate() {
                self.check(item, item_schema, &format!("{path}[{index}]"))?;
            }
        }
        Ok(())
    }

    fn check_object(&self, value: &Value, schema: &Value, path: &str) -> Result<(), String> {
        let Value::Object(object) = value else {
            return Err(wrong_type(path, "an object", value));
        };
        let field = |key: &str| {
            if path.is_empty() {
                key.to_string()
            } else {
                format!("{path}.{key}")
            }
        };
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(required) {
                return Err(format!("{} is required", name(&field(required))));
            }
        }
        let count = object.len() as u64;
        if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64)
            && count > max
        {
            return Err(too_many(path, count, "entries", max));
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let additional = schema
            .get("additionalProperties")
            .filter(|additional| additional.is_object());
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        for (key, item) in object {
            match properties.and_then(|properties| properties.get(key)) {
                Some(property) => self.check(item, property, &field(key))?,
                None => {
                    if let Some(additional) = additional {
                        self.check(item, additional, &field(key))?;
                    } else if closed {
                        return Err(format!(
                            "{} is not a field of this object",
                            name(&field(key))
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

fn collect_patterns(value: &Value, patterns: &mut HashMap<String, Regex>) {
    match value {
        Value::Object(object) => {
            if let Some(pattern) = object.get("pattern").and_then(Value::as_str)
                && !matches!(pattern, PRINTABLE | MULTI_LINE | IDENTIFIER | DATE_WINDOW)
                && !patterns.contains_key(pattern)
                && let Ok(regex) = Regex::new(pattern)
            {
                patterns.insert(pattern.to_string(), regex);
            }
            for child in object.values() {
                collect_patterns(child, patterns);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| collect_patterns(item, patterns)),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
