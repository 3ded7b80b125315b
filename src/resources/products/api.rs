//! Products: POST and GET /products, GET, PATCH and DELETE /products/{id}.

use poem_openapi::Tags;

use crate::error::ErrorCode;
use crate::resources::master_data::record_api::master_record_api;
use crate::resources::products::model::NewProduct;
use crate::resources::products::model::Product;
use crate::resources::products::model::ProductChanges;
use crate::resources::products::model::ProductList;

#[derive(Tags)]
enum ProductTags {
    /// Products: the catalogue a cart line's `product_code` is looked up in,
    /// so campaigns see its features without the till sending them.
    Products,
}

master_record_api! {
    /// Product endpoints.
    api: ProductsApi,
    tag: "ProductTags::Products",
    collection: "/products",
    item: "/products/:id",
    item_spec: "/products/{id}",
    param: id,
    taken: ErrorCode::ProductAlreadyExists,
    missing: ErrorCode::ProductNotFound,
    payloads: {
        new: NewProduct,
        record: Product,
        changes: ProductChanges,
        list: ProductList { products },
    },
    use_cases: {
        create: create_product,
        list: products,
        get: product,
        update: update_product,
        delete: delete_product,
    },
    create: {
        /// Create a Product.
        ///
        /// A cart line whose `product_code` is its code or one of its `aliases`
        /// is seen by campaigns with the Product's features
        /// (`line.has_feature("department", "dairy")`) and as `line.product`,
        /// from the next cart on. A code or alias already another Product's is
        /// 409 `product_already_exists`; a feature the Company lacks is 422
        /// `unknown_feature`.
        ///
        /// Rate limit: tier 3 (low).
    },
    list: {
        /// List Products.
        ///
        /// Every Product of the Company, in id order (the order they were
        /// created), one page at a time (`per_page` 1 to 100, default 20;
        /// `starting_after` the previous page's `next_token_starts_after`).
        /// With `feature` (`taxonomy:feature`, such as `department:dairy`), only
        /// those carrying it or a feature below it.
        ///
        /// Rate limit: tier 2 (moderate).
    },
    get: {
        /// Get a Product.
        ///
        /// `id` is the Product id (`prd_...`), or with `search_by=code` its code
        /// or any of its aliases.
        ///
        /// Rate limit: tier 2 (moderate).
    },
    update: {
        /// Update a Product.
        ///
        /// The fields sent replace the stored ones (`features`, `aliases`,
        /// `names` and `attributes` whole); `price: null` clears the price.
        /// `id` is read as in GET.
        ///
        /// Rate limit: tier 3 (low).
    },
    delete: {
        /// Delete a Product.
        ///
        /// Carts already recorded keep their lines; later carts naming its code
        /// are evaluated on what they send. Its code and aliases are free again.
        /// `id` is read as in GET.
        ///
        /// Rate limit: tier 3 (low).
    },
}
