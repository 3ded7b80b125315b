//! Partial matching: a scenario states only what it cares about. An expected
//! object matches an actual object having at least its keys, each matching;
//! an expected array matches an actual array of the same length whose
//! elements match in order; any other value must be equal (numbers by value,
//! so `1` matches `1.0`).

use serde_json::Value;

/// Where `actual` differs from `expected`: the JSON path and what was found;
/// `None` when it matches.
pub fn mismatch(expected: &Value, actual: &Value) -> Option<String> {
    mismatch_at("", expected, actual)
}

fn mismatch_at(path: &str, expected: &Value, actual: &Value) -> Option<String> {
    let here = if path.is_empty() { "the body" } else { path };
    match (expected, actual) {
        (Value::Object(expected), Value::Object(actual)) => {
            expected.iter().find_map(|(key, value)| {
                let path = format!("{path}.{key}");
                match actual.get(key) {
                    Some(found) => mismatch_at(&path, value, found),
                    None if value.is_null() => None,
                    None => Some(format!("{path} is missing")),
                }
            })
        }
        (Value::Array(expected), Value::Array(actual)) => {
            if expected.len() != actual.len() {
                return Some(format!(
                    "{here} has {} elements, not {}",
                    actual.len(),
                    expected.len()
                ));
            }
            expected
                .iter()
                .zip(actual)
                .enumerate()
                .find_map(|(index, (e, a))| mismatch_at(&format!("{path}[{index}]"), e, a))
        }
        (Value::Number(e), Value::Number(a)) => {
            let equal = match (e.as_f64(), a.as_f64()) {
                (Some(e), Some(a)) => (e - a).abs() < 1e-9,
                _ => e == a,
            };
            (!equal).then(|| format!("{here} is {a}, not {e}"))
        }
        (expected, actual) if expected == actual => None,
        (expected, actual) => Some(format!("{here} is {actual}, not {expected}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_match_on_the_keys_stated() {
        let actual = json!({"effects": [{"rule_id": 101, "value": 0.36, "type": "discount"}], "cart": {"total": 5}});
        assert_eq!(
            mismatch(&json!({"effects": [{"rule_id": 101}]}), &actual),
            None
        );
        assert_eq!(mismatch(&json!({"cart": {"total": 5.0}}), &actual), None);
        assert_eq!(
            mismatch(&json!({"effects": [{"value": 0.5}]}), &actual).as_deref(),
            Some(".effects[0].value is 0.36, not 0.5")
        );
        assert_eq!(
            mismatch(&json!({"effects": []}), &actual).as_deref(),
            Some(".effects has 1 elements, not 0")
        );
        assert_eq!(
            mismatch(&json!({"explanations": [1]}), &actual).as_deref(),
            Some(".explanations is missing")
        );
        assert_eq!(
            mismatch(&json!({"prize_name": null}), &actual),
            None,
            "null: absent"
        );
    }
}
