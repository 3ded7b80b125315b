//! A legacy Promotion as the discount campaign it is compiled into: the
//! same engine, stacking and effects as every other discount.

use serde_json::{Value, json};

use crate::resources::master_data::model::FeatureMap;
use crate::resources::promotions::model::PromotionSpec;

/// `text` as a rhai string literal.
fn quoted(text: &str) -> String {
    let mut literal = String::with_capacity(text.len() + 2);
    literal.push('"');
    for c in text.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            other => literal.push(other),
        }
    }
    literal.push('"');
    literal
}

/// The `lines` condition of a Promotion of `products` and `features`: a
/// line whose code (or its Product's code, when it came as an alias) is one
/// of them, or that carries one of the features; `None` for the whole cart.
pub fn lines_condition(products: &[String], features: &FeatureMap) -> Option<String> {
    let mut alternatives = Vec::new();
    if !products.is_empty() {
        let list: Vec<String> = products.iter().map(|code| quoted(code)).collect();
        let list = list.join(", ");
        alternatives.push(format!("line.product_code in [{list}]"));
        alternatives.push(format!("line.product?.code in [{list}]"));
    }
    for (taxonomy, slugs) in features {
        for slug in slugs {
            alternatives.push(format!(
                "line.has_feature({}, {})",
                quoted(taxonomy),
                quoted(slug)
            ));
        }
    }
    (!alternatives.is_empty()).then(|| alternatives.join(" || "))
}

/// The discount campaign specification (campaign-file field names) of
/// `promotion`, which is kept whole under `record`.
pub fn campaign_spec(promotion: &PromotionSpec, record: &Value) -> Value {
    let lines = lines_condition(
        promotion.products.as_deref().unwrap_or_default(),
        &promotion.features.clone().unwrap_or_default(),
    );
    let mut discount = json!({"applies_to": if lines.is_some() { "lines" } else { "cart" }});
    if let Some(lines) = lines {
        discount["lines"] = json!(lines);
    }
    if let Some(percent) = promotion.percent {
        discount["percent"] = json!(percent);
    }
    if let Some(amount) = &promotion.amount {
        discount["amount"] = json!(amount);
    }
    let mut spec = json!({
        "name": promotion.name,
        "on": "cart",
        "active": promotion.active.unwrap_or(true),
        "discount": discount,
        "stacking": {
            "priority": promotion.priority.unwrap_or(0),
            "exclusive": promotion.exclusive.unwrap_or(false),
        },
        crate::resources::api_campaigns::API_RECORD: record,
    });
    for (field, value) in [
        (
            "description",
            promotion.description.as_ref().map(|d| json!(d)),
        ),
        ("available_from", promotion.valid_from.map(|t| json!(t))),
        ("available_to", promotion.valid_to.map(|t| json!(t))),
    ] {
        if let Some(value) = value {
            spec[field] = value;
        }
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_features_make_one_condition_and_quotes_are_escaped() {
        let features = FeatureMap::from([("department".to_string(), vec!["dairy".to_string()])]);
        assert_eq!(
            lines_condition(&["MILK".into(), "A\"B".into()], &features).unwrap(),
            r#"line.product_code in ["MILK", "A\"B"] || line.product?.code in ["MILK", "A\"B"] || line.has_feature("department", "dairy")"#
        );
        assert_eq!(lines_condition(&[], &FeatureMap::new()), None);
    }
}
