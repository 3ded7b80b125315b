//! The features map Products and Locations both carry (how their
//! `{id}`/`{value}` path is read is the service's `master_data::search_by`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::common::validate::validate_slug;
use crate::error::ApiError;
use crate::error::ApiResult;

/// Features of a Product or a Location: taxonomy slug to the slugs of the
/// features it carries, e.g. `{"department": ["dairy"], "brand": ["acme"]}`.
pub type FeatureMap = BTreeMap<String, Vec<String>>;

/// Most taxonomies one record names, and features it names in one.
const MAX_TAXONOMIES: usize = 50;
const MAX_FEATURES_PER_TAXONOMY: usize = 50;

/// `features` with every slug checked, each list sorted without repeats and
/// empty lists left out; `invalid_request` naming the first bad one.
pub fn normalise_features(features: FeatureMap) -> ApiResult<FeatureMap> {
    if features.len() > MAX_TAXONOMIES {
        return Err(ApiError::invalid(format!(
            "`features` names {} taxonomies; at most {MAX_TAXONOMIES}",
            features.len()
        )));
    }
    let mut normalised = FeatureMap::new();
    for (taxonomy, mut slugs) in features {
        validate_slug("taxonomy", &taxonomy)?;
        if slugs.len() > MAX_FEATURES_PER_TAXONOMY {
            return Err(ApiError::invalid(format!(
                "`features.{taxonomy}` names {} features; at most {MAX_FEATURES_PER_TAXONOMY}",
                slugs.len()
            )));
        }
        for slug in &slugs {
            validate_slug("feature", slug)?;
        }
        slugs.sort();
        slugs.dedup();
        if !slugs.is_empty() {
            normalised.insert(taxonomy, slugs);
        }
    }
    Ok(normalised)
}

/// `taxonomy/feature` for each feature of `features`: how records are
/// indexed by the features they carry.
pub fn feature_keys(features: &FeatureMap) -> Vec<String> {
    features
        .iter()
        .flat_map(|(taxonomy, slugs)| slugs.iter().map(move |slug| feature_key(taxonomy, slug)))
        .collect()
}

/// The key of one feature of one taxonomy.
pub fn feature_key(taxonomy: &str, feature: &str) -> String {
    format!("{taxonomy}/{feature}")
}

/// The features map of `keys` (`taxonomy/feature` each).
pub fn features_from_keys<'a>(keys: impl IntoIterator<Item = &'a str>) -> FeatureMap {
    let mut features = FeatureMap::new();
    for key in keys {
        if let Some((taxonomy, feature)) = key.split_once('/') {
            features
                .entry(taxonomy.to_string())
                .or_default()
                .push(feature.to_string());
        }
    }
    features
}

/// `[taxonomy, feature]` for each feature of `features`, as the store
/// checks them.
pub fn feature_refs(features: &FeatureMap) -> Vec<[String; 2]> {
    features
        .iter()
        .flat_map(|(taxonomy, slugs)| {
            slugs
                .iter()
                .map(move |slug| [taxonomy.clone(), slug.clone()])
        })
        .collect()
}

/// A stored Product or Location document as its API record reads it: the
/// id from `rid`, `features` from `feature_keys`, the store's bookkeeping
/// left out.
pub fn record_from_document(document: &serde_json::Value) -> serde_json::Value {
    let mut record = document.clone();
    if let Some(object) = record.as_object_mut() {
        let keys: Vec<String> = object
            .remove("feature_keys")
            .and_then(|keys| serde_json::from_value(keys).ok())
            .unwrap_or_default();
        object.insert(
            "features".into(),
            serde_json::json!(features_from_keys(keys.iter().map(String::as_str))),
        );
        let id = object.remove("rid").unwrap_or_default();
        object.insert("id".into(), id);
        for bookkeeping in ["company", "keys", "revision", "deleted_at"] {
            object.remove(bookkeeping);
        }
    }
    record
}

/// The document a Product or Location is stored as: `record` (an API
/// record with `id` and `features`) with its id in `rid` and its features
/// as `feature_keys`.
pub fn document_from_record(company: &str, record: &impl Serialize) -> serde_json::Value {
    let mut document = serde_json::json!(record);
    if let Some(object) = document.as_object_mut() {
        let id = object.remove("id").unwrap_or_default();
        object.insert("rid".into(), id);
        let features: FeatureMap = object
            .remove("features")
            .and_then(|features| serde_json::from_value(features).ok())
            .unwrap_or_default();
        object.insert(
            "feature_keys".into(),
            serde_json::json!(feature_keys(&features)),
        );
        object.insert("company".into(), serde_json::json!(company));
    }
    document
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_are_sorted_without_repeats_and_bad_slugs_are_named() {
        let sent = FeatureMap::from([
            (
                "department".to_string(),
                vec!["dairy".into(), "bakery".into(), "dairy".into()],
            ),
            ("brand".to_string(), vec![]),
        ]);
        let features = normalise_features(sent).unwrap();
        assert_eq!(features.len(), 1);
        assert_eq!(features["department"], vec!["bakery", "dairy"]);
        assert_eq!(
            feature_keys(&features),
            vec!["department/bakery", "department/dairy"]
        );
        let bad = FeatureMap::from([("department".to_string(), vec!["no spaces".into()])]);
        let error = normalise_features(bad).unwrap_err();
        assert!(error.message.contains("no spaces"), "{}", error.message);
    }
}
