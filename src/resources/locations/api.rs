//! Locations: POST and GET /locations, GET, PATCH and DELETE /locations/{value}.

use poem_openapi::Tags;

use crate::error::ErrorCode;
use crate::resources::locations::model::Location;
use crate::resources::locations::model::LocationChanges;
use crate::resources::locations::model::LocationList;
use crate::resources::locations::model::NewLocation;
use crate::resources::master_data::record_api::master_record_api;

#[derive(Tags)]
enum LocationTags {
    /// Locations: the stores a cart's `location_code` names, with the
    /// country, time zone and features campaigns read.
    Locations,
}

master_record_api! {
    /// Location endpoints.
    api: LocationsApi,
    tag: "LocationTags::Locations",
    collection: "/locations",
    item: "/locations/:value",
    item_spec: "/locations/{value}",
    param: value,
    taken: ErrorCode::LocationAlreadyExists,
    missing: ErrorCode::LocationNotFound,
    payloads: {
        new: NewLocation,
        record: Location,
        changes: LocationChanges,
        list: LocationList { locations },
    },
    use_cases: {
        create: create_location,
        list: locations,
        get: location,
        update: update_location,
        delete: delete_location,
    },
    create: {
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
    },
    list: {
        /// List Locations.
        ///
        /// Every Location of the Company, in id order (the order they were
        /// created), one page at a time (`per_page` 1 to 100, default 20;
        /// `starting_after` the previous page's `next_token_starts_after`).
        /// With `feature` (`taxonomy:feature`, such as `region:north`), only
        /// those carrying it or a feature below it.
        ///
        /// Rate limit: tier 2 (moderate).
    },
    get: {
        /// Get a Location.
        ///
        /// `value` is the Location id (`loc_...`), or with `search_by=code` its
        /// code.
        ///
        /// Rate limit: tier 2 (moderate).
    },
    update: {
        /// Update a Location.
        ///
        /// The fields sent replace the stored ones (`features`, `address` and
        /// `attributes` whole); null clears `address` or `coordinates`. `value`
        /// is read as in GET.
        ///
        /// Rate limit: tier 3 (low).
    },
    delete: {
        /// Delete a Location.
        ///
        /// Carts already recorded keep their `location_code`; its code is free
        /// again. `value` is read as in GET.
        ///
        /// Rate limit: tier 3 (low).
    },
}
