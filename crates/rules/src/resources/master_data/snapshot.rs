//! One Company's master data in memory, as the engine reads it on every
//! event without a store read: Products by code and alias, Locations by
//! code, and the feature trees that say which features lie under which.
//! Built from the store's changes since the last revision
//! ([`MasterData::apply`]) and swapped whole, so an event reads one
//! consistent revision.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use chrono_tz::Tz;
use serde_json::{Value, json};

use crate::resources::master_data::model::FeatureMap;
use crate::resources::master_data::model::record_from_document;

/// Everything of one Company's master data that changed after a revision.
#[derive(Debug, Clone, Default)]
pub struct MasterChanges {
    /// The revision this read reflects.
    pub revision: i64,
    /// Every taxonomy (few, so always read whole).
    pub taxonomies: Vec<Value>,
    /// Every feature.
    pub features: Vec<Value>,
    /// Products written after the revision asked for (deleted ones carry
    /// `deleted_at`).
    pub products: Vec<Value>,
    /// Locations written after it.
    pub locations: Vec<Value>,
}

/// The features of one scope: which lies under which, and which are not
/// discountable.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeatureTree {
    /// (taxonomy, feature) to its parent's slug.
    parents: HashMap<(String, String), Option<String>>,
    /// (taxonomy, feature) of the features marked `discountable: false`.
    undiscountable: HashSet<(String, String)>,
    /// The taxonomies' slugs.
    pub taxonomies: BTreeSet<String>,
}

impl FeatureTree {
    /// The tree of `features` (stored feature documents) of `taxonomies`
    /// (stored taxonomy documents) of `scope`.
    fn of(scope: &str, taxonomies: &[Value], features: &[Value]) -> FeatureTree {
        let in_scope = |document: &&Value| document["scope"].as_str() == Some(scope);
        let mut tree = FeatureTree {
            taxonomies: taxonomies
                .iter()
                .filter(in_scope)
                .filter_map(|t| t["slug"].as_str().map(str::to_string))
                .collect(),
            ..FeatureTree::default()
        };
        for feature in features.iter().filter(in_scope) {
            let (Some(taxonomy), Some(slug)) =
                (feature["taxonomy"].as_str(), feature["slug"].as_str())
            else {
                continue;
            };
            let key = (taxonomy.to_string(), slug.to_string());
            if feature["discountable"] == json!(false) {
                tree.undiscountable.insert(key.clone());
            }
            tree.parents
                .insert(key, feature["parent"].as_str().map(str::to_string));
        }
        tree
    }

    /// Each taxonomy's features' slugs, sorted.
    pub fn listing(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        let mut listing: std::collections::BTreeMap<String, Vec<String>> = self
            .taxonomies
            .iter()
            .map(|taxonomy| (taxonomy.clone(), Vec::new()))
            .collect();
        for (taxonomy, feature) in self.parents.keys() {
            listing
                .entry(taxonomy.clone())
                .or_default()
                .push(feature.clone());
        }
        for features in listing.values_mut() {
            features.sort();
        }
        listing
    }

    /// `feature` of `taxonomy` and every feature below it.
    pub fn with_descendants(&self, taxonomy: &str, feature: &str) -> Vec<String> {
        let mut found: Vec<String> = self
            .parents
            .keys()
            .filter(|(of, _)| of == taxonomy)
            .filter(|(_, slug)| {
                self.with_ancestors(taxonomy, slug)
                    .iter()
                    .any(|a| a == feature)
            })
            .map(|(_, slug)| slug.clone())
            .collect();
        if !found.iter().any(|slug| slug == feature) {
            found.push(feature.to_string());
        }
        found.sort();
        found
    }

    /// Whether the taxonomy `taxonomy` has the feature `feature`.
    pub fn has(&self, taxonomy: &str, feature: &str) -> bool {
        self.parents
            .contains_key(&(taxonomy.to_string(), feature.to_string()))
    }

    /// `feature` of `taxonomy` and every feature above it, nearest first.
    pub fn with_ancestors(&self, taxonomy: &str, feature: &str) -> Vec<String> {
        let mut chain = vec![feature.to_string()];
        let mut at = feature.to_string();
        // A tree is never deeper than it has features; a cycle (which
        // writes refuse) stops there too.
        while chain.len() <= self.parents.len() {
            match self.parents.get(&(taxonomy.to_string(), at)) {
                Some(Some(parent)) if !chain.contains(parent) => {
                    chain.push(parent.clone());
                    at = parent.clone();
                }
                _ => break,
            }
        }
        chain
    }

    /// `features` with every feature's ancestors added, each list sorted.
    pub fn expand(&self, features: &FeatureMap) -> FeatureMap {
        features
            .iter()
            .map(|(taxonomy, slugs)| {
                let mut expanded: Vec<String> = slugs
                    .iter()
                    .flat_map(|slug| self.with_ancestors(taxonomy, slug))
                    .collect();
                expanded.sort();
                expanded.dedup();
                (taxonomy.clone(), expanded)
            })
            .collect()
    }

    /// Whether discounts may take money off what carries `expanded`
    /// features (ancestors included): not when one is undiscountable.
    pub fn discountable(&self, expanded: &FeatureMap) -> bool {
        !expanded.iter().any(|(taxonomy, slugs)| {
            slugs.iter().any(|slug| {
                self.undiscountable
                    .contains(&(taxonomy.clone(), slug.clone()))
            })
        })
    }
}

/// A Product or Location as events see it.
#[derive(Debug, Clone)]
pub struct CatalogRecord {
    /// What conditions read (`line.product`, `location`): the API record,
    /// with `facets`.
    pub facts: Value,
    /// Its features with their ancestors.
    pub facets: FeatureMap,
    /// Whether discounts may take money off it (its own flag and its
    /// features').
    pub discountable: bool,
    /// A Location's time zone.
    pub time_zone: Option<Tz>,
    /// Its code and aliases.
    keys: Vec<String>,
    /// The features it carries, as stored.
    features: FeatureMap,
}

impl CatalogRecord {
    /// The record of the stored `document` with `tree`'s ancestors.
    fn of(document: &Value, tree: &FeatureTree) -> CatalogRecord {
        let mut facts = record_from_document(document);
        let features: FeatureMap =
            serde_json::from_value(facts["features"].clone()).unwrap_or_default();
        let facets = tree.expand(&features);
        let discountable = facts["discountable"] != json!(false) && tree.discountable(&facets);
        if let Some(object) = facts.as_object_mut() {
            object.insert("facets".into(), json!(facets));
            object.remove("created_at");
            object.remove("updated_at");
        }
        CatalogRecord {
            time_zone: facts["time_zone"]
                .as_str()
                .and_then(|zone| zone.parse().ok()),
            keys: document["keys"]
                .as_array()
                .map(|keys| {
                    keys.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            facts,
            facets,
            discountable,
            features,
        }
    }

    /// The same record under a changed `tree`.
    fn under(&self, tree: &FeatureTree) -> CatalogRecord {
        let facets = tree.expand(&self.features);
        let mut facts = self.facts.clone();
        facts["facets"] = json!(facets);
        CatalogRecord {
            discountable: facts["discountable"] != json!(false) && tree.discountable(&facets),
            facts,
            facets,
            time_zone: self.time_zone,
            keys: self.keys.clone(),
            features: self.features.clone(),
        }
    }
}

/// Records of one kind, by id and by key.
#[derive(Debug, Clone, Default)]
struct Records {
    by_id: HashMap<String, Arc<CatalogRecord>>,
    by_key: HashMap<String, String>,
}

impl Records {
    /// Takes in `documents` (written after the last revision): new and
    /// changed ones replace what was, deleted ones go.
    fn apply(&mut self, documents: &[Value], tree: &FeatureTree) {
        for document in documents {
            let Some(id) = document["rid"].as_str() else {
                continue;
            };
            if let Some(old) = self.by_id.remove(id) {
                for key in &old.keys {
                    self.by_key.remove(key);
                }
            }
            if document.get("deleted_at").is_some_and(|d| !d.is_null()) {
                continue;
            }
            let record = CatalogRecord::of(document, tree);
            for key in &record.keys {
                self.by_key.insert(key.clone(), id.to_string());
            }
            self.by_id.insert(id.to_string(), Arc::new(record));
        }
    }

    /// Every record again under a changed `tree`.
    fn rebuild(&mut self, tree: &FeatureTree) {
        for record in self.by_id.values_mut() {
            *record = Arc::new(record.under(tree));
        }
    }

    fn by_key(&self, key: &str) -> Option<&Arc<CatalogRecord>> {
        self.by_key.get(key).and_then(|id| self.by_id.get(id))
    }
}

/// One Company's master data at one revision.
#[derive(Debug, Clone, Default)]
pub struct MasterData {
    /// The revision it reflects.
    pub revision: i64,
    /// Product features.
    pub product_tree: FeatureTree,
    /// Location features.
    pub location_tree: FeatureTree,
    products: Records,
    locations: Records,
}

impl MasterData {
    /// This master data with `changes` applied.
    pub fn apply(&self, changes: &MasterChanges) -> MasterData {
        let product_tree = FeatureTree::of("product", &changes.taxonomies, &changes.features);
        let location_tree = FeatureTree::of("location", &changes.taxonomies, &changes.features);
        let mut next = self.clone();
        if product_tree != next.product_tree {
            next.products.rebuild(&product_tree);
            next.product_tree = product_tree;
        }
        if location_tree != next.location_tree {
            next.locations.rebuild(&location_tree);
            next.location_tree = location_tree;
        }
        next.products.apply(&changes.products, &next.product_tree);
        next.locations
            .apply(&changes.locations, &next.location_tree);
        next.revision = changes.revision;
        next
    }

    /// Whether the Company has any master data an event could read.
    pub fn is_empty(&self) -> bool {
        self.products.by_id.is_empty()
            && self.locations.by_id.is_empty()
            && self.product_tree.taxonomies.is_empty()
    }

    /// The Product whose code or alias is `code`.
    pub fn product(&self, code: &str) -> Option<&Arc<CatalogRecord>> {
        self.products.by_key(code)
    }

    /// The Location whose code is `code`.
    pub fn location(&self, code: &str) -> Option<&Arc<CatalogRecord>> {
        self.locations.by_key(code)
    }

    /// The Location whose id is `id`.
    pub fn location_by_id(&self, id: &str) -> Option<&Arc<CatalogRecord>> {
        self.locations.by_id.get(id)
    }

    /// How many Products it holds.
    pub fn product_count(&self) -> usize {
        self.products.by_id.len()
    }
}
