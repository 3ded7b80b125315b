//! Locations: created, read by id or code, changed and deleted; each change
//! reaches the engine's catalogue at once.

use poem_openapi::types::MaybeUndefined;

use crate::common::ids::time_ordered_id;
use crate::common::pagination::{Page, PageRequest};
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::customers::model::normalise_code;
use crate::resources::locations::model::Location;
use crate::resources::locations::model::LocationChanges;
use crate::resources::locations::model::NewLocation;
use crate::resources::master_data::model::normalise_features;
use crate::resources::master_data::search_by::MasterSearchBy;
use crate::resources::master_data::service::check_attributes;
use crate::resources::master_data::service::record_keys;
use crate::resources::master_data::store::RecordKind;
use crate::resources::taxonomies::model::DeletedMasterRecord;
use crate::resources::taxonomies::model::Scope;
use crate::services::Services;

/// Locations in the store.
pub const LOCATIONS: RecordKind = RecordKind {
    table: "location",
    keys_table: "location_key",
    scope: Scope::Location,
    label: "Location",
    taken: ErrorCode::LocationAlreadyExists,
    missing: ErrorCode::LocationNotFound,
};

/// `zone` if it is an IANA time zone name, as the zone spells it.
fn time_zone(zone: &str) -> ApiResult<String> {
    zone.trim()
        .parse::<chrono_tz::Tz>()
        .map(|tz| tz.name().to_string())
        .map_err(|_| {
            ApiError::invalid(format!(
                "`time_zone` `{zone}` is not an IANA time zone (e.g. Europe/Madrid)"
            ))
        })
}

impl Services {
    /// Creates a Location.
    pub async fn create_location(&self, company: &str, new: NewLocation) -> ApiResult<Location> {
        let company_zone = self.company_locale(company).await?.time_zone;
        let location = new_location(new, time_ordered_id("loc"), self.now(), company_zone)?;
        self.save_location(company, location, false).await
    }

    /// A page of the Company's Locations, in id order; with `feature`
    /// (`taxonomy:feature`), those carrying it or a feature below it.
    pub async fn locations(
        &self,
        company: &str,
        feature: Option<&str>,
        page: &PageRequest,
    ) -> ApiResult<Page<Location>> {
        self.list_master_records(LOCATIONS, company, feature, page)
            .await
    }

    /// Location `value`, as `by` reads it.
    pub async fn location(
        &self,
        company: &str,
        value: &str,
        by: MasterSearchBy,
    ) -> ApiResult<Location> {
        self.find_master_record(LOCATIONS, company, value, by).await
    }

    /// Changes Location `value` (as `by` reads it).
    pub async fn update_location(
        &self,
        company: &str,
        value: &str,
        by: MasterSearchBy,
        changes: LocationChanges,
    ) -> ApiResult<Location> {
        let mut location = self.location(company, value, by).await?;
        if let Some(code) = changes.code {
            location.code = normalise_code(&code)?;
        }
        if let Some(name) = changes.name {
            location.name = name.trim().to_string();
        }
        if let Some(country) = changes.country {
            location.country = country.to_ascii_uppercase();
        }
        match changes.address {
            MaybeUndefined::Value(address) => location.address = Some(address),
            MaybeUndefined::Null => location.address = None,
            MaybeUndefined::Undefined => {}
        }
        match changes.coordinates {
            MaybeUndefined::Value(coordinates) => location.coordinates = Some(coordinates),
            MaybeUndefined::Null => location.coordinates = None,
            MaybeUndefined::Undefined => {}
        }
        if let Some(zone) = changes.time_zone {
            location.time_zone = time_zone(&zone)?;
        }
        if let Some(features) = changes.features {
            location.features = normalise_features(features)?;
        }
        if let Some(attributes) = changes.attributes {
            location.attributes = attributes;
        }
        location.updated_at = self.now();
        self.save_location(company, location, true).await
    }

    /// Deletes Location `value` (as `by` reads it); its code is free again.
    pub async fn delete_location(
        &self,
        company: &str,
        value: &str,
        by: MasterSearchBy,
    ) -> ApiResult<DeletedMasterRecord> {
        let location = self.location(company, value, by).await?;
        self.delete_master_record(LOCATIONS, company, &location.id)
            .await?;
        tracing::info!(company, id = %location.id, code = %location.code, "location deleted");
        Ok(DeletedMasterRecord {
            id: location.id,
            result: "deleted".into(),
            detached: 0,
        })
    }

    /// Checks `location` and writes it.
    async fn save_location(
        &self,
        company: &str,
        location: Location,
        replace: bool,
    ) -> ApiResult<Location> {
        let (location, keys) = checked_location(location)?;
        self.write_master_record(
            LOCATIONS,
            company,
            (&location, &keys, &location.features),
            replace,
        )
        .await?;
        Ok(location)
    }
}

/// The Location `new` describes, with id `id`, made at `now`; in
/// `company_zone` unless it names its own.
pub(crate) fn new_location(
    new: NewLocation,
    id: String,
    now: Timestamp,
    company_zone: chrono_tz::Tz,
) -> ApiResult<Location> {
    Ok(Location {
        id,
        code: normalise_code(&new.code)?,
        name: new.name.trim().to_string(),
        country: new.country.to_ascii_uppercase(),
        address: new.address,
        coordinates: new.coordinates,
        time_zone: match new.time_zone {
            Some(zone) => time_zone(&zone)?,
            None => company_zone.name().to_string(),
        },
        features: normalise_features(new.features)?,
        attributes: new.attributes,
        created_at: now,
        updated_at: now,
    })
}

/// `location` checked whole, with its unique key: its code.
pub(crate) fn checked_location(location: Location) -> ApiResult<(Location, Vec<String>)> {
    check_attributes(&location.attributes)?;
    let keys = record_keys(&location.code, &[])?;
    Ok((location, keys))
}
