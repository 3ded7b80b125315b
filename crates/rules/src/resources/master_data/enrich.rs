//! What an event's facts gain from the Company's master data: each cart
//! line its Product (`line.product`), the features it carries with their
//! ancestors (read by `line.has_feature`), its categories when the till
//! sent none, and whether discounts may take money off it; the event its
//! Location (`location`). What the cart sends wins where both say the same
//! thing.

use serde_json::{Map, Value, json};

use crate::resources::master_data::model::FeatureMap;
use crate::resources::master_data::snapshot::FeatureTree;
use crate::resources::master_data::snapshot::MasterData;

/// The key under which a line or a Location carries its features with
/// their ancestors, as `has_feature` reads them.
pub const FACETS: &str = "facets";

impl MasterData {
    /// Completes the lines of `cart` (a cart's facts) from the catalogue.
    pub fn describe_lines(&self, cart: &mut Value) {
        let Some(lines) = cart.get_mut("lines").and_then(Value::as_array_mut) else {
            return;
        };
        for line in lines {
            if let Some(line) = line.as_object_mut() {
                self.describe_line(line);
            }
        }
    }

    fn describe_line(&self, line: &mut Map<String, Value>) {
        let product = line
            .get("product_code")
            .and_then(Value::as_str)
            .and_then(|code| self.product(code))
            .cloned();
        let sent = sent_features(line, &self.product_tree);
        let Some(product) = product else {
            if !sent.is_empty() {
                line.insert(FACETS.into(), json!(sent));
            }
            return;
        };
        // The till's word on a taxonomy replaces the catalogue's.
        let mut facets = product.facets.clone();
        facets.extend(sent);
        let discountable = product.discountable && self.product_tree.discountable(&facets);
        let sent_categories = line
            .get("taxonomies")
            .and_then(Value::as_array)
            .is_some_and(|categories| !categories.is_empty());
        if !sent_categories {
            let mut categories: Vec<&String> = facets.values().flatten().collect();
            categories.sort();
            categories.dedup();
            line.insert("taxonomies".into(), json!(categories));
        }
        if !discountable {
            line.insert("discountable".into(), json!(false));
        }
        line.insert(FACETS.into(), json!(facets));
        line.insert("product".into(), product.facts.clone());
    }

    /// What conditions see as `location`: the Location whose code is
    /// `code` (with its features, country and time zone), only the code
    /// when the catalogue has no such Location, an empty map when the event
    /// names none.
    pub fn location_facts(&self, code: Option<&str>) -> Value {
        match code {
            None => json!({}),
            Some(code) => self.location(code).map_or_else(
                || json!({ "code": code }),
                |location| location.facts.clone(),
            ),
        }
    }
}

/// The features a cart line sent (`{"brand": "acme"}`), each with its
/// ancestors in `tree`.
fn sent_features(line: &Map<String, Value>, tree: &FeatureTree) -> FeatureMap {
    line.get("features")
        .and_then(Value::as_object)
        .map(|features| {
            features
                .iter()
                .filter_map(|(taxonomy, value)| {
                    let feature = value.as_str()?;
                    let mut chain = tree.with_ancestors(taxonomy, feature);
                    chain.sort();
                    Some((taxonomy.clone(), chain))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether discounts may take money off each line of `cart` (a cart's
/// facts): all but those the catalogue marked `discountable: false`.
pub fn discountable_lines(cart: &Value) -> Vec<bool> {
    cart.get("lines")
        .and_then(Value::as_array)
        .map(|lines| {
            lines
                .iter()
                .map(|line| line.get("discountable") != Some(&Value::Bool(false)))
                .collect()
        })
        .unwrap_or_default()
}
