//! Tests of the request-shape check.

use serde_json::json;

use super::*;

/// The published patterns say what the hand-written checks do, for every
/// character of the Basic Multilingual Plane alone and inside a name.
#[test]
fn the_published_text_patterns_agree_with_the_checks() {
    let compiled = |pattern: &str| regex::Regex::new(pattern).expect(pattern);
    let (printable_text, multi_line, identifier) = (
        compiled(PRINTABLE),
        compiled(MULTI_LINE),
        compiled(IDENTIFIER),
    );
    for c in (0..=0xffff_u32).filter_map(char::from_u32) {
        let alone = c.to_string();
        let inside = format!("a{c}b");
        assert_eq!(
            printable_text.is_match(&inside),
            printable(c, false),
            "{c:?}"
        );
        assert_eq!(multi_line.is_match(&inside), printable(c, true), "{c:?}");
        let named = printable(c, false) && !c.is_whitespace();
        assert_eq!(identifier.is_match(&alone), named, "{c:?}");
        assert_eq!(identifier.is_match(&inside), printable(c, false), "{c:?}");
    }
    assert!(!identifier.is_match(" \u{3000} "), "blank");
    assert!(identifier.is_match(" EXT 1 "));
}

fn checker() -> SchemaChecker {
    SchemaChecker::of_document(&json!({"components": {"schemas": {
        "Line": {"type": "object", "required": ["product_code", "price"], "properties": {
            "product_code": {"type": "string", "maxLength": 8, "pattern": PRINTABLE},
            "price": {"type": "number", "minimum": 0, "maximum": 1000},
            "quantity": {"type": "number", "minimum": 0, "exclusiveMinimum": true}
        }},
        "Cart": {"type": "object", "required": ["lines"], "properties": {
            "lines": {"type": "array", "maxItems": 2, "items": {"$ref": "#/components/schemas/Line"}},
            "date": {"type": "string", "format": "date-time", "nullable": true},
            "kind": {"type": "string", "enum": ["sale", "return"]},
            "code": {"type": "string", "pattern": "^[a-z]+$"},
            "points": {"type": "integer", "format": "int64", "minimum": 1},
            "features": {"type": "object", "maxProperties": 2,
                "additionalProperties": {"type": "string"}}
        }}
    }}}))
}

fn check(body: Value) -> Result<(), String> {
    checker().check(&body, &json!({"$ref": "#/components/schemas/Cart"}), "")
}

#[test]
fn a_pair_needs_one_of_its_parts_and_a_closed_object_takes_no_strangers() {
    let schema = json!({"type": "object", "additionalProperties": false,
        "properties": {"customer_id": {"type": "string"}, "customer_code": {"type": "string"}},
        "not": {"type": "object", "description": "name the Customer",
            "properties": {"customer_id": {"not": {}}, "customer_code": {"not": {}}}}});
    let check = |body: Value| checker().check(&body, &schema, "");
    check(json!({"customer_id": "a"})).unwrap();
    check(json!({"customer_code": "b"})).unwrap();
    check(json!({"customer_id": "a", "customer_code": "b"})).unwrap();
    assert_eq!(check(json!({})), Err("name the Customer".to_string()));
    assert_eq!(
        check(json!({"customer_id": "a", "ponts": 3})),
        Err("`ponts` is not a field of this object".to_string())
    );
}

#[test]
fn one_of_holds_once_in_the_words_of_its_rule() {
    let schema = json!({"type": "object",
    "properties": {"percent": {"type": "number", "nullable": true},
        "amount": {"type": "number", "nullable": true},
        "codes": {"type": "array", "items": {"type": "string"}}},
    "x-rule": "exactly one of `percent` and `amount`",
    "oneOf": [
        {"type": "object", "required": ["percent"], "properties": {"percent": {"type": "number"}}},
        {"type": "object", "required": ["amount"], "properties": {"amount": {"type": "number"}}}
    ]});
    let check = |body: Value| checker().check(&body, &schema, "");
    check(json!({"percent": 10})).unwrap();
    check(json!({"percent": 10, "amount": null})).unwrap();
    let rule = Err("exactly one of `percent` and `amount`".to_string());
    assert_eq!(check(json!({"percent": 10, "amount": 5})), rule);
    assert_eq!(check(json!({"amount": null})), rule);
    // An untyped option's list is not empty.
    let listed =
        json!({"type": "object", "required": ["codes"], "properties": {"codes": {"minItems": 1}}});
    checker()
        .check(&json!({"codes": ["A"]}), &listed, "")
        .unwrap();
    assert_eq!(
        checker().check(&json!({"codes": []}), &listed, ""),
        Err("`codes` must not be empty".to_string())
    );
}

#[test]
fn a_good_body_passes() {
    check(
        json!({"lines": [{"product_code": "A1", "price": 2.5, "quantity": 1}],
        "date": null, "kind": "sale", "code": "abc", "points": 3, "features": {"x": "y"}}),
    )
    .unwrap();
}

#[test]
fn each_mismatch_names_its_field() {
    let line = |extra: Value| {
        let mut line = json!({"product_code": "A1", "price": 1});
        line.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"lines": [json!({"product_code": "B", "price": 1}), line]})
    };
    let cases = [
        (
            line(json!({"product_code": false})),
            "`lines[1].product_code` must be a string, not false",
        ),
        (
            line(json!({"product_code": 12})),
            "`lines[1].product_code` must be a string, not 12",
        ),
        (
            line(json!({"product_code": "ABCDEFGHI"})),
            "`lines[1].product_code` has 9 characters; at most 8 are accepted",
        ),
        (
            line(json!({"product_code": "A\u{202e}B"})),
            "`lines[1].product_code` contains a control, invisible or direction-override character (U+202E)",
        ),
        (
            line(json!({"product_code": "A\u{0}"})),
            "`lines[1].product_code` contains a control, invisible or direction-override character (U+0000)",
        ),
        (
            line(json!({"price": "1"})),
            "`lines[1].price` must be a number, not \"1\"",
        ),
        (
            line(json!({"price": 1e9})),
            "`lines[1].price` must be at most 1000, not 1000000000",
        ),
        (
            line(json!({"quantity": 0})),
            "`lines[1].quantity` must be more than 0, not 0",
        ),
        (
            json!({"lines": [{"price": 1}]}),
            "`lines[0].product_code` is required",
        ),
        (json!({}), "`lines` is required"),
        (json!([]), "the body must be an object, not []"),
        (
            json!({"lines": [], "date": "0001-01-01T00:00:00Z"}),
            "`date` 0001-01-01T00:00:00Z is outside the accepted dates, 1900-01-01T00:00:00Z to 2199-12-31T23:59:59Z",
        ),
        (
            json!({"lines": [], "date": "yesterday"}),
            "`date` must be a DateTime such as 2026-05-01T10:00:00Z, not \"yesterday\"",
        ),
        (
            json!({"lines": [], "kind": "gift"}),
            "`kind` must be one of \"sale\", \"return\", not \"gift\"",
        ),
        (
            json!({"lines": [], "code": "ABC"}),
            "`code` must match `^[a-z]+$`",
        ),
        (
            json!({"lines": [], "points": 1.5}),
            "`points` must be a whole number, not 1.5",
        ),
        (
            json!({"lines": [], "points": 0}),
            "`points` must be at least 1, not 0",
        ),
        (
            json!({"lines": [], "features": {"a": "1", "b": "2", "c": "3"}}),
            "`features` has 3 entries; at most 2 are accepted",
        ),
        (
            json!({"lines": [], "features": {"a": true}}),
            "`features.a` must be a string, not true",
        ),
        (json!({"lines": null}), "`lines` must not be null"),
        (
            json!({"lines": [{}, {}, {}]}),
            "`lines` has 3 items; at most 2 are accepted",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(check(body.clone()).unwrap_err(), expected, "{body}");
    }
}
