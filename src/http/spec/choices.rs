//! Rules between fields of a schema ("exactly one of `percent` and
//! `amount`", "not both"), written into the spec as `oneOf` and `not`, so that
//! generated clients and validators know what the service keeps.

use serde_json::{Value, json};

/// How many of a [`Choice`]'s fields a value gives (not null, not empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HowMany {
    /// `oneOf`: exactly one.
    Exactly,
    /// `not` two together.
    AtMost,
}

/// A rule between fields of a schema that the service keeps ("exactly one
/// of `percent` and `amount`"), stated so that generated clients and
/// validators know it: (schema, how many, each field with what counts as
/// giving it, the rule in the service's words).
struct Choice {
    schema: &'static str,
    many: HowMany,
    fields: &'static [(&'static str, Given)],
    rule: &'static str,
}

/// What counts as giving a field: a value of its type (not null), or a
/// list with something in it.
#[derive(Debug, Clone, Copy)]
enum Given {
    Number,
    Text,
    List,
}

impl Given {
    /// The field's schema in an option: a type refuses null; a list (never
    /// null) only says it is not empty, since generators make a model of
    /// every typed array they meet in an option.
    fn schema(self) -> Value {
        match self {
            Given::Number => json!({"type": "number"}),
            Given::Text => json!({"type": "string"}),
            Given::List => json!({"minItems": 1}),
        }
    }
}

/// A points campaign's `points` (at least one way to earn, at most one
/// expiry) is not among them: schemathesis, which CI runs, then takes the
/// null of its nullable fields for a wrong type and expects a refusal. Its
/// description states the rules, and the service keeps them.
const CHOICES: [Choice; 4] = [
    Choice {
        schema: "VoucherRollback",
        many: HowMany::Exactly,
        fields: &[("codes", Given::List), ("redemption_ids", Given::List)],
        rule: "name what to roll back: `codes` or `redemption_ids`, one of them",
    },
    Choice {
        schema: "VoucherDiscount",
        many: HowMany::Exactly,
        fields: &[("percent", Given::Number), ("amount", Given::Number)],
        rule: "a discount has exactly one of `percent` and `amount`",
    },
    Choice {
        schema: "CouponSpec",
        many: HowMany::AtMost,
        fields: &[("static_code", Given::Text), ("code_pattern", Given::Text)],
        rule: "a Coupon has one `static_code` or unique codes from `code_pattern`, not both",
    },
    Choice {
        schema: "DiscountRules",
        many: HowMany::AtMost,
        fields: &[
            ("percent", Given::Number),
            ("amount", Given::Number),
            ("price", Given::Number),
        ],
        rule: "a discount has one of `percent`, `amount` and `price`, not two",
    },
];

/// Writes each of [`CHOICES`] into its schema: `oneOf` of the fields each
/// given, or `not` any two given together.
pub(crate) fn state_choices(document: &mut Value) {
    for choice in &CHOICES {
        let Some(schema) = document
            .pointer_mut(&format!("/components/schemas/{}", choice.schema))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        let given = |names: &[(&str, Given)]| {
            let properties: serde_json::Map<String, Value> = names
                .iter()
                .map(|(name, given)| (name.to_string(), given.schema()))
                .collect();
            let required: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
            json!({"type": "object", "required": required, "properties": properties})
        };
        let each: Vec<Value> = choice.fields.iter().map(|field| given(&[*field])).collect();
        let rule = match choice.many {
            HowMany::Exactly => json!({"oneOf": each}),
            HowMany::AtMost => {
                let pairs: Vec<Value> = choice
                    .fields
                    .iter()
                    .enumerate()
                    .flat_map(|(index, first)| {
                        choice.fields[index + 1..]
                            .iter()
                            .map(move |second| given(&[*first, *second]))
                    })
                    .collect();
                json!({"not": {"anyOf": pairs, "description": choice.rule}})
            }
        };
        let mut rule = rule.as_object().cloned().unwrap_or_default();
        if choice.many == HowMany::Exactly {
            rule.insert("x-rule".into(), json!(choice.rule));
        }
        // Stated in place, which every generator reads, unless the schema
        // already uses the keyword: then as a member of its `allOf`.
        if rule.keys().any(|keyword| schema.contains_key(keyword)) {
            let all = schema.entry("allOf").or_insert_with(|| json!([]));
            if let Some(all) = all.as_array_mut() {
                all.push(Value::Object(rule));
            }
        } else {
            schema.extend(rule);
        }
    }
}
