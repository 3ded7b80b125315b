//! Partial matching: a scenario states only what it cares about.
//!
//! - An expected object matches an actual object having at least its keys,
//!   each matching (`null` matches an absent key).
//! - An expected array matches an actual array of the same length whose
//!   elements match in order.
//! - `{ contains: [...] }` matches an actual array holding, in any order, a
//!   different element matching each one listed (other campaigns' effects
//!   may come and go); `{ contains: "text" }` an actual text holding it.
//! - An object keyed by rule ids (`{ 102: { applied: false } }`) matches an
//!   actual array of explanations or effects picked by their `rule_id`.
//! - Any other value must be equal (numbers by value: `1` matches `1.0`).
//!
//! Every difference is named by its JSON path, so a failed step says only
//! what differed.

use serde_json::Value;

/// Most differences one comparison names.
const MAX_DIFFERENCES: usize = 20;

/// Longest a value is shown in a difference, in characters.
const MAX_SHOWN: usize = 200;

/// The first place `actual` differs from `expected`: the JSON path and what
/// was found; `None` when it matches.
pub fn mismatch(expected: &Value, actual: &Value) -> Option<String> {
    differences(expected, actual).into_iter().next()
}

/// Every place `actual` differs from `expected` (the first
/// [`MAX_DIFFERENCES`]), each a JSON path and what was found there.
pub fn differences(expected: &Value, actual: &Value) -> Vec<String> {
    let mut found = Vec::new();
    compare("", expected, actual, &mut found);
    found
}

fn compare(path: &str, expected: &Value, actual: &Value, found: &mut Vec<String>) {
    if found.len() >= MAX_DIFFERENCES {
        return;
    }
    let here = if path.is_empty() { "the body" } else { path };
    match (expected, actual) {
        (Value::Object(wanted), _) if contains(wanted).is_some() && !actual.is_object() => {
            contained(
                path,
                contains(wanted).unwrap_or(&Value::Null),
                actual,
                found,
            );
        }
        (Value::Object(wanted), Value::Array(items)) if by_rule_id(wanted) => {
            for (rule, value) in wanted {
                let picked = items.iter().position(|item| {
                    item.get("rule_id").map(Value::to_string).as_deref() == Some(rule)
                });
                match picked {
                    Some(index) => {
                        compare(&format!("{path}[{index}]"), value, &items[index], found)
                    }
                    None => found.push(format!("{here} has no element with rule_id {rule}")),
                }
            }
        }
        (Value::Object(wanted), Value::Object(actual)) => {
            for (key, value) in wanted {
                let path = format!("{path}.{key}");
                match actual.get(key) {
                    Some(got) => compare(&path, value, got, found),
                    None if value.is_null() => {}
                    None => found.push(format!("{path} is missing")),
                }
            }
        }
        (Value::Array(wanted), Value::Array(items)) => {
            if wanted.len() != items.len() {
                found.push(format!(
                    "{here} has {} elements, not {}",
                    items.len(),
                    wanted.len()
                ));
                return;
            }
            for (index, (e, a)) in wanted.iter().zip(items).enumerate() {
                compare(&format!("{path}[{index}]"), e, a, found);
            }
        }
        (Value::Number(e), Value::Number(a)) => {
            let equal = match (e.as_f64(), a.as_f64()) {
                (Some(e), Some(a)) => (e - a).abs() < 1e-9,
                _ => e == a,
            };
            if !equal {
                found.push(format!("{here} is {a}, not {e}"));
            }
        }
        (expected, actual) if expected == actual => {}
        (expected, actual) => found.push(format!(
            "{here} is {}, not {}",
            shown(actual),
            shown(expected)
        )),
    }
}

/// What `{ contains: ... }` asks for, when `wanted` is exactly that.
fn contains(wanted: &serde_json::Map<String, Value>) -> Option<&Value> {
    (wanted.len() == 1)
        .then(|| wanted.get("contains"))
        .flatten()
}

/// Whether every key of `wanted` is a rule id.
fn by_rule_id(wanted: &serde_json::Map<String, Value>) -> bool {
    !wanted.is_empty() && wanted.keys().all(|key| key.parse::<i64>().is_ok())
}

/// `{ contains: wanted }` against `actual`: a text within a text, or each
/// listed element matched by a different element of an array.
fn contained(path: &str, wanted: &Value, actual: &Value, found: &mut Vec<String>) {
    let here = if path.is_empty() { "the body" } else { path };
    match (wanted, actual) {
        (Value::String(part), Value::String(text)) => {
            if !text.contains(part.as_str()) {
                found.push(format!(
                    "{here} is {}, which does not contain {}",
                    shown(actual),
                    shown(wanted)
                ));
            }
        }
        (Value::Array(wanted), Value::Array(items)) => {
            let mut taken = vec![false; items.len()];
            for element in wanted {
                let matching = items.iter().enumerate().position(|(index, item)| {
                    !taken[index] && differences(element, item).is_empty()
                });
                if let Some(index) = matching {
                    taken[index] = true;
                    continue;
                }
                // The element of the same campaign, when there is one, says how it differs.
                let same_rule = element.get("rule_id").and_then(|rule| {
                    items.iter().enumerate().position(|(index, item)| {
                        !taken[index] && item.get("rule_id") == Some(rule)
                    })
                });
                match same_rule {
                    Some(index) => {
                        compare(&format!("{path}[{index}]"), element, &items[index], found)
                    }
                    None => {
                        found.push(format!("{here} has no element matching {}", shown(element)))
                    }
                }
            }
        }
        _ => found.push(format!(
            "{here} is {}, which cannot contain {}",
            shown(actual),
            shown(wanted)
        )),
    }
}

/// `value` as JSON, cut when long.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= MAX_SHOWN {
        return text;
    }
    let cut: String = text.chars().take(MAX_SHOWN).collect();
    format!("{cut}…")
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

    #[test]
    fn contains_matches_a_subset_in_any_order_and_a_text_within_a_text() {
        let actual = json!({"effects": [
            {"type": "points", "rule_id": 1, "points": 10},
            {"type": "discount", "rule_id": 2, "value": 2.0},
            {"type": "points", "rule_id": 3, "points": 5}
        ], "reason": "for tiers gold only, and the Customer is member; gold: ..."});
        let subset =
            json!({"effects": {"contains": [{"rule_id": 3, "points": 5}, {"rule_id": 1}]}});
        assert_eq!(mismatch(&subset, &actual), None);
        let text = json!({"reason": {"contains": "for tiers gold only"}});
        assert_eq!(mismatch(&text, &actual), None);
        // The same element cannot match twice.
        let twice = json!({"effects": {"contains": [{"rule_id": 1}, {"rule_id": 1}]}});
        assert_eq!(
            mismatch(&twice, &actual).as_deref(),
            Some(r#".effects has no element matching {"rule_id":1}"#)
        );
        // The campaign's own element says how it differs.
        let wrong = json!({"effects": {"contains": [{"rule_id": 3, "points": 6}]}});
        assert_eq!(
            mismatch(&wrong, &actual).as_deref(),
            Some(".effects[2].points is 5, not 6")
        );
        let missing = json!({"reason": {"contains": "silver"}});
        assert!(
            mismatch(&missing, &actual)
                .unwrap()
                .contains("which does not contain \"silver\""),
        );
    }

    #[test]
    fn explanations_are_picked_by_rule_id_and_every_difference_is_named() {
        let actual = json!({"explanations": [
            {"rule_id": 1, "applied": true},
            {"rule_id": 2, "applied": false, "reason": "inactive"}
        ], "cart": {"total": 5, "points_earned": 3}});
        let picked = json!({"explanations": {"2": {"applied": false}}});
        assert_eq!(mismatch(&picked, &actual), None);
        let wrong = json!({
            "explanations": {"2": {"applied": true}, "7": {"applied": true}},
            "cart": {"total": 6, "points_earned": 4}
        });
        assert_eq!(
            differences(&wrong, &actual),
            [
                ".cart.points_earned is 3, not 4",
                ".cart.total is 5, not 6",
                ".explanations[1].applied is false, not true",
                ".explanations has no element with rule_id 7",
            ]
        );
    }
}
