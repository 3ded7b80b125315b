//! Taxonomies and features of Products (`/taxonomies/...`); those of
//! Locations are the same operations under `/locations/taxonomies/...`
//! ([`super::location_api`]). Each handler names its [`Scope`].

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::http::idempotency::answer::answers_with;
use crate::http::services;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::taxonomies::model::DeletedMasterRecord;
use crate::resources::taxonomies::model::Feature;
use crate::resources::taxonomies::model::FeatureChanges;
use crate::resources::taxonomies::model::NewFeature;
use crate::resources::taxonomies::model::NewTaxonomy;
use crate::resources::taxonomies::model::Scope;
use crate::resources::taxonomies::model::Taxonomy;
use crate::resources::taxonomies::model::TaxonomyChanges;
use crate::resources::taxonomies::model::TaxonomyList;

#[derive(Tags)]
enum TaxonomyTags {
    /// Product taxonomies (department, brand, season) and their features
    /// (dairy, bakery): what campaigns read with `line.has_feature`.
    ProductTaxonomies,
}

/// Product taxonomy and feature endpoints.
#[derive(Debug, Default)]
pub struct TaxonomiesApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for TaxonomiesApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /taxonomies",
            codes: &[],
        },
        OperationErrors {
            operation: "POST /taxonomies",
            codes: &[ErrorCode::TaxonomyAlreadyExists],
        },
        OperationErrors {
            operation: "GET /taxonomies/{slug}",
            codes: &[ErrorCode::TaxonomyNotFound],
        },
        OperationErrors {
            operation: "PATCH /taxonomies/{slug}",
            codes: &[ErrorCode::TaxonomyNotFound],
        },
        OperationErrors {
            operation: "DELETE /taxonomies/{slug}",
            codes: &[ErrorCode::TaxonomyNotFound, ErrorCode::TaxonomyInUse],
        },
        OperationErrors {
            operation: "POST /taxonomies/{taxonomy_slug}/features",
            codes: &[
                ErrorCode::TaxonomyNotFound,
                ErrorCode::FeatureAlreadyExists,
                ErrorCode::UnknownFeature,
                ErrorCode::ConcurrentModification,
            ],
        },
        OperationErrors {
            operation: "PATCH /taxonomies/{taxonomy_slug}/features/{id}",
            codes: &[
                ErrorCode::TaxonomyNotFound,
                ErrorCode::FeatureNotFound,
                ErrorCode::UnknownFeature,
                ErrorCode::FeatureParentCycle,
                ErrorCode::ConcurrentModification,
            ],
        },
        OperationErrors {
            operation: "DELETE /taxonomies/{taxonomy_slug}/features/{id}",
            codes: &[
                ErrorCode::TaxonomyNotFound,
                ErrorCode::FeatureNotFound,
                ErrorCode::FeatureInUse,
            ],
        },
    ];
}

#[OpenApi]
impl TaxonomiesApi {
    /// List the Product taxonomies, each with its features.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(
        path = "/taxonomies",
        method = "get",
        tag = "TaxonomyTags::ProductTaxonomies"
    )]
    async fn list_product_taxonomies(
        &self,
        caller: Tier2,
        request: &poem::Request,
    ) -> Result<Json<TaxonomyList>, ErrorResponse> {
        let taxonomies = services(request)?
            .taxonomy_list(&caller.0.company, Scope::Product)
            .await?;
        Ok(Json(TaxonomyList { taxonomies }))
    }

    /// Create a Product taxonomy.
    ///
    /// Its `slug` is permanent: features maps and campaign conditions
    /// (`line.has_feature("department", ...)`) name it. A slug
    /// already used by a Product taxonomy is 409 `taxonomy_already_exists`.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/taxonomies",
        method = "post",
        tag = "TaxonomyTags::ProductTaxonomies"
    )]
    async fn create_product_taxonomy(
        &self,
        caller: Tier3,
        request: &poem::Request,
        body: Json<NewTaxonomy>,
    ) -> Result<Json<Taxonomy>, ErrorResponse> {
        answers_with(request, Taxonomy::clone);
        Ok(Json(
            services(request)?
                .create_taxonomy(&caller.0.company, Scope::Product, body.0)
                .await?,
        ))
    }

    /// Get a Product taxonomy with its features.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(
        path = "/taxonomies/:slug",
        method = "get",
        tag = "TaxonomyTags::ProductTaxonomies"
    )]
    async fn get_product_taxonomy(
        &self,
        caller: Tier2,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
    ) -> Result<Json<Taxonomy>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .taxonomy(&caller.0.company, Scope::Product, &slug.0)
                .await?,
        ))
    }

    /// Update a Product taxonomy: its name or description (the slug is
    /// permanent).
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/taxonomies/:slug",
        method = "patch",
        tag = "TaxonomyTags::ProductTaxonomies"
    )]
    async fn update_product_taxonomy(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
        body: Json<TaxonomyChanges>,
    ) -> Result<Json<Taxonomy>, ErrorResponse> {
        answers_with(request, Taxonomy::clone);
        Ok(Json(
            services(request)?
                .update_taxonomy(&caller.0.company, Scope::Product, &slug.0, body.0)
                .await?,
        ))
    }

    /// Delete a Product taxonomy and its features.
    ///
    /// While Products carry any of its features it is refused with 409
    /// `taxonomy_in_use` and nothing changes; with `detach=true` its
    /// features are taken off them first (`detached` says how many).
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/taxonomies/:slug",
        method = "delete",
        tag = "TaxonomyTags::ProductTaxonomies"
    )]
    async fn delete_product_taxonomy(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
        /// Take the taxonomy's features off the Products carrying them.
        detach: Query<Option<bool>>,
    ) -> Result<Json<DeletedMasterRecord>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .delete_taxonomy(
                    &caller.0.company,
                    Scope::Product,
                    &slug.0,
                    detach.0.unwrap_or(false),
                )
                .await?,
        ))
    }

    /// Create a feature of a Product taxonomy.
    ///
    /// A `parent` (slug or id of a feature of the same taxonomy) puts it
    /// under that feature: a condition on the parent covers it. A parent the
    /// taxonomy lacks is 422 `unknown_feature`.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/taxonomies/:taxonomy_slug/features",
        method = "post",
        tag = "TaxonomyTags::ProductTaxonomies"
    )]
    async fn create_product_feature(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] taxonomy_slug: Path<String>,
        body: Json<NewFeature>,
    ) -> Result<Json<Feature>, ErrorResponse> {
        answers_with(request, Feature::clone);
        Ok(Json(
            services(request)?
                .create_feature(&caller.0.company, Scope::Product, &taxonomy_slug.0, body.0)
                .await?,
        ))
    }

    /// Update a feature of a Product taxonomy (`id`: its id or slug).
    ///
    /// A new `parent` under the feature itself is 422
    /// `feature_parent_cycle`; null makes it top-level.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/taxonomies/:taxonomy_slug/features/:id",
        method = "patch",
        tag = "TaxonomyTags::ProductTaxonomies"
    )]
    async fn update_product_feature(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] taxonomy_slug: Path<String>,
        #[oai(validator(min_length = 1, max_length = 64))] id: Path<String>,
        body: Json<FeatureChanges>,
    ) -> Result<Json<Feature>, ErrorResponse> {
        answers_with(request, Feature::clone);
        Ok(Json(
            services(request)?
                .update_feature(
                    &caller.0.company,
                    Scope::Product,
                    &taxonomy_slug.0,
                    &id.0,
                    body.0,
                )
                .await?,
        ))
    }

    /// Delete a feature of a Product taxonomy (`id`: its id or slug).
    ///
    /// While Products carry it or features have it as their parent it is
    /// refused with 409 `feature_in_use`; with `detach=true` it is taken off
    /// them and its children move up to its parent.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/taxonomies/:taxonomy_slug/features/:id",
        method = "delete",
        tag = "TaxonomyTags::ProductTaxonomies"
    )]
    async fn delete_product_feature(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] taxonomy_slug: Path<String>,
        #[oai(validator(min_length = 1, max_length = 64))] id: Path<String>,
        /// Take the feature off the Products carrying it.
        detach: Query<Option<bool>>,
    ) -> Result<Json<DeletedMasterRecord>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .delete_feature(
                    &caller.0.company,
                    Scope::Product,
                    &taxonomy_slug.0,
                    &id.0,
                    detach.0.unwrap_or(false),
                )
                .await?,
        ))
    }
}
