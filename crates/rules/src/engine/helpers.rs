//! The functions conditions call beyond rhai's own, registered on the
//! engine ([`crate::engine::script::ScriptEngine`]); the fast path
//! (`engine::fast`) answers the same calls without rhai.

use rhai::{Dynamic, ImmutableString};

use crate::resources::master_data::enrich::FACETS;

/// Whether `array` holds the string `text` (other elements never equal it).
pub fn array_contains_text(array: &mut rhai::Array, text: ImmutableString) -> bool {
    array.iter().any(|item| {
        item.read_lock::<ImmutableString>()
            .is_some_and(|item| *item == text)
    })
}

/// Whether `record` (a cart line or the Location, as conditions see them)
/// carries feature `feature` of taxonomy `taxonomy`, or one under it:
/// `line.has_feature("department", "dairy")`. Read from the features the
/// catalogue completed with their ancestors; a line it did not complete
/// answers from the features it sent.
pub fn has_feature(record: &mut rhai::Map, taxonomy: ImmutableString, feature: &str) -> bool {
    let is_feature = |value: &Dynamic| {
        value
            .read_lock::<ImmutableString>()
            .is_some_and(|slug| slug.as_str() == feature)
    };
    match record.get(FACETS) {
        Some(facets) => facets
            .read_lock::<rhai::Map>()
            .and_then(|facets| {
                facets.get(taxonomy.as_str()).map(|slugs| {
                    slugs
                        .read_lock::<rhai::Array>()
                        .is_some_and(|slugs| slugs.iter().any(is_feature))
                })
            })
            .unwrap_or(false),
        None => record
            .get("features")
            .and_then(|features| {
                features
                    .read_lock::<rhai::Map>()
                    .and_then(|features| features.get(taxonomy.as_str()).map(is_feature))
            })
            .unwrap_or(false),
    }
}
