//! Taxonomies and features of Products (`/taxonomies/...`) and of Locations
//! (`/locations/taxonomies/...`): the same eight operations on each scope's
//! own set, written once in `scoped_taxonomy_api!` and declared twice, each
//! with its [`Scope`], path prefix, tag and operation ids.

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
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

/// The taxonomy and feature operations of one scope: the API struct `api`
/// serving them under `prefix`, its declared errors, and each operation
/// (named by `operations`, in the order list, create, get, update, delete,
/// create feature, update feature, delete feature) under `tag` on `scope`.
macro_rules! scoped_taxonomy_api {
    (
        $(#[$doc:meta])*
        api: $api:ident,
        scope: $scope:expr,
        prefix: $prefix:tt,
        tag: $tag:tt,
        operations: [
            $list:ident,
            $create:ident,
            $get:ident,
            $update:ident,
            $delete:ident,
            $create_feature:ident,
            $update_feature:ident,
            $delete_feature:ident $(,)?
        ] $(,)?
    ) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub struct $api;

        /// The error codes of its own each operation answers.
        impl DeclaredErrors for $api {
            const ERRORS: &'static [OperationErrors] = &[
                OperationErrors {
                    operation: concat!("GET ", $prefix, "/taxonomies"),
                    codes: &[],
                },
                OperationErrors {
                    operation: concat!("POST ", $prefix, "/taxonomies"),
                    codes: &[ErrorCode::TaxonomyAlreadyExists],
                },
                OperationErrors {
                    operation: concat!("GET ", $prefix, "/taxonomies/{slug}"),
                    codes: &[ErrorCode::TaxonomyNotFound],
                },
                OperationErrors {
                    operation: concat!("PATCH ", $prefix, "/taxonomies/{slug}"),
                    codes: &[ErrorCode::TaxonomyNotFound],
                },
                OperationErrors {
                    operation: concat!("DELETE ", $prefix, "/taxonomies/{slug}"),
                    codes: &[ErrorCode::TaxonomyNotFound, ErrorCode::TaxonomyInUse],
                },
                OperationErrors {
                    operation: concat!("POST ", $prefix, "/taxonomies/{taxonomy_slug}/features"),
                    codes: &[
                        ErrorCode::TaxonomyNotFound,
                        ErrorCode::FeatureAlreadyExists,
                        ErrorCode::UnknownFeature,
                        ErrorCode::ConcurrentModification,
                    ],
                },
                OperationErrors {
                    operation: concat!("PATCH ", $prefix, "/taxonomies/{taxonomy_slug}/features/{id}"),
                    codes: &[
                        ErrorCode::TaxonomyNotFound,
                        ErrorCode::FeatureNotFound,
                        ErrorCode::UnknownFeature,
                        ErrorCode::FeatureParentCycle,
                        ErrorCode::ConcurrentModification,
                    ],
                },
                OperationErrors {
                    operation: concat!("DELETE ", $prefix, "/taxonomies/{taxonomy_slug}/features/{id}"),
                    codes: &[
                        ErrorCode::TaxonomyNotFound,
                        ErrorCode::FeatureNotFound,
                        ErrorCode::FeatureInUse,
                    ],
                },
            ];
        }

        #[OpenApi(prefix_path = $prefix)]
        impl $api {
            /// List the taxonomies, each with its features.
            ///
            /// Rate limit: tier 2 (moderate).
            #[oai(
                path = "/taxonomies",
                method = "get",
                tag = $tag
            )]
            async fn $list(
                &self,
                caller: Tier2<'_>,
            ) -> Result<Json<TaxonomyList>, ErrorResponse> {
                let taxonomies = caller.services
                    .taxonomy_list(&caller.company, $scope)
                    .await?;
                Ok(Json(TaxonomyList { taxonomies }))
            }

            /// Create a taxonomy.
            ///
            /// Its `slug` is permanent: features maps and campaign conditions
            /// (`line.has_feature("department", ...)` of a Product,
            /// `location.has_feature("region", ...)` of a Location) name it. A slug
            /// already used by a taxonomy of the same set is 409
            /// `taxonomy_already_exists`.
            ///
            /// Rate limit: tier 3 (low).
            #[oai(
                path = "/taxonomies",
                method = "post",
                tag = $tag
            )]
            async fn $create(
                &self,
                caller: Tier3<'_>,
                body: Json<NewTaxonomy>,
            ) -> Result<Json<Taxonomy>, ErrorResponse> {
                caller.answers_with(Taxonomy::clone);
                Ok(Json(
                    caller.services
                        .create_taxonomy(&caller.company, $scope, body.0)
                        .await?,
                ))
            }

            /// Get a taxonomy with its features.
            ///
            /// Rate limit: tier 2 (moderate).
            #[oai(
                path = "/taxonomies/:slug",
                method = "get",
                tag = $tag
            )]
            async fn $get(
                &self,
                caller: Tier2<'_>,
                #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
            ) -> Result<Json<Taxonomy>, ErrorResponse> {
                Ok(Json(
                    caller.services
                        .taxonomy(&caller.company, $scope, &slug.0)
                        .await?,
                ))
            }

            /// Update a taxonomy: its name or description (the slug is
            /// permanent).
            ///
            /// Rate limit: tier 3 (low).
            #[oai(
                path = "/taxonomies/:slug",
                method = "patch",
                tag = $tag
            )]
            async fn $update(
                &self,
                caller: Tier3<'_>,
                #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
                body: Json<TaxonomyChanges>,
            ) -> Result<Json<Taxonomy>, ErrorResponse> {
                caller.answers_with(Taxonomy::clone);
                Ok(Json(
                    caller.services
                        .update_taxonomy(&caller.company, $scope, &slug.0, body.0)
                        .await?,
                ))
            }

            /// Delete a taxonomy and its features.
            ///
            /// While Products (Locations, of a Location taxonomy) carry any of its features it is refused with 409
            /// `taxonomy_in_use` and nothing changes; with `detach=true` its
            /// features are taken off them first (`detached` says how many).
            ///
            /// Rate limit: tier 3 (low).
            #[oai(
                path = "/taxonomies/:slug",
                method = "delete",
                tag = $tag
            )]
            async fn $delete(
                &self,
                caller: Tier3<'_>,
                #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] slug: Path<String>,
                /// Take the taxonomy's features off the records carrying them.
                detach: Query<Option<bool>>,
            ) -> Result<Json<DeletedMasterRecord>, ErrorResponse> {
                Ok(Json(
                    caller.services
                        .delete_taxonomy(
                            &caller.company,
                            $scope,
                            &slug.0,
                            detach.0.unwrap_or(false),
                        )
                        .await?,
                ))
            }

            /// Create a feature of a taxonomy.
            ///
            /// A `parent` (slug or id of a feature of the same taxonomy) puts it
            /// under that feature: a condition on the parent covers it. A parent the
            /// taxonomy lacks is 422 `unknown_feature`.
            ///
            /// Rate limit: tier 3 (low).
            #[oai(
                path = "/taxonomies/:taxonomy_slug/features",
                method = "post",
                tag = $tag
            )]
            async fn $create_feature(
                &self,
                caller: Tier3<'_>,
                #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] taxonomy_slug: Path<String>,
                body: Json<NewFeature>,
            ) -> Result<Json<Feature>, ErrorResponse> {
                caller.answers_with(Feature::clone);
                Ok(Json(
                    caller.services
                        .create_feature(&caller.company, $scope, &taxonomy_slug.0, body.0)
                        .await?,
                ))
            }

            /// Update a feature of a taxonomy (`id`: its id or slug).
            ///
            /// A new `parent` under the feature itself is 422
            /// `feature_parent_cycle`; null makes it top-level.
            ///
            /// Rate limit: tier 3 (low).
            #[oai(
                path = "/taxonomies/:taxonomy_slug/features/:id",
                method = "patch",
                tag = $tag
            )]
            async fn $update_feature(
                &self,
                caller: Tier3<'_>,
                #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] taxonomy_slug: Path<String>,
                #[oai(validator(min_length = 1, max_length = 64))] id: Path<String>,
                body: Json<FeatureChanges>,
            ) -> Result<Json<Feature>, ErrorResponse> {
                caller.answers_with(Feature::clone);
                Ok(Json(
                    caller.services
                        .update_feature(
                            &caller.company,
                            $scope,
                            &taxonomy_slug.0,
                            &id.0,
                            body.0,
                        )
                        .await?,
                ))
            }

            /// Delete a feature of a taxonomy (`id`: its id or slug).
            ///
            /// While records (Products or Locations) carry it or features have it as their parent it is
            /// refused with 409 `feature_in_use`; with `detach=true` it is taken off
            /// them and its children move up to its parent.
            ///
            /// Rate limit: tier 3 (low).
            #[oai(
                path = "/taxonomies/:taxonomy_slug/features/:id",
                method = "delete",
                tag = $tag
            )]
            async fn $delete_feature(
                &self,
                caller: Tier3<'_>,
                #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}$"))] taxonomy_slug: Path<String>,
                #[oai(validator(min_length = 1, max_length = 64))] id: Path<String>,
                /// Take the feature off the records carrying it.
                detach: Query<Option<bool>>,
            ) -> Result<Json<DeletedMasterRecord>, ErrorResponse> {
                Ok(Json(
                    caller.services
                        .delete_feature(
                            &caller.company,
                            $scope,
                            &taxonomy_slug.0,
                            &id.0,
                            detach.0.unwrap_or(false),
                        )
                        .await?,
                ))
            }
        }
    };
}

#[derive(Tags)]
enum TaxonomyTags {
    /// Product taxonomies (department, brand, season) and their features
    /// (dairy, bakery): what campaigns read with `line.has_feature`.
    ProductTaxonomies,
    /// Location taxonomies (region, store format) and their features: what
    /// campaigns read with `location.has_feature`.
    LocationTaxonomies,
}

scoped_taxonomy_api! {
    /// Product taxonomy and feature endpoints.
    api: TaxonomiesApi,
    scope: Scope::Product,
    prefix: "",
    tag: "TaxonomyTags::ProductTaxonomies",
    operations: [
        list_product_taxonomies,
        create_product_taxonomy,
        get_product_taxonomy,
        update_product_taxonomy,
        delete_product_taxonomy,
        create_product_feature,
        update_product_feature,
        delete_product_feature,
    ],
}

scoped_taxonomy_api! {
    /// Location taxonomy and feature endpoints.
    api: LocationTaxonomiesApi,
    scope: Scope::Location,
    prefix: "/locations",
    tag: "TaxonomyTags::LocationTaxonomies",
    operations: [
        list_location_taxonomies,
        create_location_taxonomy,
        get_location_taxonomy,
        update_location_taxonomy,
        delete_location_taxonomy,
        create_location_feature,
        update_location_feature,
        delete_location_feature,
    ],
}
