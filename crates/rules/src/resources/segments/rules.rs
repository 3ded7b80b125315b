//! Tiers, audiences and calculated attributes: defined by campaign authors in
//! `campaigns/<company>/segments.yaml`, compiled once, evaluated per Customer.
//!
//! ```yaml
//! attributes:
//!   - id: average_cart
//!     description: Average amount per cart
//!     expression: "if cart_count > 0 { lifetime_spend / cart_count } else { 0.0 }"
//! tiers:            # in ascending order; the Customer's tier is the last one reached
//!   - id: silver
//!     name: { en: Silver, es: Plata }   # or one plain string
//!     condition: history.spent_last_days(365) >= 500.0
//! audiences:
//!   - id: vip
//!     name: VIP
//!     condition: customer.attributes.vip == true
//! ```

use std::collections::HashSet;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::common::validate::validate_slug;
use crate::engine::facts::Facts;
use crate::engine::script::Origin;
use crate::engine::script::RuleError;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::engine::text::Text;
use crate::engine::why::Part;
use crate::engine::why::deciding_parts;
use crate::engine::yaml::read_yaml;

/// The target segments log under, as the service's log filters name it.
const LOG_TARGET: &str = "loyalty::resources::segments::rules";

/// The file name, inside a Company's campaign directory.
pub const SEGMENTS_FILE: &str = "segments.yaml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SegmentsFile {
    #[serde(default)]
    attributes: Vec<AttributeSpec>,
    #[serde(default)]
    tiers: Vec<SegmentSpec>,
    #[serde(default)]
    audiences: Vec<SegmentSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttributeSpec {
    id: String,
    #[serde(default)]
    description: Option<String>,
    expression: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SegmentSpec {
    id: String,
    name: Text,
    #[serde(default)]
    description: Option<Text>,
    condition: String,
}

/// A calculated attribute defined by an author.
#[derive(Debug, Clone)]
pub struct AttributeDefinition {
    /// Its name in GET /customers/{id}/attributes.
    pub id: String,
    /// What it means.
    pub description: Option<String>,
    /// How it is computed.
    pub expression: Script,
}

/// A tier or an audience.
#[derive(Debug, Clone)]
pub struct Segment {
    /// Identifier (slug).
    pub id: String,
    /// Display name, translatable.
    pub name: Text,
    /// Description, translatable.
    pub description: Option<Text>,
    /// Who belongs.
    pub condition: Script,
}

/// The compiled segments of one Company.
#[derive(Debug, Clone, Default)]
pub struct Segments {
    /// Calculated attributes, in file order.
    pub attributes: Vec<AttributeDefinition>,
    /// Tiers, lowest first.
    pub tiers: Vec<Segment>,
    /// Audiences.
    pub audiences: Vec<Segment>,
}

/// One Segment's verdict for a Customer.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether the Customer belongs.
    pub member: bool,
    /// Why the condition could not be evaluated, if it could not.
    pub error: Option<String>,
}

impl Segments {
    /// Parses and compiles `text` as the content of `path`.
    pub fn parse(
        engine: &ScriptEngine,
        path: &Path,
        text: &str,
    ) -> Result<Segments, Vec<RuleError>> {
        // Every unknown key is reported, with the file's other problems.
        let (file, mut errors) = if text.trim().is_empty() {
            (Some(SegmentsFile::default()), Vec::new())
        } else {
            read_yaml::<SegmentsFile>(path, text)
        };
        let Some(file) = file else {
            return Err(errors);
        };
        let mut compile = |id: &str, source: &str| {
            let origin = Origin::locate(path, text, Some(&format!("id: {id}")), source);
            engine
                .compile(source, origin)
                .map_err(|e| errors.push(e))
                .ok()
        };
        let mut segments = Segments::default();
        for spec in file.attributes {
            if let Some(expression) = compile(&spec.id, &spec.expression) {
                segments.attributes.push(AttributeDefinition {
                    id: spec.id,
                    description: spec.description,
                    expression,
                });
            }
        }
        for (specs, target) in [
            (file.tiers, &mut segments.tiers),
            (file.audiences, &mut segments.audiences),
        ] {
            for spec in specs {
                if let Some(condition) = compile(&spec.id, &spec.condition) {
                    target.push(Segment {
                        id: spec.id,
                        name: spec.name,
                        description: spec.description,
                        condition,
                    });
                }
            }
        }
        let sections: [(&str, Vec<&str>); 3] = [
            (
                "attribute",
                segments.attributes.iter().map(|a| a.id.as_str()).collect(),
            ),
            (
                "tier",
                segments.tiers.iter().map(|t| t.id.as_str()).collect(),
            ),
            (
                "audience",
                segments.audiences.iter().map(|a| a.id.as_str()).collect(),
            ),
        ];
        for (what, ids) in sections {
            let mut seen = HashSet::new();
            for id in ids {
                let line = Origin::locate(path, text, Some(&format!("id: {id}")), "").line;
                if let Err(e) = validate_slug(&format!("{what} id"), id) {
                    errors.push(RuleError::new(path, line, e.message));
                }
                if !seen.insert(id) {
                    errors.push(RuleError::new(
                        path,
                        line,
                        format!("{what} `{id}` is defined twice"),
                    ));
                }
            }
        }
        if errors.is_empty() {
            Ok(segments)
        } else {
            Err(errors)
        }
    }

    /// Every expression.
    pub fn scripts(&self) -> impl Iterator<Item = &Script> {
        self.attributes.iter().map(|a| &a.expression).chain(
            self.tiers
                .iter()
                .chain(&self.audiences)
                .map(|s| &s.condition),
        )
    }

    /// The text of every expression.
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        self.scripts().map(|script| script.source.as_str())
    }

    /// Every author-defined attribute for `facts`; each sees the ones before it
    /// as `calculated.NAME`. An attribute that fails is `null` and logged.
    pub fn calculate(
        &self,
        engine: &ScriptEngine,
        facts: &mut Facts,
    ) -> serde_json::Map<String, Value> {
        for attribute in &self.attributes {
            let value = engine
                .eval_json(&attribute.expression, facts)
                .unwrap_or_else(|error| {
                    tracing::warn!(target: LOG_TARGET, %error, "calculated attribute failed");
                    Value::Null
                });
            facts.calculated.insert(attribute.id.clone(), value);
        }
        facts.calculated.clone()
    }

    /// Each tier the Customer of `facts` did not reach, lowest first, with
    /// the parts of its condition that were false and the figures they
    /// read: what an explained `tiers:` refusal names. Only explained
    /// events ask (it evaluates every part of every condition).
    pub fn missed_tiers(&self, engine: &ScriptEngine, facts: &Facts) -> Vec<(String, Vec<Part>)> {
        let prepared = engine.prepare(facts);
        self.tiers
            .iter()
            .filter(|tier| {
                matches!(
                    engine.eval_prepared(&tier.condition, &prepared, None),
                    Ok(false)
                )
            })
            .map(|tier| {
                let parts = deciding_parts(engine, &tier.condition, &prepared, None, false);
                (tier.id.clone(), parts)
            })
            .collect()
    }

    /// Evaluates one tier or audience for `facts`.
    pub fn judge(engine: &ScriptEngine, segment: &Segment, facts: &Facts) -> Verdict {
        match engine.eval_bool(&segment.condition, facts) {
            Ok(member) => Verdict {
                member,
                error: None,
            },
            Err(error) => {
                tracing::warn!(target: LOG_TARGET, %error, segment = %segment.id, "segment condition failed");
                Verdict {
                    member: false,
                    error: Some(error.to_string()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const FILE: &str = "tiers:\n  - id: silver\n    name: Silver\n    condition: lifetime_spend >= 100.0\n  - id: gold\n    name: Gold\n    condition: |\n      lifetime_spend >=\n      oops\naudiences: []\n";

    #[test]
    fn errors_point_at_the_line_of_the_expression() {
        let engine = ScriptEngine::new();
        let errors = Segments::parse(&engine, &PathBuf::from("segments.yaml"), FILE).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].line, 9, "{}", errors[0]);
        assert!(errors[0].to_string().starts_with("segments.yaml:9:"));
    }

    #[test]
    fn yaml_errors_and_unknown_fields_are_reported_with_lines() {
        let engine = ScriptEngine::new();
        let errors = Segments::parse(
            &engine,
            &PathBuf::from("s.yaml"),
            "tiers:\n  - id: a\n    nme: A\n",
        )
        .unwrap_err();
        assert_eq!(errors[0].line, 3, "{}", errors[0]);
        let errors = Segments::parse(
            &engine,
            &PathBuf::from("s.yaml"),
            "audiences:\n  - id: a\n    name: A\n    condition: \"true\"\n  - id: a\n    name: B\n    condition: \"false\"\n",
        )
        .unwrap_err();
        assert!(errors[0].message.contains("twice"), "{errors:?}");
    }

    #[test]
    fn attributes_see_earlier_attributes() {
        let engine = ScriptEngine::new();
        let segments = Segments::parse(
            &engine,
            &PathBuf::from("s.yaml"),
            "attributes:\n  - id: double\n    expression: points_balance * 2\n  - id: quadruple\n    expression: calculated.double * 2\n",
        )
        .unwrap();
        let mut facts = Facts {
            points_balance: 5,
            ..Facts::default()
        };
        let calculated = segments.calculate(&engine, &mut facts);
        assert_eq!(calculated["quadruple"], serde_json::json!(20));
    }
}
