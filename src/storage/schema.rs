//! The schema, assembled from each resource's `schema.surql` and applied at
//! every start. The storage core's part (the migrations record) comes first;
//! a resource's migrations run after its own tables are defined. A campaign
//! kind that keeps state of its own brings its tables with its contribution.
//!
//! Tables, fields and events are defined with `OVERWRITE`, which keeps them
//! in step with the code and costs nothing. Indexes are defined `IF NOT
//! EXISTS`: `OVERWRITE` rebuilds an index from every record of its table,
//! at every start (about a second per 100,000 records and index). An index
//! never changes under its name: a new definition takes a new name, and the
//! old one is removed with `REMOVE INDEX IF EXISTS`.

use crate::pipeline::kinds::CONTRIBUTIONS;

/// The resources' parts of the schema, in the order they are applied:
/// (where it lives, text).
pub(crate) const SCHEMA_PARTS: &[(&str, &str)] = &[
    ("storage", include_str!("schema.surql")),
    (
        "companies",
        include_str!("../resources/companies/schema.surql"),
    ),
    (
        "customers",
        include_str!("../resources/customers/schema.surql"),
    ),
    (
        "associations",
        include_str!("../resources/associations/schema.surql"),
    ),
    ("merges", include_str!("../resources/merges/schema.surql")),
    (
        "idempotency",
        include_str!("../http/idempotency/schema.surql"),
    ),
    ("carts", include_str!("../resources/carts/schema.surql")),
    (
        "discounts",
        include_str!("../resources/discounts/schema.surql"),
    ),
    ("points", include_str!("../resources/points/schema.surql")),
    ("events", include_str!("../resources/events/schema.surql")),
    (
        "instant_wins",
        include_str!("../resources/instant_wins/schema.surql"),
    ),
    (
        "customer_state",
        include_str!("../resources/customers/state/schema.surql"),
    ),
    (
        "vouchers",
        include_str!("../resources/vouchers/schema.surql"),
    ),
    ("rewards", include_str!("../resources/rewards/schema.surql")),
    (
        "challenges",
        include_str!("../resources/challenges/schema.surql"),
    ),
    (
        "master_data",
        include_str!("../resources/master_data/schema.surql"),
    ),
    (
        "taxonomies",
        include_str!("../resources/taxonomies/schema.surql"),
    ),
    (
        "products",
        include_str!("../resources/products/schema.surql"),
    ),
    (
        "locations",
        include_str!("../resources/locations/schema.surql"),
    ),
    (
        "api_campaigns",
        include_str!("../resources/api_campaigns/schema.surql"),
    ),
    (
        "messages",
        include_str!("../resources/messages/schema.surql"),
    ),
    (
        "webhooks",
        include_str!("../resources/webhooks/schema.surql"),
    ),
];

/// Every part of the schema, in the order it is applied: the resources'
/// ([`SCHEMA_PARTS`]), then the tables of campaign kinds that bring their
/// own ([`crate::pipeline::contribution::Contribution::schema`]).
pub(crate) fn schema_parts() -> Vec<(&'static str, &'static str)> {
    SCHEMA_PARTS
        .iter()
        .copied()
        .chain(CONTRIBUTIONS.iter().filter_map(|kind| kind.schema()))
        .collect()
}

/// The whole schema as one query.
pub(crate) fn schema() -> String {
    schema_parts()
        .iter()
        .map(|(_, text)| *text)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_start_rebuilds_an_index() {
        for (part, text) in schema_parts() {
            assert!(
                !text.contains("INDEX OVERWRITE"),
                "{part}: an index is defined IF NOT EXISTS (see the module's doc)"
            );
        }
    }

    #[test]
    fn every_schema_file_in_the_tree_is_assembled() {
        fn find(dir: &std::path::Path, into: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    find(&path, into);
                } else if path.file_name().is_some_and(|n| n == "schema.surql") {
                    into.push(path);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        find(&src, &mut files);
        let parts = schema_parts();
        let assembled: Vec<&str> = parts.iter().map(|(_, text)| *text).collect();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            assert!(
                assembled.contains(&text.as_str()),
                "{} is not in SCHEMA_PARTS nor a kind's schema",
                file.display()
            );
        }
        assert_eq!(files.len(), parts.len());
    }
}
