//! Example requests of the Location operations, published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

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
    OperationExample {
        operation: "POST /locations",
        request: Some(
            r#"{"code": "S9", "name": "Las Palmas", "country": "ES",
                "address": {"line1": "Calle Triana 1", "city": "Las Palmas", "postal_code": "35002"},
                "coordinates": {"latitude": 28.1, "longitude": -15.41},
                "time_zone": "Atlantic/Canary", "features": {"region": ["canarias"]}}"#,
        ),
        response: Some(location!()),
    },
    OperationExample {
        operation: "GET /locations",
        request: None,
        response: Some(concat!(r#"{"locations": ["#, location!(), "]}")),
    },
    OperationExample {
        operation: "GET /locations/{value}",
        request: None,
        response: Some(location!()),
    },
    OperationExample {
        operation: "PATCH /locations/{value}",
        request: Some(r#"{"name": "Las Palmas", "features": {"region": ["canarias"]}}"#),
        response: Some(location!()),
    },
    OperationExample {
        operation: "DELETE /locations/{value}",
        request: None,
        response: Some(
            r#"{"id": "loc_019a8c2f4e10a1b2c3d4e5f6", "result": "deleted", "detached": 0}"#,
        ),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::locations::model::{
        Location, LocationChanges, LocationList, NewLocation,
    };
    use crate::resources::taxonomies::model::DeletedMasterRecord;

    #[test]
    fn every_example_is_what_the_operation_accepts_and_answers() {
        for example in EXAMPLES {
            let (operation, request, response) =
                (example.operation, example.request, example.response);
            match operation {
                "POST /locations" => parses::<NewLocation>(operation, request),
                "PATCH /locations/{value}" => parses::<LocationChanges>(operation, request),
                "GET /locations/{value}" => {}
                "GET /locations" => {
                    parses::<LocationList>(operation, response);
                    continue;
                }
                "DELETE /locations/{value}" => parses::<DeletedMasterRecord>(operation, response),
                other => panic!("no check for {other}"),
            }
            if operation != "DELETE /locations/{value}" {
                parses::<Location>(operation, response);
            }
        }
    }
}
