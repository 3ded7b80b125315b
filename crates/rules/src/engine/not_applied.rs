//! Why a campaign gave no effects, and where in its file the thing that
//! decided it is written: the key (`limits:`, `locations:`, `on:`) or, for
//! a condition, the parts that were false with the values they saw.

use crate::engine::why::Part;

/// Why a campaign did not apply.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NotApplied {
    /// What an author reads.
    pub reason: String,
    /// The campaign file's key whose line decided (`limits`, `tiers`);
    /// `None` with `parts` (they say where) or when nothing is written.
    pub key: Option<&'static str>,
    /// For a condition: the parts that decided, with the values they saw.
    pub parts: Vec<Part>,
    /// An expression of the campaign failed to evaluate: a mistake of the
    /// campaign, not a miss of the event. Counted, logged and shown on the
    /// back office (`telemetry::campaign_failures`), never silent.
    pub failed: bool,
}

impl NotApplied {
    /// The reason `reason`, decided at the line of `key`.
    pub fn at_key(key: &'static str, reason: impl Into<String>) -> NotApplied {
        NotApplied {
            reason: reason.into(),
            key: Some(key),
            parts: Vec::new(),
            failed: false,
        }
    }

    /// The expression written at `key` failed to evaluate: `reason` says
    /// what it said.
    pub fn failed(key: &'static str, reason: impl Into<String>) -> NotApplied {
        NotApplied {
            failed: true,
            ..NotApplied::at_key(key, reason)
        }
    }
}

impl From<String> for NotApplied {
    fn from(reason: String) -> Self {
        NotApplied {
            reason,
            ..NotApplied::default()
        }
    }
}

impl From<&str> for NotApplied {
    fn from(reason: &str) -> Self {
        NotApplied::from(reason.to_string())
    }
}

impl std::fmt::Display for NotApplied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}
