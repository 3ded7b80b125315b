//! Rules of particular fields and operations, written into the spec by
//! [`state_rules`]: field patterns, schemas closed to unknown fields, a
//! create operation's stricter variant of a shared schema, query rules, and
//! the Customer a request names by id or code; rules between fields are
//! `spec::choices`'s. The generic passes (bounds,
//! nullability, enums, headers) are [`crate::http::spec::tidy`]'s.

use serde_json::{Value, json};

/// Writes every rule below into `document`.
pub(crate) fn state_rules(document: &mut Value) {
    for (schema, field, pattern) in field_patterns() {
        if let Some(property) =
            document.pointer_mut(&format!("/components/schemas/{schema}/properties/{field}"))
        {
            property["pattern"] = json!(pattern);
            if pattern == crate::resources::customers::model::EMAIL_PATTERN {
                // Fuzzers and form builders generate addresses from it.
                property["format"] = json!("email");
            }
        }
    }
    for (schema, field, stated) in field_schemas() {
        if let Some(property) = document
            .pointer_mut(&format!("/components/schemas/{schema}/properties/{field}"))
            .and_then(Value::as_object_mut)
        {
            property.extend(stated.as_object().cloned().unwrap_or_default());
        }
    }
    for schema in CLOSED_SCHEMAS {
        if let Some(closed) = document.pointer_mut(&format!("/components/schemas/{schema}")) {
            closed["additionalProperties"] = json!(false);
        }
    }
    super::choices::state_choices(document);
    add_variants(document);
    close_request_bodies(document);
    state_query_rules(document);
}

/// Closes the schema of every request body that takes a fixed set of
/// fields: each such payload type refuses an unknown top-level field with
/// 400 naming it (`#[oai(deny_unknown_fields)]`), and the spec says so, so
/// that generated clients and fuzzers agree with the service. A schema that
/// already states `additionalProperties` (a map) is left as it is.
fn close_request_bodies(document: &mut Value) {
    let bodies: Vec<String> = document["paths"]
        .as_object()
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|operations| operations.values())
        .filter_map(|operation| operation["requestBody"]["content"].as_object())
        .flat_map(|content| content.values())
        .filter_map(|media| media["schema"]["$ref"].as_str())
        .filter_map(|reference| reference.strip_prefix("#/components/schemas/"))
        .map(str::to_owned)
        .collect();
    for name in bodies {
        if let Some(schema) = document["components"]["schemas"][&name].as_object_mut()
            && schema.contains_key("properties")
            && !schema.contains_key("additionalProperties")
        {
            schema.insert("additionalProperties".into(), json!(false));
        }
    }
}

/// Patterns of particular fields, by (schema, field): the request-shape
/// check compiles each once.
fn field_patterns() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    use crate::resources::events::model::SLUG_PATTERN;
    crate::resources::customers::model::FIELD_PATTERNS
        .iter()
        .copied()
        .chain([
            ("NewEvent", "type", SLUG_PATTERN),
            ("AssociationInput", "type", SLUG_PATTERN),
        ])
}

/// What particular fields take beyond what their Rust type says: (schema,
/// field, the keywords to add). A translatable text is a string or one
/// string per language; a campaign listens to carts or to one type of Custom
/// Event or trigger; points per product are at least 1; an adjustment of
/// points is never 0.
fn field_schemas() -> [(&'static str, &'static str, Value); 11] {
    use crate::resources::events::model::SLUG_PATTERN;
    let typed = |kind: &str| {
        json!({
            "type": "object",
            "properties": {kind: {"type": "string", "pattern": SLUG_PATTERN}},
            "required": [kind],
            "additionalProperties": false,
        })
    };
    let listens = json!({
        "anyOf": [{"type": "string", "enum": ["cart"]}, typed("custom_event"), typed("trigger")],
        "nullable": true,
    });
    let translatable = json!({
        "anyOf": [
            {"type": "string"},
            {"type": "object", "additionalProperties": {"type": "string"}},
        ],
        "nullable": true,
    });
    [
        ("PointsCampaignSpec", "name", translatable.clone()),
        ("PointsCampaignSpec", "description", translatable.clone()),
        ("PromotionSpec", "name", translatable.clone()),
        ("PromotionSpec", "description", translatable.clone()),
        ("CouponSpec", "name", translatable.clone()),
        ("CouponSpec", "description", translatable.clone()),
        ("DiscountCampaignSpec", "name", translatable.clone()),
        ("DiscountCampaignSpec", "description", translatable),
        ("PointsCampaignSpec", "on", listens),
        (
            "PointsRules",
            "per_product",
            json!({"additionalProperties": {"type": "integer", "format": "int64", "minimum": 1}}),
        ),
        (
            "Adjustment",
            "points",
            json!({"not": {"enum": [0], "description": "`points` must not be 0"}}),
        ),
    ]
}

/// Schemas nested inside request bodies that refuse fields they do not
/// define (a misspelt rule must not be ignored silently); the bodies
/// themselves are closed by [`close_request_bodies`].
const CLOSED_SCHEMAS: [&str; 6] = [
    "OfferLimitRules",
    "StackingRules",
    "DiscountRules",
    "PointsRules",
    "VoucherDiscount",
    "UsableHours",
];

/// A variant of a request schema shared by several operations, for one of
/// them: more fields required (creating a points campaign needs what
/// updating one may leave out) or fewer taken (a Location's features are
/// never `discountable`).
struct Variant {
    /// `METHOD /path` of the operation whose body it is.
    operation: &'static str,
    /// The shared schema it starts from.
    shared: &'static str,
    /// The variant's own name.
    name: &'static str,
    /// Fields it requires (present and not null).
    required: &'static [&'static str],
    /// Fields it does not take.
    removed: &'static [&'static str],
}

const VARIANTS: [Variant; 6] = [
    Variant {
        operation: "POST /discounts",
        shared: "DiscountCampaignSpec",
        name: "NewDiscountCampaign",
        required: &["name", "discount"],
        removed: &[],
    },
    Variant {
        operation: "POST /points",
        shared: "PointsCampaignSpec",
        name: "NewPointsCampaign",
        required: &["name", "points"],
        removed: &[],
    },
    Variant {
        operation: "POST /coupons",
        shared: "CouponSpec",
        name: "NewCoupon",
        required: &["name", "discount"],
        removed: &[],
    },
    Variant {
        operation: "POST /promotions",
        shared: "PromotionSpec",
        name: "NewPromotion",
        required: &["name"],
        removed: &[],
    },
    Variant {
        operation: "POST /locations/taxonomies/{taxonomy_slug}/features",
        shared: "NewFeature",
        name: "NewLocationFeature",
        required: &[],
        removed: &["discountable"],
    },
    Variant {
        operation: "PATCH /locations/taxonomies/{taxonomy_slug}/features/{id}",
        shared: "FeatureChanges",
        name: "LocationFeatureChanges",
        required: &[],
        removed: &["discountable"],
    },
];

/// Operations that need one of two query parameters: (method, path, the
/// two). OpenAPI 3.0 has no keyword for it; the operation's
/// `x-one-of-required` and its parameters' descriptions say it.
const QUERY_ONE_OF: [(&str, &str, [&str; 2]); 3] = [
    (
        "get",
        "/discounts/transactions",
        ["customer_id", "customer_code"],
    ),
    (
        "get",
        "/points/transactions",
        ["customer_id", "customer_code"],
    ),
    (
        "get",
        "/rewards/transactions",
        ["customer_id", "customer_code"],
    ),
];

/// Query parameters with a pattern of their own: (path, parameter,
/// pattern). `phones` takes numbers, each or comma-separated.
fn query_patterns() -> [(&'static str, &'static str, String); 1] {
    let phone = crate::resources::customers::model::PHONE_PATTERN
        .trim_start_matches('^')
        .trim_end_matches('$');
    [("/customers", "phones", format!("^{phone}(,{phone})*$"))]
}

/// Writes [`QUERY_ONE_OF`] and [`query_patterns`] into their operations.
fn state_query_rules(document: &mut Value) {
    for (method, path, pair) in QUERY_ONE_OF {
        let pointer = format!("/paths/{}/{method}", path.replace('/', "~1"));
        if let Some(operation) = document.pointer_mut(&pointer) {
            operation["x-one-of-required"] = json!([pair]);
            for parameter in operation["parameters"].as_array_mut().into_iter().flatten() {
                if pair.iter().any(|name| parameter["name"] == *name) {
                    let said = parameter["description"].as_str().unwrap_or_default();
                    parameter["description"] = json!(format!(
                        "{said} One of `{}` and `{}` is required (both: they must name the same Customer).",
                        pair[0], pair[1]
                    ).trim_start());
                }
            }
        }
    }
    for (path, name, pattern) in query_patterns() {
        let pointer = format!("/paths/{}/get/parameters", path.replace('/', "~1"));
        for parameter in document
            .pointer_mut(&pointer)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
            .filter(|parameter| parameter["name"] == name)
        {
            let items = if parameter["schema"]["type"] == "array" {
                &mut parameter["schema"]["items"]
            } else {
                &mut parameter["schema"]
            };
            items["pattern"] = json!(pattern);
        }
    }
}

/// Adds each of [`VARIANTS`] to the components and points its
/// operation's body at it.
fn add_variants(document: &mut Value) {
    for variant in &VARIANTS {
        let Some(mut schema) = document
            .pointer(&format!("/components/schemas/{}", variant.shared))
            .cloned()
        else {
            continue;
        };
        schema["title"] = json!(variant.name);
        let description = schema["description"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if !variant.required.is_empty() {
            schema["required"] = json!(variant.required);
            for field in variant.required {
                // Required here means present and not null.
                if let Some(property) = schema["properties"][field].as_object_mut() {
                    property.remove("nullable");
                }
            }
            schema["description"] = json!(format!(
                "{description} (to create: `{}` required)",
                variant.required.join("`, `")
            ));
        }
        for field in variant.removed {
            if let Some(properties) = schema["properties"].as_object_mut() {
                properties.remove(*field);
            }
        }
        document["components"]["schemas"][variant.name] = schema;
        let Some((method, path)) = variant.operation.split_once(' ') else {
            continue;
        };
        let body = format!(
            "/paths/{}/{}/requestBody/content",
            path.replace('/', "~1"),
            method.to_ascii_lowercase()
        );
        for media in document
            .pointer_mut(&body)
            .and_then(Value::as_object_mut)
            .into_iter()
            .flat_map(|content| content.values_mut())
        {
            media["schema"] = json!({"$ref": format!("#/components/schemas/{}", variant.name)});
        }
    }
}

/// Request schemas where naming the Customer is optional (a rollback by
/// `redemption_ids` needs none; messages print for no one in particular).
pub(crate) const CUSTOMER_OPTIONAL: [&str; 2] = ["VoucherRollback", "PrintRequest"];

/// A request schema naming a Customer by `{who}_id` or `{who}_code` (both
/// optional, as `customer_id`/`customer_code` and `to_customer_id`/
/// `to_customer_code`) needs at least one of them: OpenAPI 3.0 says so as
/// "not neither", which generators understand. Both refuse `null`.
pub(crate) fn require_a_customer(schema: &mut Value) {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    let pairs: Vec<(String, String)> = properties
        .keys()
        .filter_map(|name| name.strip_suffix("_code"))
        .filter(|who| *who == "customer" || who.ends_with("_customer"))
        .map(|who| (format!("{who}_id"), format!("{who}_code")))
        .filter(|(id, _)| properties.contains_key(id))
        .collect();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let pairs: Vec<(String, String)> = pairs
        .into_iter()
        .filter(|(id, code)| !required.contains(&id.as_str()) && !required.contains(&code.as_str()))
        .collect();
    let mut neither = Vec::new();
    for (id, code) in &pairs {
        for name in [id, code] {
            if let Some(property) = schema["properties"][name].as_object_mut() {
                property.remove("nullable");
            }
        }
        neither.push(json!({
            "description": format!("name the Customer with `{id}` or `{code}` (or both: they must name the same Customer)"),
            "type": "object",
            "properties": {id: {"not": {}}, code: {"not": {}}},
        }));
    }
    match neither.len() {
        0 => {}
        1 => schema["not"] = neither.remove(0),
        _ => {
            schema["allOf"] = neither
                .into_iter()
                .map(|each| json!({"not": each}))
                .collect();
        }
    }
}
