//! Lists of Locations and Products as campaigns and Coupons write them,
//! resolved through the catalogue: campaign and Instant Win `locations`,
//! Coupon `locations`, `excluded_products` and `excluded_categories`.
//!
//! An entry names a record by its code, an alias or its id, or names every
//! record carrying a feature as `taxonomy:feature` (a feature covers its
//! descendants). An entry the catalogue does not know still matches a code
//! sent as is, so lists of store codes work without master data.

use serde_json::Value;

use crate::resources::master_data::enrich::FACETS;

/// Whether `entry` names the record `record` (its catalogue facts: `code`,
/// `id`, `aliases`, `facets`) sent as `sent`.
fn names(entry: &str, sent: &str, record: &Value) -> bool {
    if entry == sent {
        return true;
    }
    let text = |key: &str| record.get(key).and_then(Value::as_str);
    if text("code") == Some(entry) || text("id") == Some(entry) {
        return true;
    }
    let aliased = record
        .get("aliases")
        .and_then(Value::as_array)
        .is_some_and(|aliases| aliases.iter().any(|a| a.as_str() == Some(entry)));
    aliased || carries(entry, record)
}

/// Whether `entry`, a `taxonomy:feature`, is a feature `record` carries
/// (itself or below it).
fn carries(entry: &str, record: &Value) -> bool {
    let Some((taxonomy, feature)) = entry.split_once(':') else {
        return false;
    };
    record
        .get(FACETS)
        .and_then(|facets| facets.get(taxonomy))
        .and_then(Value::as_array)
        .is_some_and(|slugs| slugs.iter().any(|slug| slug.as_str() == Some(feature)))
}

/// Whether the Location sent as `code` (`location`: the catalogue's record
/// of it, or `{}`) is one of `listed`.
pub fn location_listed(listed: &[String], code: &str, location: &Value) -> bool {
    listed.iter().any(|entry| names(entry, code, location))
}

/// Whether a cart `line` (its facts: `product_code` as sent, and
/// `product` and `facets` when the catalogue knows it) is one of the
/// Products `listed`.
pub fn product_listed(listed: &[String], line: &Value) -> bool {
    let Some(sent) = line.get("product_code").and_then(Value::as_str) else {
        return false;
    };
    let product = line.get("product").unwrap_or(&Value::Null);
    listed.iter().any(|entry| {
        entry == sent
            || names(entry, sent, product)
            || (entry.contains(':') && carries(entry, line))
    })
}

/// Whether a cart `line` is in one of the categories `listed`: a category
/// it sent (`taxonomies`), a feature slug it carries, or a
/// `taxonomy:feature` it carries.
pub fn line_in_category(listed: &[String], line: &Value) -> bool {
    let sent = line
        .get("taxonomies")
        .and_then(Value::as_array)
        .is_some_and(|categories| {
            categories
                .iter()
                .filter_map(Value::as_str)
                .any(|category| listed.iter().any(|entry| entry == category))
        });
    sent || listed.iter().any(|entry| carries(entry, line))
}

/// The country of the event's Location, else of the Customer: what an
/// Instant Win's `countries` are checked against.
pub fn event_country<'a>(location: &'a Value, customer: &'a Value) -> Option<&'a str> {
    location
        .get("country")
        .and_then(Value::as_str)
        .or_else(|| customer.get("country").and_then(Value::as_str))
        .map(str::trim)
        .filter(|country| !country.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_name_records_by_code_alias_id_or_feature() {
        let bilbao = json!({"id": "loc_1", "code": "BIL", "aliases": ["0042"],
            "facets": {"region": ["north", "spain"]}});
        let listed =
            |entries: &[&str]| -> Vec<String> { entries.iter().map(ToString::to_string).collect() };
        for entry in ["BIL", "0042", "loc_1", "region:north", "region:spain"] {
            assert!(
                location_listed(&listed(&[entry]), "0042", &bilbao),
                "{entry}"
            );
        }
        for entry in ["MAD", "region:south", "north", "format:north"] {
            assert!(
                !location_listed(&listed(&[entry]), "BIL", &bilbao),
                "{entry}"
            );
        }
        // A store the catalogue does not know: its code as sent.
        assert!(location_listed(&listed(&["S1"]), "S1", &json!({})));

        let line = json!({"product_code": "8410", "product": {"code": "MILK", "aliases": ["8410"]},
            "taxonomies": ["dairy", "food"], "facets": {"department": ["dairy", "food"]}});
        assert!(product_listed(&listed(&["MILK"]), &line));
        assert!(product_listed(&listed(&["8410"]), &line));
        assert!(!product_listed(&listed(&["BREAD"]), &line));
        assert!(line_in_category(&listed(&["food"]), &line));
        assert!(line_in_category(&listed(&["department:dairy"]), &line));
        assert!(!line_in_category(
            &listed(&["department:bakery", "tobacco"]),
            &line
        ));
    }

    #[test]
    fn the_country_is_the_locations_else_the_customers() {
        let customer = json!({"country": "PT"});
        assert_eq!(
            event_country(&json!({"country": "ES"}), &customer),
            Some("ES")
        );
        assert_eq!(event_country(&json!({"code": "X"}), &customer), Some("PT"));
        assert_eq!(event_country(&json!({}), &json!({})), None);
    }
}
