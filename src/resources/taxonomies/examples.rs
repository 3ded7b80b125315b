//! Example requests of the taxonomy and feature operations (of Products
//! and of Locations), published in the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::taxonomies::model::{
    DeletedMasterRecord, Feature, FeatureChanges, NewFeature, NewTaxonomy, Taxonomy,
    TaxonomyChanges, TaxonomyList,
};

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
    OperationExample::new("POST /taxonomies").takes::<NewTaxonomy>(r#"{"slug": "department", "name": "Department"}"#).answers::<Taxonomy>(r#"{"slug": "department", "name": "Department", "description": null, "scope": "product",
            "features": [], "created_at": "2026-11-23T10:00:00Z", "updated_at": "2026-11-23T10:00:00Z"}"#),
    OperationExample::new("GET /taxonomies").answers::<TaxonomyList>(concat!(
            r#"{"taxonomies": ["#,
            taxonomy!("department", "product", "dairy", "cheese"),
            "]}"
        )),
    OperationExample::new("GET /taxonomies/{slug}").answers::<Taxonomy>(taxonomy!("department", "product", "dairy", "cheese")),
    OperationExample::new("PATCH /taxonomies/{slug}").takes::<TaxonomyChanges>(r#"{"name": "Departments", "description": "How they are grouped"}"#).answers::<Taxonomy>(taxonomy!("department", "product", "dairy", "cheese")),
    OperationExample::new("DELETE /taxonomies/{slug}").answers::<DeletedMasterRecord>(r#"{"id": "department", "result": "deleted", "detached": 12}"#),
    OperationExample::new("POST /taxonomies/{taxonomy_slug}/features").takes::<NewFeature>(r#"{"slug": "cheese", "name": "Cheese", "parent": "dairy"}"#).answers::<Feature>(feature!("department", "cheese", "dairy")),
    OperationExample::new("PATCH /taxonomies/{taxonomy_slug}/features/{id}").takes::<FeatureChanges>(r#"{"name": "Cheese", "parent": null}"#).answers::<Feature>(feature!("department", "cheese")),
    OperationExample::new("DELETE /taxonomies/{taxonomy_slug}/features/{id}").answers::<DeletedMasterRecord>(r#"{"id": "ftr_019a8c2f4e10a1b2c3d4e5f7", "result": "deleted", "detached": 3}"#),
    OperationExample::new("POST /locations/taxonomies").takes::<NewTaxonomy>(r#"{"slug": "region", "name": "Region"}"#).answers::<Taxonomy>(r#"{"slug": "region", "name": "Region", "description": null, "scope": "location",
            "features": [], "created_at": "2026-11-23T10:00:00Z", "updated_at": "2026-11-23T10:00:00Z"}"#),
    OperationExample::new("GET /locations/taxonomies").answers::<TaxonomyList>(concat!(
            r#"{"taxonomies": ["#,
            taxonomy!("region", "location", "north", "basque"),
            "]}"
        )),
    OperationExample::new("GET /locations/taxonomies/{slug}").answers::<Taxonomy>(taxonomy!("region", "location", "north", "basque")),
    OperationExample::new("PATCH /locations/taxonomies/{slug}").takes::<TaxonomyChanges>(r#"{"name": "Regions", "description": "How they are grouped"}"#).answers::<Taxonomy>(taxonomy!("region", "location", "north", "basque")),
    OperationExample::new("DELETE /locations/taxonomies/{slug}").answers::<DeletedMasterRecord>(r#"{"id": "region", "result": "deleted", "detached": 12}"#),
    OperationExample::new("POST /locations/taxonomies/{taxonomy_slug}/features").takes::<NewFeature>(r#"{"slug": "basque", "name": "Basque", "parent": "north"}"#).answers::<Feature>(feature!("region", "basque", "north")),
    OperationExample::new("PATCH /locations/taxonomies/{taxonomy_slug}/features/{id}").takes::<FeatureChanges>(r#"{"name": "Basque", "parent": null}"#).answers::<Feature>(feature!("region", "basque")),
    OperationExample::new("DELETE /locations/taxonomies/{taxonomy_slug}/features/{id}").answers::<DeletedMasterRecord>(r#"{"id": "ftr_019a8c2f4e10a1b2c3d4e5f7", "result": "deleted", "detached": 3}"#),
];
