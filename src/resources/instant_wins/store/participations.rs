//! A Customer's Instant Win participations, kept in one record per Customer
//! (its state's `rules`, [`crate::resources::customers::state`]): per rule,
//! the count of each recent period.
//!
//! One record rather than one per rule and period, because every cart with
//! Instant Wins listening reads and moves these counters: a point read and a
//! single write cost a fraction of one counter record per draw. The draw's
//! transaction writes the record only if it still holds exactly what the draw
//! was decided on ([`crate::storage::group_commit`]), so two events of
//! one Customer racing for the last participation cannot both use it.

use serde_json::{Map, Value, json};

use crate::resources::instant_wins::store::PlannedDraw;

/// How many periods of each rule are kept. A cart dated further back than
/// this many periods before the newest one counted counts as the first
/// participation of its period.
pub const PERIODS_KEPT: usize = 16;

/// Participations per rule id and period key, as stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParticipationCounts {
    /// `{"<rule id>": {"<period key>": count}}`.
    rules: Map<String, Value>,
}

impl ParticipationCounts {
    /// The counts of a stored `rules` object (empty when absent or malformed).
    pub fn from_stored(rules: Option<&Value>) -> ParticipationCounts {
        ParticipationCounts {
            rules: rules
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// Participations in rule `rule_id` during `period`.
    pub fn count(&self, rule_id: i64, period: &str) -> i64 {
        self.rules
            .get(&rule_id.to_string())
            .and_then(|periods| periods.get(period))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    }

    /// The stored form, compared by the recording transaction with what it
    /// finds.
    pub fn stored(&self) -> Value {
        Value::Object(self.rules.clone())
    }

    /// The counts once `draws` are recorded: one more participation in each
    /// draw's rule and period, keeping each rule's newest
    /// [`PERIODS_KEPT`] periods (period keys of one rule sort by time).
    pub fn after(&self, draws: &[PlannedDraw]) -> ParticipationCounts {
        let mut rules = self.rules.clone();
        for draw in draws {
            let periods = rules
                .entry(draw.record.rule_id.to_string())
                .or_insert_with(|| json!({}));
            if !periods.is_object() {
                *periods = json!({});
            }
            if let Some(periods) = periods.as_object_mut() {
                let count = periods
                    .get(&draw.record.period)
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                periods.insert(draw.record.period.clone(), json!(count + 1));
                if periods.len() > PERIODS_KEPT {
                    let mut keys: Vec<String> = periods.keys().cloned().collect();
                    keys.sort();
                    for old in &keys[..keys.len() - PERIODS_KEPT] {
                        periods.remove(old);
                    }
                }
            }
        }
        ParticipationCounts { rules }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(rule_id: i64, period: &str) -> PlannedDraw {
        PlannedDraw::lost(&format!("drw_{rule_id}_{period}"), rule_id, period)
    }

    #[test]
    fn each_draw_adds_one_participation_to_its_rule_and_period() {
        let counts = ParticipationCounts::default().after(&[
            draw(7, "2026-11-22"),
            draw(7, "2026-11-22"),
            draw(8, "campaign"),
        ]);
        assert_eq!(counts.count(7, "2026-11-22"), 2);
        assert_eq!(counts.count(8, "campaign"), 1);
        assert_eq!(counts.count(7, "2026-11-23"), 0);
        assert_eq!(counts.count(9, "campaign"), 0);
        let stored = ParticipationCounts::from_stored(Some(&counts.stored()));
        assert_eq!(stored, counts, "the stored form reads back the same");
    }

    #[test]
    fn only_the_newest_periods_of_a_rule_are_kept() {
        let mut counts = ParticipationCounts::default();
        for day in 1..=20 {
            counts = counts.after(&[draw(7, &format!("2026-11-{day:02}")), draw(8, "campaign")]);
        }
        assert_eq!(counts.count(7, "2026-11-04"), 0, "dropped");
        assert_eq!(counts.count(7, "2026-11-05"), 1, "the 16th newest is kept");
        assert_eq!(counts.count(7, "2026-11-20"), 1);
        assert_eq!(counts.count(8, "campaign"), 20);
    }

    #[test]
    fn malformed_stored_counts_read_as_none() {
        let counts = ParticipationCounts::from_stored(Some(&json!("garbage")));
        assert_eq!(counts.count(7, "campaign"), 0);
        let counts = ParticipationCounts::from_stored(Some(&json!({"7": "x"})));
        assert_eq!(counts.after(&[draw(7, "campaign")]).count(7, "campaign"), 1);
    }
}
