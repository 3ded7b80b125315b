//! Taxonomies and their features as the API takes and answers them, for
//! Products (`/taxonomies`) and Locations (`/locations/taxonomies`) alike.

use poem_openapi::types::MaybeUndefined;
use poem_openapi::{Enum, Object};
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;

/// What a taxonomy classifies: Products or Locations. The two have separate
/// slugs, so `brand` of Products and `brand` of Locations never meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Product taxonomies (`/taxonomies`).
    Product,
    /// Location taxonomies (`/locations/taxonomies`).
    Location,
}

impl Scope {
    /// The name stored and used in messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Product => "product",
            Scope::Location => "location",
        }
    }

    /// Where its taxonomies live in the API.
    pub const fn path(self) -> &'static str {
        match self {
            Scope::Product => "/taxonomies",
            Scope::Location => "/locations/taxonomies",
        }
    }
}

/// A new taxonomy.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct NewTaxonomy {
    /// Its permanent name in paths, features maps and campaign conditions
    /// (`department`): 1 to 64 letters, digits, `_` or `-`.
    #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))]
    pub slug: String,
    /// What people read (`Department`).
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: String,
    /// A longer description.
    #[oai(validator(max_length = 2000))]
    pub description: Option<String>,
}

/// Changes to a taxonomy; its slug is permanent (products, Locations and
/// campaign conditions name it).
#[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct TaxonomyChanges {
    /// New name.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Option<String>,
    /// New description, or null to clear it.
    #[oai(validator(max_length = 2000))]
    pub description: MaybeUndefined<String>,
}

/// A taxonomy: a named classification of Products or Locations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct Taxonomy {
    /// Its slug.
    pub slug: String,
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// `product` or `location`.
    pub scope: Scope,
    /// Its features (values), in slug order.
    #[serde(default)]
    pub features: Vec<Feature>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A new feature of a taxonomy.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct NewFeature {
    /// Its permanent name (`dairy`): 1 to 64 letters, digits, `_` or `-`.
    #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))]
    pub slug: String,
    /// What people read (`Dairy`).
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: String,
    /// The feature it belongs under (its slug or id), in the same
    /// taxonomy: `cheese` under `dairy`. A condition or exclusion naming a
    /// feature covers every feature under it.
    #[oai(validator(min_length = 1, max_length = 64))]
    pub parent: Option<String>,
    /// `false` for what no discount or Voucher may take money off (gift
    /// cards, tobacco): lines of Products carrying it, or a feature under
    /// it, are left out of every discount base. Product features only.
    pub discountable: Option<bool>,
}

/// Changes to a feature; its slug is permanent.
#[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct FeatureChanges {
    /// New name.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Option<String>,
    /// New parent (slug or id), or null to make it a top-level feature.
    #[oai(validator(min_length = 1, max_length = 64))]
    pub parent: MaybeUndefined<String>,
    /// Whether discounts may take money off Products carrying it.
    pub discountable: Option<bool>,
}

/// A feature: one value of a taxonomy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct Feature {
    /// Its id (`ftr_...`); paths accept it or the slug.
    pub id: String,
    /// The taxonomy's slug.
    pub taxonomy: String,
    /// Its slug.
    pub slug: String,
    /// Its name.
    pub name: String,
    /// The slug of the feature it belongs under.
    pub parent: Option<String>,
    /// Whether discounts may take money off Products carrying it.
    pub discountable: bool,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// The taxonomies of one scope.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
pub struct TaxonomyList {
    /// Every taxonomy, in slug order, with its features.
    pub taxonomies: Vec<Taxonomy>,
}

/// What a delete did.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
pub struct DeletedMasterRecord {
    /// The deleted record's slug or id.
    pub id: String,
    /// `deleted`.
    pub result: String,
    /// How many Products or Locations had it taken off (`detach=true`).
    pub detached: u64,
}
