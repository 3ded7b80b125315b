//! The leaves of the request check: numbers and their ranges, free data,
//! which characters text may hold, and how a mismatch is worded.

use serde_json::Value;

use crate::http::spec::tidy::{DEFAULT_MAX_ITEMS, DEFAULT_MAX_LENGTH, DEFAULT_MAX_PROPERTIES};
#[cfg(doc)]
use crate::http::spec::tidy::{MULTI_LINE, PRINTABLE};

/// Free data (a schema without a type, e.g. a Custom Event's `data`): any
/// JSON, within the default sizes: text of at most [`DEFAULT_MAX_LENGTH`]
/// characters, lists of at most [`DEFAULT_MAX_ITEMS`], objects of at most
/// [`DEFAULT_MAX_PROPERTIES`] entries. Its text is kept as sent (JSON escapes
/// every character on the way out), so no character is refused.
pub(super) fn check_free(value: &Value, path: &str) -> Result<(), String> {
    let within = |count: usize, what: &str, most: u64| {
        let count = count as u64;
        if count > most {
            Err(too_many(path, count, what, most))
        } else {
            Ok(())
        }
    };
    match value {
        Value::String(text) => within(text.chars().count(), "characters", DEFAULT_MAX_LENGTH),
        Value::Array(items) => {
            within(items.len(), "items", DEFAULT_MAX_ITEMS)?;
            items
                .iter()
                .enumerate()
                .try_for_each(|(index, item)| check_free(item, &format!("{path}[{index}]")))
        }
        Value::Object(object) => {
            within(object.len(), "entries", DEFAULT_MAX_PROPERTIES)?;
            object.iter().try_for_each(|(key, item)| {
                let field = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                check_free(item, &field)
            })
        }
        _ => Ok(()),
    }
}

pub(super) fn check_integer(value: &Value, schema: &Value, path: &str) -> Result<(), String> {
    let Value::Number(number) = value else {
        return Err(wrong_type(path, "a whole number", value));
    };
    if !(number.is_i64() || number.is_u64()) {
        return Err(wrong_type(path, "a whole number", value));
    }
    let (low, high) = match schema["format"].as_str() {
        Some("int32") => (i32::MIN as f64, i32::MAX as f64),
        Some("uint32") => (0.0, u32::MAX as f64),
        Some("uint64") => (0.0, u64::MAX as f64),
        _ => (i64::MIN as f64, i64::MAX as f64),
    };
    let as_float = number.as_f64().unwrap_or_default();
    if number.as_i64().is_none() && schema["format"] != "uint64"
        || as_float < low
        || as_float > high
    {
        return Err(format!("{} {number} is out of range", name(path)));
    }
    check_range(as_float, schema, path)
}

pub(super) fn check_number(value: &Value, schema: &Value, path: &str) -> Result<(), String> {
    let Some(number) = value.as_f64() else {
        return Err(wrong_type(path, "a number", value));
    };
    check_range(number, schema, path)
}

pub(super) fn check_range(number: f64, schema: &Value, path: &str) -> Result<(), String> {
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        let exclusive = schema["exclusiveMinimum"] == true;
        if number < min || (exclusive && number == min) {
            let bound = if exclusive { "more than" } else { "at least" };
            return Err(format!(
                "{} must be {bound} {min}, not {number}",
                name(path)
            ));
        }
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
        let exclusive = schema["exclusiveMaximum"] == true;
        if number > max || (exclusive && number == max) {
            let bound = if exclusive { "less than" } else { "at most" };
            return Err(format!(
                "{} must be {bound} {max}, not {number}",
                name(path)
            ));
        }
    }
    Ok(())
}

/// Whether `c` may appear in text ([`PRINTABLE`], or [`MULTI_LINE`] when
/// `lines` is true).
pub(super) fn printable(c: char, lines: bool) -> bool {
    match c {
        '\t' | '\n' | '\r' => lines,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => false,
        // The hyphenation point goes with the separators and overrides
        // beside it (see `tidy::PRINTABLE`), and a byte-order mark inside
        // text is debris.
        '\u{2027}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}' => false,
        _ => true,
    }
}

/// `path` holds `count` `things` where `max` are accepted.
pub(super) fn too_many(path: &str, count: u64, things: &str, max: u64) -> String {
    format!(
        "{} has {count} {things}; at most {max} are accepted",
        name(path)
    )
}

/// How a field is named in a message.
pub(super) fn name(path: &str) -> String {
    if path.is_empty() {
        "the body".to_string()
    } else {
        format!("`{path}`")
    }
}

pub(super) fn wrong_type(path: &str, expected: &str, value: &Value) -> String {
    format!("{} must be {expected}, not {}", name(path), shown(value))
}

/// `value` as JSON, cut short when long.
pub(super) fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
