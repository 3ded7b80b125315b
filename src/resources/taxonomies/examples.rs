//! Example requests of the taxonomy and feature operations (of Products
//! and of Locations), published in the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::taxonomies::model::{
    DeletedMasterRecord, Feature, FeatureChanges, NewFeature, NewTaxonomy, Taxonomy,
    TaxonomyChanges, TaxonomyList,
};

/// A feature as answers show it: its taxonomy, slug and parent (`null`, or
/// a slug in quotes).
macro_rules! feature {
    ($taxonomy:literal, $slug:literal) => {
        feature!(@ $taxonomy, $slug, "null", "7")
    };
    ($taxonomy:literal, $slug:literal, $parent:literal) => {
        feature!(@ $taxonomy, $slug, concat!("\"", $parent, "\""), "8")
    };
    (@ $taxonomy:literal, $slug:literal, $parent:expr, $id_end:literal) => {
        concat!(
            r#"{"id": "ftr_019a8c2f4e10a1b2c3d4e5f"#,
            $id_end,
            r#"", "taxonomy": ""#,
            $taxonomy,
            r#"", "slug": ""#,
            $slug,
            r#"", "name": ""#,
            $slug,
            r#"", "parent": "#,
            $parent,
            r#", "discountable": true, "created_at": "2026-11-23T10:00:00Z",
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

/// The examples of the eight taxonomy and feature operations of each
/// scope: (path prefix, scope, taxonomy slug, its name, the name a change
/// gives it, a feature's parent, the feature, its name).
macro_rules! scope_examples {
    ($(($prefix:literal, $scope:literal, $slug:literal, $name:literal, $renamed:literal,
        $parent:literal, $feature:literal, $feature_name:literal)),+) => {
        &[$(
            OperationExample::new(concat!("POST ", $prefix, "/taxonomies"))
                .takes::<NewTaxonomy>(concat!(r#"{"slug": ""#, $slug, r#"", "name": ""#, $name, r#""}"#))
                .answers::<Taxonomy>(concat!(
                    r#"{"slug": ""#, $slug, r#"", "name": ""#, $name,
                    r#"", "description": null, "scope": ""#, $scope,
                    r#"", "features": [], "created_at": "2026-11-23T10:00:00Z", "updated_at": "2026-11-23T10:00:00Z"}"#
                )),
            OperationExample::new(concat!("GET ", $prefix, "/taxonomies")).answers::<TaxonomyList>(concat!(
                r#"{"taxonomies": ["#,
                taxonomy!($slug, $scope, $parent, $feature),
                "]}"
            )),
            OperationExample::new(concat!("GET ", $prefix, "/taxonomies/{slug}"))
                .answers::<Taxonomy>(taxonomy!($slug, $scope, $parent, $feature)),
            OperationExample::new(concat!("PATCH ", $prefix, "/taxonomies/{slug}"))
                .takes::<TaxonomyChanges>(concat!(r#"{"name": ""#, $renamed, r#"", "description": "How they are grouped"}"#))
                .answers::<Taxonomy>(taxonomy!($slug, $scope, $parent, $feature)),
            OperationExample::new(concat!("DELETE ", $prefix, "/taxonomies/{slug}"))
                .answers::<DeletedMasterRecord>(concat!(r#"{"id": ""#, $slug, r#"", "result": "deleted", "detached": 12}"#)),
            OperationExample::new(concat!("POST ", $prefix, "/taxonomies/{taxonomy_slug}/features"))
                .takes::<NewFeature>(concat!(
                    r#"{"slug": ""#, $feature, r#"", "name": ""#, $feature_name, r#"", "parent": ""#, $parent, r#""}"#
                ))
                .answers::<Feature>(feature!($slug, $feature, $parent)),
            OperationExample::new(concat!("PATCH ", $prefix, "/taxonomies/{taxonomy_slug}/features/{id}"))
                .takes::<FeatureChanges>(concat!(r#"{"name": ""#, $feature_name, r#"", "parent": null}"#))
                .answers::<Feature>(feature!($slug, $feature)),
            OperationExample::new(concat!("DELETE ", $prefix, "/taxonomies/{taxonomy_slug}/features/{id}"))
                .answers::<DeletedMasterRecord>(
                    r#"{"id": "ftr_019a8c2f4e10a1b2c3d4e5f7", "result": "deleted", "detached": 3}"#
                ),
        )+]
    };
}

/// The taxonomy operations' examples, of Products and of Locations.
pub const EXAMPLES: &[OperationExample] = scope_examples!(
    (
        "",
        "product",
        "department",
        "Department",
        "Departments",
        "dairy",
        "cheese",
        "Cheese"
    ),
    (
        "/locations",
        "location",
        "region",
        "Region",
        "Regions",
        "north",
        "basque",
        "Basque"
    )
);
