//! Locations: POST and GET /locations, GET, PATCH and DELETE /locations/{value}.

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
use crate::resources::locations::model::Location;
use crate::resources::locations::model::LocationChanges;
use crate::resources::locations::model::LocationList;
use crate::resources::locations::model::NewLocation;
use crate::resources::master_data::search_by::MasterSearchBy;
use crate::resources::taxonomies::model::DeletedMasterRecord;

#[derive(Tags)]
enum LocationTags {
    /// Locations: the stores a cart's `location_code` names, with the
    /// country, time zone and features campaigns read.
    Locations,
}

/// Location endpoints.
#[derive(Debug, Default)]
pub struct LocationsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for LocationsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /locations",
            codes: &[ErrorCode::LocationAlreadyExists, ErrorCode::UnknownFeature],
        },
        OperationErrors {
            operation: "GET /locations",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /locations/{value}",
            codes: &[ErrorCode::LocationNotFound],
        },
        OperationErrors {
            operation: "PATCH /locations/{value}",
            codes: &[
                ErrorCode::LocationNotFound,
                ErrorCode::LocationAlreadyExists,
                ErrorCode::UnknownFeature,
            ],
        },
        OperationErrors {
            operation: "DELETE /locations/{value}",
            codes: &[ErrorCode::LocationNotFound],
        },
    ];
}

#[OpenApi(tag = "LocationTags::Locations")]
impl LocationsApi {
    /// Create a Location.
    ///
    /// A cart whose `location_code` is its code is seen by campaigns with
    /// the Location (`location.has_feature("region", "north")`,
    /// `location.country`), and its local day, weekday and hour are read in
    /// the Location's `time_zone`. A code already another Location's is 409
    /// `location_already_exists`; a feature the Company lacks is 422
    /// `unknown_feature`.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/locations", method = "post")]
    async fn create(
        &self,
        caller: Tier3,
        request: &poem::Request,
        body: Json<NewLocation>,
    ) -> Result<Json<Location>, ErrorResponse> {
        answers_with(request, Location::clone);
        Ok(Json(
            services(request)?
                .create_location(&caller.0.company, body.0)
                .await?,
        ))
    }

    /// List Locations.
    ///
    /// Every Location of the Company, in id order (the order they were
    /// created), one page at a time (`per_page` 1 to 100, default 20;
    /// `starting_after` the previous page's `next_token_starts_after`).
    /// With `feature` (`taxonomy:feature`, such as `region:north`), only
    /// those carrying it or a feature below it.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/locations", method = "get")]
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
    ) -> Result<Json<LocationList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let page = services(request)?
            .locations(&caller.0.company, feature.0.as_deref(), &page)
            .await?;
        Ok(Json(LocationList {
            locations: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }

    /// Get a Location.
    ///
    /// `value` is the Location id (`loc_...`), or with `search_by=code` its
    /// code.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/locations/:value", method = "get")]
    async fn get(
        &self,
        caller: Tier2,
        request: &poem::Request,
        #[oai(validator(min_length = 1, max_length = 128))] value: Path<String>,
        search_by: Query<Option<MasterSearchBy>>,
    ) -> Result<Json<Location>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .location(&caller.0.company, &value.0, search_by.0.unwrap_or_default())
                .await?,
        ))
    }

    /// Update a Location.
    ///
    /// The fields sent replace the stored ones (`features`, `address` and
    /// `attributes` whole); null clears `address` or `coordinates`. `value`
    /// is read as in GET.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/locations/:value", method = "patch")]
    async fn update(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(min_length = 1, max_length = 128))] value: Path<String>,
        search_by: Query<Option<MasterSearchBy>>,
        body: Json<LocationChanges>,
    ) -> Result<Json<Location>, ErrorResponse> {
        answers_with(request, Location::clone);
        Ok(Json(
            services(request)?
                .update_location(
                    &caller.0.company,
                    &value.0,
                    search_by.0.unwrap_or_default(),
                    body.0,
                )
                .await?,
        ))
    }

    /// Delete a Location.
    ///
    /// Carts already recorded keep their `location_code`; its code is free
    /// again. `value` is read as in GET.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/locations/:value", method = "delete")]
    async fn delete(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(min_length = 1, max_length = 128))] value: Path<String>,
        search_by: Query<Option<MasterSearchBy>>,
    ) -> Result<Json<DeletedMasterRecord>, ErrorResponse> {
        Ok(Json(
            services(request)?
                .delete_location(&caller.0.company, &value.0, search_by.0.unwrap_or_default())
                .await?,
        ))
    }
}
