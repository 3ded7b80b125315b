//! Products: created, read by id or code, changed and deleted; each change
//! reaches the engine's catalogue at once.

use crate::common::ids::time_ordered_id;
use crate::common::pagination::{Page, PageRequest};
use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::customers::model::normalise_code;
use crate::resources::master_data::model::normalise_features;
use crate::resources::master_data::search_by::MasterSearchBy;
use crate::resources::master_data::service::check_attributes;
use crate::resources::master_data::service::check_names;
use crate::resources::master_data::service::record_keys;
use crate::resources::master_data::store::RecordKind;
use crate::resources::products::model::NewProduct;
use crate::resources::products::model::Product;
use crate::resources::products::model::ProductChanges;
use crate::resources::taxonomies::model::DeletedMasterRecord;
use crate::resources::taxonomies::model::Scope;
use crate::services::Services;
use poem_openapi::types::MaybeUndefined;

/// Products in the store.
pub const PRODUCTS: RecordKind = RecordKind {
    table: "product",
    keys_table: "product_key",
    scope: Scope::Product,
    label: "Product",
    taken: ErrorCode::ProductAlreadyExists,
    missing: ErrorCode::ProductNotFound,
};

impl Services {
    /// Creates a Product.
    pub async fn create_product(&self, company: &str, new: NewProduct) -> ApiResult<Product> {
        let minor_units = self.company_locale(company).await?.minor_units;
        let product = new_product(new, time_ordered_id("prd"), self.now(), minor_units)?;
        self.save_product(company, product, false).await
    }

    /// A page of the Company's Products, in id order; with `feature`
    /// (`taxonomy:feature`), those carrying it or a feature below it.
    pub async fn products(
        &self,
        company: &str,
        feature: Option<&str>,
        page: &PageRequest,
    ) -> ApiResult<Page<Product>> {
        self.list_master_records(PRODUCTS, company, feature, page)
            .await
    }

    /// Product `id`, as `by` reads it.
    pub async fn product(&self, company: &str, id: &str, by: MasterSearchBy) -> ApiResult<Product> {
        self.find_master_record(PRODUCTS, company, id, by).await
    }

    /// Changes Product `id` (as `by` reads it).
    pub async fn update_product(
        &self,
        company: &str,
        id: &str,
        by: MasterSearchBy,
        changes: ProductChanges,
    ) -> ApiResult<Product> {
        let mut product = self.product(company, id, by).await?;
        let minor_units = self.company_locale(company).await?.minor_units;
        if let Some(code) = changes.code {
            product.code = normalise_code(&code)?;
        }
        if let Some(name) = changes.name {
            product.name = name.trim().to_string();
        }
        if let Some(names) = changes.names {
            product.names = names;
        }
        match changes.price {
            MaybeUndefined::Value(price) => {
                product.price = Some(price.money("`price`", minor_units)?)
            }
            MaybeUndefined::Null => product.price = None,
            MaybeUndefined::Undefined => {}
        }
        if let Some(features) = changes.features {
            product.features = normalise_features(features)?;
        }
        if let Some(aliases) = changes.aliases {
            product.aliases = aliases;
        }
        if let Some(discountable) = changes.discountable {
            product.discountable = discountable;
        }
        if let Some(attributes) = changes.attributes {
            product.attributes = attributes;
        }
        product.updated_at = self.now();
        self.save_product(company, product, true).await
    }

    /// Deletes Product `id` (as `by` reads it); its code and aliases are
    /// free again.
    pub async fn delete_product(
        &self,
        company: &str,
        id: &str,
        by: MasterSearchBy,
    ) -> ApiResult<DeletedMasterRecord> {
        let product = self.product(company, id, by).await?;
        self.delete_master_record(PRODUCTS, company, &product.id)
            .await?;
        tracing::info!(company, id = %product.id, code = %product.code, "product deleted");
        Ok(DeletedMasterRecord {
            id: product.id,
            result: "deleted".into(),
            detached: 0,
        })
    }

    /// Checks `product` and writes it.
    async fn save_product(
        &self,
        company: &str,
        product: Product,
        replace: bool,
    ) -> ApiResult<Product> {
        let (product, keys) = checked_product(product)?;
        self.write_master_record(
            PRODUCTS,
            company,
            (&product, &keys, &product.features),
            replace,
        )
        .await?;
        Ok(product)
    }
}

/// The Product `new` describes, with id `id`, made at `now` in a currency
/// of `minor_units` decimals.
pub(crate) fn new_product(
    new: NewProduct,
    id: String,
    now: Timestamp,
    minor_units: u32,
) -> ApiResult<Product> {
    Ok(Product {
        id,
        code: normalise_code(&new.code)?,
        name: new.name.trim().to_string(),
        names: new.names,
        price: new
            .price
            .map(|price| price.money("`price`", minor_units))
            .transpose()?,
        features: normalise_features(new.features)?,
        aliases: new.aliases,
        discountable: new.discountable.unwrap_or(true),
        attributes: new.attributes,
        created_at: now,
        updated_at: now,
    })
}

/// `product` checked whole (names, attributes, code and aliases), with its
/// unique keys: its code, then its aliases.
pub(crate) fn checked_product(mut product: Product) -> ApiResult<(Product, Vec<String>)> {
    check_names(&product.names)?;
    check_attributes(&product.attributes)?;
    let keys = record_keys(&product.code, &product.aliases)?;
    product.code.clone_from(&keys[0]);
    product.aliases = keys[1..].to_vec();
    Ok((product, keys))
}
