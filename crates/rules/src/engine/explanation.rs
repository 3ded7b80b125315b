//! Why a campaign applied to an event or not, as `?explain=true` answers
//! it: the reason, and where in the campaign's file what decided is written.

use std::sync::Arc;

use serde::Serialize;

use crate::engine::campaign::Campaign;
use crate::engine::not_applied::NotApplied;
use crate::engine::why::Part;

/// Serialises shared text as a string.
fn text<S: serde::Serializer>(value: &Arc<str>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(value)
}

/// Serialises optional shared text as a string.
fn optional_text<S: serde::Serializer>(
    value: &Option<Arc<str>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.serialize_str(value),
        None => serializer.serialize_none(),
    }
}

/// Why a campaign applied or not, for `?explain=true`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// The campaign's id.
    pub rule_id: i64,
    /// Its file and line (shared with the campaign: no text is written per
    /// event).
    #[serde(serialize_with = "text")]
    pub source: Arc<str>,
    /// Whether it returned effects.
    pub applied: bool,
    /// Why not, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `file:line[:column]` of what decided it did not apply: the part of
    /// its condition, or the key (`limits:`, `locations:`, `on:`).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "optional_text"
    )]
    pub at: Option<Arc<str>>,
    /// For a condition: the parts that decided and the values they saw.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
}

impl Explanation {
    /// The explanation of `campaign`, which applied.
    pub fn applied(campaign: &Campaign) -> Explanation {
        Explanation {
            rule_id: campaign.id,
            source: campaign.source.clone(),
            applied: true,
            reason: None,
            at: None,
            parts: Vec::new(),
        }
    }

    /// The explanation of `campaign`, which did not apply for `why`.
    pub fn not_applied(campaign: &Campaign, why: NotApplied) -> Explanation {
        let at = match why.parts.first() {
            Some(part) => Some(part.at.as_str().into()),
            None => why.key.map(|key| campaign.place_of(Some(key))),
        };
        Explanation {
            rule_id: campaign.id,
            source: campaign.source.clone(),
            applied: false,
            reason: Some(why.reason),
            at,
            parts: why.parts,
        }
    }

    /// Marks this explanation's campaign as not applied after all, for
    /// `reason`, decided at `key` of its file.
    pub fn refuse(&mut self, campaign: Option<&Campaign>, key: &'static str, reason: String) {
        self.applied = false;
        self.reason = Some(reason);
        self.at = campaign.map(|campaign| campaign.place_of(Some(key)));
    }
}
