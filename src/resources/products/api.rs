//! Products: POST and GET /products, GET, PATCH and DELETE /products/{id}.

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::error::ErrorCode;
use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::http::idempotency::answer::answers_with;
use crate::http::services;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::master_data::search_by::MasterSearchBy;
use crate::resources::products::model::NewProduct;
use crate::resources::products::model::Product;
use crate::resources::products::model::ProductChanges;
use crate::resources::products::model::ProductList;
use crate::resources::taxonomies::model::DeletedMasterRecord;

#[derive(Tags)]
enum ProductTags {
    /// Products: the catalogue a cart line's `product_code` is looked up in,
    /// so campaigns see its features without the till sending them.
    Products,
}

/// Product endpoints.
#[derive(Debug, Default)]
pub struct ProductsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for ProductsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /products",
            codes: &[ErrorCode::ProductAlreadyExists, ErrorCode::UnknownFeature],
        },
        OperationErrors {
            operation: "GET /products",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /products/{id}",
            codes: &[ErrorCode::ProductNotFound],
        },
        OperationErrors {
            operation: "PATCH /products/{id}",
            codes: &[
                ErrorCode::ProductNotFound,
                ErrorCode::ProductAlreadyExists,
                ErrorCode::UnknownFeature,
            ],
        },
        OperationErrors {
            operation: "DELETE /products/{id}",
            codes: &[ErrorCode::ProductNotFound],
        },
    ];
}

#[OpenApi(tag = "ProductTags::Products")]
impl ProductsApi {
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
    #[oai(path = "/products", method = "post")]
    async fn create(
        &self,
        caller: Tier3,
        request: &poem::Request,
        body: Json<NewProduct>,
    ) -> Result<Json<Product>, ErrorResponse> {
        answers_with(request, Product::clone);
        Ok(Json(
            services(request)?
                .create_product(&caller.0.company, body.0)
                .await?,
        ))
    }

    /// List Products.
    ///
    /// Every Product of the Company, in id order (the order they were
    /// created), one page at a time (`per_page` 1 to 100, default 20;
    /// `starting_after` the previous page's `next_token_starts_after`).
    /// With `feature` (`taxonomy:feature`, such as `department:dairy`), only
    /// those carrying it or a feature below it.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/products", method = "get")]
    async fn list(
        &self,
        caller: Tier2,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{1,64}$"))] feature: Query<
            Option<String>,
        >,
        #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))] per_page: Query<
            Option<u32>,
        >,
        #[oai(validator(max_length = 128))] starting_after: Query<Option<String>>,
    ) -> Result<Json<ProductList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let page = services(request)?
            .products(&caller.0.company, feature.0.as_deref(), &page)
            .await?;
        Ok(Json(ProductList {
            products: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }

    /// Get a Product.
    ///
    /// `id` is the Product id (`prd_...`), or with `search_by=code` its code
    /// or any of its aliases.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/products/:id", method = "get")]
    async fn get(
        &self,
        caller: Tier2,
        request: &poem::Request,
        #[oai(validator(min_length = 1, max_length = 128))] id: Path<String>,
        search_by: Query<Option<MasterSearchBy>>,
    ) -> Result<Json<Product>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .product(&caller.0.company, &id.0, search_by.0.unwrap_or_default())
                .await?,
        ))
    }

    /// Update a Product.
    ///
    /// The fields sent replace the stored ones (`features`, `aliases`,
    /// `names` and `attributes` whole); `price: null` clears the price.
    /// `id` is read as in GET.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/products/:id", method = "patch")]
    async fn update(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(min_length = 1, max_length = 128))] id: Path<String>,
        search_by: Query<Option<MasterSearchBy>>,
        body: Json<ProductChanges>,
    ) -> Result<Json<Product>, ErrorResponse> {
        answers_with(request, Product::clone);
        Ok(Json(
            services(request)?
                .update_product(
                    &caller.0.company,
                    &id.0,
                    search_by.0.unwrap_or_default(),
                    body.0,
                )
                .await?,
        ))
    }

    /// Delete a Product.
    ///
    /// Carts already recorded keep their lines; later carts naming its code
    /// are evaluated on what they send. Its code and aliases are free again.
    /// `id` is read as in GET.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/products/:id", method = "delete")]
    async fn delete(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(min_length = 1, max_length = 128))] id: Path<String>,
        search_by: Query<Option<MasterSearchBy>>,
    ) -> Result<Json<DeletedMasterRecord>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .delete_product(&caller.0.company, &id.0, search_by.0.unwrap_or_default())
                .await?,
        ))
    }
}
