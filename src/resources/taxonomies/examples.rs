//! Example requests of the taxonomy and feature operations (of Products
//! and of Locations), published in the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

/// A feature as answers show it: its taxonomy, slug and (when it has one)
/// parent.
macro_rules! feature {
    ($taxonomy:literal, $slug:literal) => {
        concat!(
            r#"{"id": "ftr_019a8c2f4e10a1b2c3d4e5f7", "taxonomy": ""#,
            $taxonomy,
            r#"", "slug": ""#,
            $slug,
            r#"", "name": ""#,
            $slug,
            r#"", "parent": null,
            "discountable": true, "created_at": "2026-11-23T10:00:00Z",
            "updated_at": "2026-11-23T10:00:00Z"}"#
        )
    };
    ($taxonomy:literal, $slug:literal, $parent:literal) => {
        concat!(
            r#"{"id": "ftr_019a8c2f4e10a1b2c3d4e5f8", "taxonomy": ""#,
            $taxonomy,
            r#"", "slug": ""#,
            $slug,
            r#"", "name": ""#,
            $slug,
            r#"", "parent": ""#,
            $parent,
            r#"", "discountable": true, "created_at": "2026-11-23T10:00:00Z",
            "updated_at": "2026-11-23T10:00:00Z"}"#
        )
    };
}

/// A taxonomy with two features, the second under the first.
macro_rules! taxonomy {
    ($slug:literal, $scope:literal, $first:literal, $second:literal) => {
        concat!(
            r#"{"slug": ""#,
            $slug,
            r#"", "name": ""#,
            $slug,
            r#"", "description": null,
            "scope": ""#,
            $scope,
            r#"", "features": ["#,
            feature!($slug, $first),
            ", ",
            feature!($slug, $second, $first),
            r#"], "created_at": "2026-11-23T10:00:00Z", "updated_at": "2026-11-23T10:00:00Z"}"#
        )
    };
}

/// The taxonomy operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample {
        operation: "POST /taxonomies",
        request: Some(r#"{"slug": "department", "name": "Department"}"#),
        response: Some(
            r#"{"slug": "department", "name": "Department", "description": null, "scope": "product",
            "features": [], "created_at": "2026-11-23T10:00:00Z", "updated_at": "2026-11-23T10:00:00Z"}"#,
        ),
    },
    OperationExample {
        operation: "GET /taxonomies",
        request: None,
        response: Some(concat!(
            r#"{"taxonomies": ["#,
            taxonomy!("department", "product", "dairy", "cheese"),
            "]}"
        )),
    },
    OperationExample {
        operation: "GET /taxonomies/{slug}",
        request: None,
        response: Some(taxonomy!("department", "product", "dairy", "cheese")),
    },
    OperationExample {
        operation: "PATCH /taxonomies/{slug}",
        request: Some(r#"{"name": "Departments", "description": "How they are grouped"}"#),
        response: Some(taxonomy!("department", "product", "dairy", "cheese")),
    },
    OperationExample {
        operation: "DELETE /taxonomies/{slug}",
        request: None,
        response: Some(r#"{"id": "department", "result": "deleted", "detached": 12}"#),
    },
    OperationExample {
        operation: "POST /taxonomies/{taxonomy_slug}/features",
        request: Some(r#"{"slug": "cheese", "name": "Cheese", "parent": "dairy"}"#),
        response: Some(feature!("department", "cheese", "dairy")),
    },
    OperationExample {
        operation: "PATCH /taxonomies/{taxonomy_slug}/features/{id}",
        request: Some(r#"{"name": "Cheese", "parent": null}"#),
        response: Some(feature!("department", "cheese")),
    },
    OperationExample {
        operation: "DELETE /taxonomies/{taxonomy_slug}/features/{id}",
        request: None,
        response: Some(
            r#"{"id": "ftr_019a8c2f4e10a1b2c3d4e5f7", "result": "deleted", "detached": 3}"#,
        ),
    },
    OperationExample {
        operation: "POST /locations/taxonomies",
        request: Some(r#"{"slug": "region", "name": "Region"}"#),
        response: Some(
            r#"{"slug": "region", "name": "Region", "description": null, "scope": "location",
            "features": [], "created_at": "2026-11-23T10:00:00Z", "updated_at": "2026-11-23T10:00:00Z"}"#,
        ),
    },
    OperationExample {
        operation: "GET /locations/taxonomies",
        request: None,
        response: Some(concat!(
            r#"{"taxonomies": ["#,
            taxonomy!("region", "location", "north", "basque"),
            "]}"
        )),
    },
    OperationExample {
        operation: "GET /locations/taxonomies/{slug}",
        request: None,
        response: Some(taxonomy!("region", "location", "north", "basque")),
    },
    OperationExample {
        operation: "PATCH /locations/taxonomies/{slug}",
        request: Some(r#"{"name": "Regions", "description": "How they are grouped"}"#),
        response: Some(taxonomy!("region", "location", "north", "basque")),
    },
    OperationExample {
        operation: "DELETE /locations/taxonomies/{slug}",
        request: None,
        response: Some(r#"{"id": "region", "result": "deleted", "detached": 12}"#),
    },
    OperationExample {
        operation: "POST /locations/taxonomies/{taxonomy_slug}/features",
        request: Some(r#"{"slug": "basque", "name": "Basque", "parent": "north"}"#),
        response: Some(feature!("region", "basque", "north")),
    },
    OperationExample {
        operation: "PATCH /locations/taxonomies/{taxonomy_slug}/features/{id}",
        request: Some(r#"{"name": "Basque", "parent": null}"#),
        response: Some(feature!("region", "basque")),
    },
    OperationExample {
        operation: "DELETE /locations/taxonomies/{taxonomy_slug}/features/{id}",
        request: None,
        response: Some(
            r#"{"id": "ftr_019a8c2f4e10a1b2c3d4e5f7", "result": "deleted", "detached": 3}"#,
        ),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::taxonomies::model::{
        DeletedMasterRecord, Feature, FeatureChanges, NewFeature, NewTaxonomy, Taxonomy,
        TaxonomyChanges, TaxonomyList,
    };

    #[test]
    fn every_example_is_what_the_operation_accepts_and_answers() {
        for example in EXAMPLES {
            let (operation, request, response) =
                (example.operation, example.request, example.response);
            let (method, path) = operation.split_once(' ').unwrap();
            let path = path.trim_start_matches("/locations");
            match (method, path) {
                ("POST", "/taxonomies") => parses::<NewTaxonomy>(operation, request),
                ("GET", "/taxonomies") => parses::<TaxonomyList>(operation, response),
                ("GET", "/taxonomies/{slug}") => parses::<Taxonomy>(operation, response),
                ("PATCH", "/taxonomies/{slug}") => {
                    parses::<TaxonomyChanges>(operation, request);
                    parses::<Taxonomy>(operation, response);
                }
                ("POST", "/taxonomies/{taxonomy_slug}/features") => {
                    parses::<NewFeature>(operation, request);
                    parses::<Feature>(operation, response);
                }
                ("PATCH", "/taxonomies/{taxonomy_slug}/features/{id}") => {
                    parses::<FeatureChanges>(operation, request);
                    parses::<Feature>(operation, response);
                }
                ("DELETE", _) => parses::<DeletedMasterRecord>(operation, response),
                _ => panic!("no check for {operation}"),
            }
        }
    }
}
