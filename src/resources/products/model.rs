//! Products as the API takes and answers them.

use std::collections::BTreeMap;

use poem_openapi::Object;
use poem_openapi::types::MaybeUndefined;
use serde::{Deserialize, Serialize};

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::common::time::Timestamp;
use crate::resources::master_data::model::FeatureMap;

/// A new Product.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct NewProduct {
    /// The Company's code for it, as tills send it in `product_code`
    /// (unique among the Company's Product codes and aliases).
    #[oai(validator(min_length = 1, max_length = 128))]
    pub code: String,
    /// Its name in the Company's default language.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: String,
    /// Its name in other languages, by language code (`{"es": "Leche"}`).
    #[oai(default, validator(max_properties = 20))]
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Its list price, in the Company's currency (a cart line's own price
    /// is what the line costs; this is what campaigns may read).
    pub price: Option<SentAmount>,
    /// Its features: taxonomy slug to feature slugs
    /// (`{"department": ["dairy"]}`); each must exist (422 `unknown_feature`).
    #[oai(default, validator(max_properties = 50))]
    #[serde(default)]
    pub features: FeatureMap,
    /// Other codes that name it (SKUs, EANs), unique like `code`.
    #[oai(default, validator(max_items = 20))]
    #[serde(default)]
    pub aliases: Vec<String>,
    /// `false` for what no discount or Voucher may take money off (gift
    /// cards, tobacco): its cart lines are left out of every discount base.
    pub discountable: Option<bool>,
    /// The Company's own fields (`{"margin": "high"}`), read by campaigns
    /// as `line.product.attributes`.
    #[oai(default, validator(max_properties = 50))]
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
}

/// Changes to a Product: the fields sent replace the stored ones
/// (`features`, `aliases`, `names` and `attributes` whole).
#[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct ProductChanges {
    /// New code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub code: Option<String>,
    /// New name.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Option<String>,
    /// New names in other languages.
    #[oai(validator(max_properties = 20))]
    pub names: Option<BTreeMap<String, String>>,
    /// New list price, or null to clear it.
    pub price: MaybeUndefined<SentAmount>,
    /// New features.
    #[oai(validator(max_properties = 50))]
    pub features: Option<FeatureMap>,
    /// New aliases.
    #[oai(validator(max_items = 20))]
    pub aliases: Option<Vec<String>>,
    /// Whether discounts may take money off it.
    pub discountable: Option<bool>,
    /// New attributes.
    #[oai(validator(max_properties = 50))]
    pub attributes: Option<BTreeMap<String, serde_json::Value>>,
}

/// A Product of the Company's catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct Product {
    /// Its id (`prd_...`).
    pub id: String,
    /// Its code.
    pub code: String,
    /// Its name.
    pub name: String,
    /// Its names in other languages.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Its list price.
    pub price: Option<Amount>,
    /// Its features.
    #[serde(default)]
    pub features: FeatureMap,
    /// Its aliases.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Whether discounts may take money off it (its features may still
    /// leave it out: see the feature's `discountable`).
    pub discountable: bool,
    /// The Company's own fields.
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A page of Products.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct ProductList {
    /// The Products, in id order (the order they were created).
    pub products: Vec<Product>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}
