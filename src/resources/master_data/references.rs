//! The taxonomies and features campaign files name, checked against a
//! Company's catalogue: `has_feature("TAXONOMY", "FEATURE")` in conditions
//! (on `location`: a Location feature; on a line: a Product feature), and
//! `taxonomy:feature` entries of `locations`, `excluded_products` and
//! `excluded_categories`. One the Company does not have is a condition
//! that can never hold, reported at its file and line when the set loads
//! and by `loyalty campaigns check --admin-url`.

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::engine::script::RuleError;
use crate::engine::script::Script;
use crate::resources::master_data::snapshot::MasterData;

/// A Company's taxonomies and their features, of Products and of
/// Locations: what campaign files may name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct FeatureCatalogue {
    /// Product taxonomy slug to its features' slugs.
    pub products: BTreeMap<String, Vec<String>>,
    /// Location taxonomy slug to its features' slugs.
    pub locations: BTreeMap<String, Vec<String>>,
}

impl FeatureCatalogue {
    /// The taxonomies and features of `master`.
    pub fn of(master: &MasterData) -> FeatureCatalogue {
        FeatureCatalogue {
            products: master.product_tree.listing(),
            locations: master.location_tree.listing(),
        }
    }
}

/// Which catalogue a reference reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Products,
    Locations,
}

impl Scope {
    fn name(self) -> &'static str {
        match self {
            Scope::Products => "Product",
            Scope::Locations => "Location",
        }
    }
}

/// A taxonomy and feature a campaign file names, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FeatureReference {
    scope: Scope,
    taxonomy: String,
    feature: String,
    /// What names it, for the message (`has_feature`, `locations`, ...).
    written_in: &'static str,
    line: usize,
    column: usize,
}

/// The `has_feature("T", "F")` calls of `script` with literal arguments:
/// on `location` a Location feature, on anything else a Product feature.
fn script_references(script: &Script) -> Vec<FeatureReference> {
    const CALL: &str = ".has_feature(";
    let source = script.source.as_str();
    let mut found = Vec::new();
    for (at, _) in source.match_indices(CALL) {
        let receiver: String = source[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let Some((taxonomy, feature)) = literal_pair(&source[at + CALL.len()..]) else {
            continue;
        };
        let start = at - receiver.len();
        let before = &source[..start];
        let lines_before = before.matches('\n').count();
        // On the expression's first line the column is the file's; a block
        // scalar's later lines lose their indentation, so no column.
        let column = match before.rfind('\n') {
            Some(_) => 0,
            None if script.origin.column > 0 => script.origin.column + start,
            None => 0,
        };
        found.push(FeatureReference {
            scope: if receiver == "location" {
                Scope::Locations
            } else {
                Scope::Products
            },
            taxonomy,
            feature,
            written_in: "has_feature",
            line: script.origin.line + lines_before,
            column,
        });
    }
    found
}

/// `"a", "b")` at the start of `rest`: the two string literals.
fn literal_pair(rest: &str) -> Option<(String, String)> {
    let mut strings = Vec::new();
    let mut rest = rest.trim_start();
    for separator in [',', ')'] {
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let body = &rest[1..];
        let end = body.find(quote)?;
        strings.push(body[..end].to_string());
        rest = body[end + 1..].trim_start();
        rest = rest.strip_prefix(separator)?.trim_start();
    }
    let feature = strings.pop()?;
    Some((strings.pop()?, feature))
}

/// The `taxonomy:feature` entries of `entries` (the others name records).
fn listed_references(
    entries: &[String],
    scope: Scope,
    written_in: &'static str,
    line: usize,
) -> Vec<FeatureReference> {
    entries
        .iter()
        .filter_map(|entry| entry.split_once(':'))
        .map(|(taxonomy, feature)| FeatureReference {
            scope,
            taxonomy: taxonomy.to_string(),
            feature: feature.to_string(),
            written_in,
            line,
            column: 0,
        })
        .collect()
}

/// Every taxonomy and feature `campaign` names.
fn references(campaign: &Campaign) -> Vec<FeatureReference> {
    let mut found: Vec<FeatureReference> = campaign.scripts().flat_map(script_references).collect();
    found.extend(listed_references(
        &campaign.locations,
        Scope::Locations,
        "locations",
        campaign.line_of("locations"),
    ));
    if let CampaignKind::Coupon(coupon) = &campaign.kind {
        let line = campaign.origin.line;
        found.extend(listed_references(
            &coupon.locations,
            Scope::Locations,
            "locations",
            line,
        ));
        found.extend(listed_references(
            &coupon.excluded_products,
            Scope::Products,
            "excluded_products",
            line,
        ));
        found.extend(listed_references(
            &coupon.excluded_categories,
            Scope::Products,
            "excluded_categories",
            line,
        ));
    }
    found
}

/// One problem per taxonomy or feature `campaigns` name that `known` does
/// not have, at its file and line.
pub fn unknown_features(campaigns: &[Campaign], known: &FeatureCatalogue) -> Vec<RuleError> {
    let mut problems = Vec::new();
    for campaign in campaigns {
        for reference in references(campaign) {
            let taxonomies = match reference.scope {
                Scope::Products => &known.products,
                Scope::Locations => &known.locations,
            };
            let scope = reference.scope.name();
            let message = match taxonomies.get(&reference.taxonomy) {
                None => format!(
                    "`{}` names `{}:{}`, but the Company has no {scope} taxonomy `{}`{}",
                    reference.written_in,
                    reference.taxonomy,
                    reference.feature,
                    reference.taxonomy,
                    suggestion(taxonomies.keys())
                ),
                Some(features) if !features.contains(&reference.feature) => format!(
                    "`{}` names `{}:{}`, but the {scope} taxonomy `{}` has no feature `{}`{}",
                    reference.written_in,
                    reference.taxonomy,
                    reference.feature,
                    reference.taxonomy,
                    reference.feature,
                    suggestion(features.iter())
                ),
                Some(_) => continue,
            };
            problems.push(
                RuleError::new(&campaign.origin.file, reference.line, message)
                    .with_column(reference.column),
            );
        }
    }
    problems
}

/// ` (it has: a, b, c)`, or ` (it has none)`.
fn suggestion<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let names: Vec<&str> = names.map(String::as_str).take(12).collect();
    if names.is_empty() {
        " (it has none)".into()
    } else {
        format!(" (it has: {})", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::engine::script::ScriptEngine;

    fn campaign(text: &str) -> Campaign {
        Campaign::parse(&ScriptEngine::new(), &PathBuf::from("c.yaml"), text).unwrap()
    }

    #[test]
    fn every_taxonomy_or_feature_the_company_lacks_is_named_at_its_line() {
        let known = FeatureCatalogue {
            products: BTreeMap::from([("department".into(), vec!["dairy".into()])]),
            locations: BTreeMap::from([("region".into(), vec!["north".into()])]),
        };
        let discount = campaign(
            "id: 1\nkind: discount\nname: D\non: cart\nwhen: location.has_feature(\"region\", \"south\")\n  || location.has_feature(\"region\", \"north\")\nlocations: [S1, \"format:mall\"]\ndiscount:\n  applies_to: lines\n  lines: |-\n    line.has_feature(\"department\", \"dairy\") ||\n    line.has_feature(\"brand\", \"acme\")\n  percent: 10\n",
        );
        let coupon = campaign(
            "id: 2\nkind: coupon\nname: C\ncoupon:\n  discount: { percent: 10 }\n  excluded_categories: [tobacco, \"department:tobaco\"]\n",
        );
        let problems: Vec<String> = unknown_features(&[discount, coupon], &known)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(problems.len(), 4, "{problems:?}");
        for (at, says) in [
            (
                "c.yaml:5:7:",
                "Location taxonomy `region` has no feature `south` (it has: north)",
            ),
            (
                "c.yaml:7:",
                "`locations` names `format:mall`, but the Company has no Location taxonomy `format` (it has: region)",
            ),
            (
                "c.yaml:12:",
                "no Product taxonomy `brand` (it has: department)",
            ),
            (
                "c.yaml:1:",
                "`excluded_categories` names `department:tobaco`",
            ),
        ] {
            assert!(
                problems
                    .iter()
                    .any(|p| p.starts_with(at) && p.contains(says)),
                "{at} {says}: {problems:?}"
            );
        }
    }
}
