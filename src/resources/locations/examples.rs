//! Example requests of the Location operations, published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::locations::model::{Location, LocationChanges, LocationList, NewLocation};
use crate::resources::taxonomies::model::DeletedMasterRecord;

/// A Location as answers show it.
macro_rules! location {
    () => {
        r#"{"id": "loc_019a8c2f4e10a1b2c3d4e5f6", "code": "S9", "name": "Las Palmas",
            "country": "ES", "address": {"line1": "Calle Triana 1", "city": "Las Palmas",
            "postal_code": "35002"}, "coordinates": {"latitude": 28.1, "longitude": -15.41},
            "time_zone": "Atlantic/Canary", "features": {"region": ["canarias"]},
            "attributes": {}, "created_at": "2026-11-23T10:00:00Z",
            "updated_at": "2026-11-23T10:00:00Z"}"#
    };
}

/// The Location operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("POST /locations").takes::<NewLocation>(r#"{"code": "S9", "name": "Las Palmas", "country": "ES",
                "address": {"line1": "Calle Triana 1", "city": "Las Palmas", "postal_code": "35002"},
                "coordinates": {"latitude": 28.1, "longitude": -15.41},
                "time_zone": "Atlantic/Canary", "features": {"region": ["canarias"]}}"#).answers::<Location>(location!()),
    OperationExample::new("GET /locations").answers::<LocationList>(concat!(r#"{"locations": ["#, location!(), "]}")),
    OperationExample::new("GET /locations/{value}").answers::<Location>(location!()),
    OperationExample::new("PATCH /locations/{value}").takes::<LocationChanges>(r#"{"name": "Las Palmas", "features": {"region": ["canarias"]}}"#).answers::<Location>(location!()),
    OperationExample::new("DELETE /locations/{value}").answers::<DeletedMasterRecord>(r#"{"id": "loc_019a8c2f4e10a1b2c3d4e5f6", "result": "deleted", "detached": 0}"#),
];
