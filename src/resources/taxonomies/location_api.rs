//! Taxonomies and features of Locations (`/locations/taxonomies/...`): the
//! operations of product taxonomies ([`super::api`]) on the Locations'
//! own set, each handler naming [`Scope::Location`].

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
enum LocationTaxonomyTags {
    /// Location taxonomies (region, store format) and their features: what
    /// campaigns read with `location.has_feature`.
    LocationTaxonomies,
}

/// Location taxonomy and feature endpoints.
#[derive(Debug, Default)]
pub struct LocationTaxonomiesApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for LocationTaxonomiesApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /locations/taxonomies",
            codes: &[],
        },
        OperationErrors {
            operation: "POST /locations/taxonomies",
            codes: &[ErrorCode::TaxonomyAlreadyExists],
        },
        OperationErrors {
            operation: "GET /locations/taxonomies/{slug}",
            codes: &[ErrorCode::TaxonomyNotFound],
        },
        OperationErrors {
            operation: "PATCH /locations/taxonomies/{slug}",
            codes: &[ErrorCode::TaxonomyNotFound],
        },
        OperationErrors {
            operation: "DELETE /locations/taxonomies/{slug}",
            codes: &[ErrorCode::TaxonomyNotFound, ErrorCode::TaxonomyInUse],
        },
        OperationErrors {
            operation: "POST /locations/taxonomies/{taxonomy_slug}/features",
            codes: &[
                ErrorCode::TaxonomyNotFound,
                ErrorCode::FeatureAlreadyExists,
                ErrorCode::UnknownFeature,
                ErrorCode::ConcurrentModification,
            ],
        },
        OperationErrors {
            operation: "PATCH /locations/taxonomies/{taxonomy_slug}/features/{id}",
            codes: &[
                ErrorCode::TaxonomyNotFound,
                ErrorCode::FeatureNotFound,
                ErrorCode::UnknownFeature,
                ErrorCode::FeatureParentCycle,
                ErrorCode::ConcurrentModification,
            ],
        },
        OperationErrors {
            operation: "DELETE /locations/taxonomies/{taxonomy_slug}/features/{id}",
            codes: &[
                ErrorCode::TaxonomyNotFound,
                ErrorCode::FeatureNotFound,
                ErrorCode::FeatureInUse,
            ],
        },
    ];
}

#[OpenApi]
impl LocationTaxonomiesApi {
    /// List the Location taxonomies, each with its features.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(
        path = "/locations/taxonomies",
        method = "get",
        tag = "LocationTaxonomyTags::LocationTaxonomies"
    )]
    async fn list_location_taxonomies(
        &self,
        caller: Tier2,
        request: &poem::Request,
    ) -> Result<Json<TaxonomyList>, ErrorResponse> {
        let taxonomies = services(request)?
            .taxonomy_list(&caller.0.company, Scope::Location)
            .await?;
        Ok(Json(TaxonomyList { taxonomies }))
    }

    /// Create a Location taxonomy.
    ///
    /// Its `slug` is permanent: features maps and campaign conditions
    /// (`location.has_feature("region", ...)`) name it. A slug
    /// already used by a Location taxonomy is 409 `taxonomy_already_exists`.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/locations/taxonomies",
        method = "post",
        tag = "LocationTaxonomyTags::LocationTaxonomies"
    )]
    async fn create_location_taxonomy(
        &self,
        caller: Tier3,
        request: &poem::Request,
        body: Json<NewTaxonomy>,
    ) -> Result<Json<Taxonomy>, ErrorResponse> {
        answers_with(request, Taxonomy::clone);
        Ok(Json(
            services(request)?
                .create_taxonomy(&caller.0.company, Scope::Location, body.0)
                .await?,
        ))
    }

    /// Get a Location taxonomy with its features.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(
        path = "/locations/taxonomies/:slug",
        method = "get",
        tag = "LocationTaxonomyTags::LocationTaxonomies"
    )]
    async fn get_location_taxonomy(
        &self,
        caller: Tier2,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
    ) -> Result<Json<Taxonomy>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .taxonomy(&caller.0.company, Scope::Location, &slug.0)
                .await?,
        ))
    }

    /// Update a Location taxonomy: its name or description (the slug is
    /// permanent).
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/locations/taxonomies/:slug",
        method = "patch",
        tag = "LocationTaxonomyTags::LocationTaxonomies"
    )]
    async fn update_location_taxonomy(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
        body: Json<TaxonomyChanges>,
    ) -> Result<Json<Taxonomy>, ErrorResponse> {
        answers_with(request, Taxonomy::clone);
        Ok(Json(
            services(request)?
                .update_taxonomy(&caller.0.company, Scope::Location, &slug.0, body.0)
                .await?,
        ))
    }

    /// Delete a Location taxonomy and its features.
    ///
    /// While Locations carry any of its features it is refused with 409
    /// `taxonomy_in_use` and nothing changes; with `detach=true` its
    /// features are taken off them first (`detached` says how many).
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/locations/taxonomies/:slug",
        method = "delete",
        tag = "LocationTaxonomyTags::LocationTaxonomies"
    )]
    async fn delete_location_taxonomy(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
        /// Take the taxonomy's features off the Locations carrying them.
        detach: Query<Option<bool>>,
    ) -> Result<Json<DeletedMasterRecord>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .delete_taxonomy(
                    &caller.0.company,
                    Scope::Location,
                    &slug.0,
                    detach.0.unwrap_or(false),
                )
                .await?,
        ))
    }

    /// Create a feature of a Location taxonomy.
    ///
    /// A `parent` (slug or id of a feature of the same taxonomy) puts it
    /// under that feature: a condition on the parent covers it. A parent the
    /// taxonomy lacks is 422 `unknown_feature`.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/locations/taxonomies/:taxonomy_slug/features",
        method = "post",
        tag = "LocationTaxonomyTags::LocationTaxonomies"
    )]
    async fn create_location_feature(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] taxonomy_slug: Path<String>,
        body: Json<NewFeature>,
    ) -> Result<Json<Feature>, ErrorResponse> {
        answers_with(request, Feature::clone);
        Ok(Json(
            services(request)?
                .create_feature(&caller.0.company, Scope::Location, &taxonomy_slug.0, body.0)
                .await?,
        ))
    }

    /// Update a feature of a Location taxonomy (`id`: its id or slug).
    ///
    /// A new `parent` under the feature itself is 422
    /// `feature_parent_cycle`; null makes it top-level.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/locations/taxonomies/:taxonomy_slug/features/:id",
        method = "patch",
        tag = "LocationTaxonomyTags::LocationTaxonomies"
    )]
    async fn update_location_feature(
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
                    Scope::Location,
                    &taxonomy_slug.0,
                    &id.0,
                    body.0,
                )
                .await?,
        ))
    }

    /// Delete a feature of a Location taxonomy (`id`: its id or slug).
    ///
    /// While Locations carry it or features have it as their parent it is
    /// refused with 409 `feature_in_use`; with `detach=true` it is taken off
    /// them and its children move up to its parent.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(
        path = "/locations/taxonomies/:taxonomy_slug/features/:id",
        method = "delete",
        tag = "LocationTaxonomyTags::LocationTaxonomies"
    )]
    async fn delete_location_feature(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] taxonomy_slug: Path<String>,
        #[oai(validator(min_length = 1, max_length = 64))] id: Path<String>,
        /// Take the feature off the Locations carrying it.
        detach: Query<Option<bool>>,
    ) -> Result<Json<DeletedMasterRecord>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .delete_feature(
                    &caller.0.company,
                    Scope::Location,
                    &taxonomy_slug.0,
                    &id.0,
                    detach.0.unwrap_or(false),
                )
                .await?,
        ))
    }
}
