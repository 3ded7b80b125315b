//! Locations (stores, warehouses, web shops) as the API takes and answers them.

use std::collections::BTreeMap;

use poem_openapi::Object;
use poem_openapi::types::MaybeUndefined;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;
use crate::resources::master_data::model::FeatureMap;

/// A postal address.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Object)]
pub struct Address {
    /// Street and number.
    #[oai(validator(max_length = 200))]
    pub line1: Option<String>,
    /// Floor, unit, building.
    #[oai(validator(max_length = 200))]
    pub line2: Option<String>,
    /// City.
    #[oai(validator(max_length = 100))]
    pub city: Option<String>,
    /// Postal code.
    #[oai(validator(max_length = 20))]
    pub postal_code: Option<String>,
    /// Region, state or province.
    #[oai(validator(max_length = 100))]
    pub region: Option<String>,
}

/// Where a Location is on the map.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Object)]
pub struct Coordinates {
    /// Degrees north (negative south), -90 to 90.
    #[oai(validator(minimum(value = "-90"), maximum(value = "90")))]
    pub latitude: f64,
    /// Degrees east (negative west), -180 to 180.
    #[oai(validator(minimum(value = "-180"), maximum(value = "180")))]
    pub longitude: f64,
}

/// A new Location.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct NewLocation {
    /// The Company's code for it, as carts send it in `location_code`
    /// (unique within the Company).
    #[oai(validator(min_length = 1, max_length = 128))]
    pub code: String,
    /// Its name.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: String,
    /// ISO 3166-1 alpha-2 country code (`ES`); Instant Win `countries`
    /// match it.
    #[oai(validator(pattern = r"^[A-Za-z]{2}$"))]
    pub country: String,
    /// Its postal address.
    pub address: Option<Address>,
    /// Where it is.
    pub coordinates: Option<Coordinates>,
    /// Its IANA time zone (`Europe/Madrid`): a cart's local day, weekday and
    /// hour there are read in it. Default: the Company's.
    #[oai(validator(min_length = 1, max_length = 64))]
    pub time_zone: Option<String>,
    /// Its features: Location taxonomy slug to feature slugs
    /// (`{"region": ["north"]}`); each must exist (422 `unknown_feature`).
    #[oai(default, validator(max_properties = 50))]
    #[serde(default)]
    pub features: FeatureMap,
    /// The Company's own fields, read by campaigns as `location.attributes`.
    #[oai(default, validator(max_properties = 50))]
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
}

/// Changes to a Location: the fields sent replace the stored ones
/// (`features`, `address` and `attributes` whole).
#[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct LocationChanges {
    /// New code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub code: Option<String>,
    /// New name.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Option<String>,
    /// New country.
    #[oai(validator(pattern = r"^[A-Za-z]{2}$"))]
    pub country: Option<String>,
    /// New address, or null to clear it.
    pub address: MaybeUndefined<Address>,
    /// New coordinates, or null to clear them.
    pub coordinates: MaybeUndefined<Coordinates>,
    /// New IANA time zone.
    #[oai(validator(min_length = 1, max_length = 64))]
    pub time_zone: Option<String>,
    /// New features.
    #[oai(validator(max_properties = 50))]
    pub features: Option<FeatureMap>,
    /// New attributes.
    #[oai(validator(max_properties = 50))]
    pub attributes: Option<BTreeMap<String, serde_json::Value>>,
}

/// A Location of the Company.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct Location {
    /// Its id (`loc_...`).
    pub id: String,
    /// Its code.
    pub code: String,
    /// Its name.
    pub name: String,
    /// Its country.
    pub country: String,
    /// Its address.
    pub address: Option<Address>,
    /// Its coordinates.
    pub coordinates: Option<Coordinates>,
    /// Its IANA time zone.
    pub time_zone: String,
    /// Its features.
    #[serde(default)]
    pub features: FeatureMap,
    /// The Company's own fields.
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A page of Locations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct LocationList {
    /// The Locations, in id order (the order they were created).
    pub locations: Vec<Location>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}
