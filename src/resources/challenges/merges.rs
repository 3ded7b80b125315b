//! What merging two Customers does to their Challenge records: the merged
//! Customer's events and completions join the survivor's ([`fold`]), and an
//! unmerge takes them out again ([`unfold`]); the merged Customer gets its
//! records back as they were.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ApiResult;
use crate::pipeline::contribution::MergeMoves;
use crate::pipeline::contribution::MergePart;
use crate::pipeline::contribution::MergeScope;
use crate::resources::challenges::progress::ChallengeRecord;
use crate::resources::challenges::store::record_document;
use crate::services::Services;

/// A Challenge record folded into the target's by a merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct MovedChallenge {
    /// The Challenge.
    pub challenge_id: i64,
    /// The events it counted that joined the target's.
    pub events: Vec<String>,
    /// Its completions, now the target's.
    pub completions: i64,
    /// The record as it was, given back by an unmerge.
    #[oai(skip)]
    pub record: ChallengeRecord,
}

/// A Challenge record moving: `from`'s written as `from_document` (deleted
/// when null) and `to`'s as `to_document`; refused if either moved since it
/// was read (at `from_version` and `to_version`, 0: none).
#[derive(Serialize)]
struct ChallengeMove<'a> {
    rule_id: i64,
    from: &'a str,
    to: &'a str,
    from_version: i64,
    to_version: i64,
    from_document: Value,
    to_document: Value,
}

/// The Challenge records a merge folds, listed in `challenges`.
pub(crate) static CHALLENGE_MOVES: MergePart = MergePart {
    field: "challenges",
    plan_merge: |services, merge| Box::pin(plan_merge(services, merge)),
    plan_unmerge: |services, unmerge| Box::pin(plan_unmerge(services, unmerge)),
    statements: challenge_move_statements,
};

fn challenge_move_statements(stale: &str) -> String {
    format!(
        "LET $source = type::record('challenge_progress', [$company, $move.from, $move.rule_id]);
         LET $dest = type::record('challenge_progress', [$company, $move.to, $move.rule_id]);
         IF (($source.version) ?? 0) != $move.from_version
             OR (($dest.version) ?? 0) != $move.to_version {{ {stale} }};
         IF $move.from_document {{
             UPSERT $source CONTENT $move.from_document RETURN NONE;
         }} ELSE {{
             DELETE $source RETURN NONE;
         }};
         UPSERT $dest CONTENT $move.to_document RETURN NONE;"
    )
}

/// Each of the merged Customer's records folds into the survivor's.
async fn plan_merge(services: &Services, merge: &MergeScope<'_>) -> ApiResult<MergeMoves> {
    let (records, survivors) = tokio::try_join!(
        services.store.challenge_records(merge.company, merge.from),
        services.store.challenge_records(merge.company, merge.to),
    )?;
    let mut moves = Vec::new();
    let mut moved = Vec::new();
    for record in records {
        let survivor = survivors.iter().find(|r| r.rule_id == record.rule_id);
        let folded = fold(survivor, &record, merge.to);
        moves.push(ChallengeMove {
            rule_id: record.rule_id,
            from: merge.from,
            to: merge.to,
            from_version: record.version,
            to_version: survivor.map_or(0, |r| r.version),
            from_document: Value::Null,
            to_document: record_document(merge.company, &folded),
        });
        moved.push(MovedChallenge {
            challenge_id: record.rule_id,
            events: record.counted.iter().map(|c| c.source.clone()).collect(),
            completions: record.completions.len() as i64,
            record,
        });
    }
    MergeMoves::merged(&moves, &moved)
}

/// The merged Customer's records come back as they were; the survivor's
/// keep what it did since, without what the merge brought.
async fn plan_unmerge(services: &Services, unmerge: &MergeScope<'_>) -> ApiResult<MergeMoves> {
    let moved: Vec<MovedChallenge> = unmerge.recorded()?;
    let survivors = services
        .store
        .challenge_records(unmerge.company, unmerge.from)
        .await?;
    let moves: Vec<ChallengeMove> = moved
        .iter()
        .map(|moved| {
            let restored = ChallengeRecord {
                customer_id: unmerge.to.to_string(),
                version: moved.record.version + 1,
                ..moved.record.clone()
            };
            let survivor = survivors.iter().find(|r| r.rule_id == moved.challenge_id);
            let (from_version, from_document) = match survivor {
                Some(survivor) => (
                    survivor.version,
                    record_document(unmerge.company, &unfold(survivor, &moved.record)),
                ),
                None => (0, Value::Null),
            };
            ChallengeMove {
                rule_id: moved.challenge_id,
                from: unmerge.from,
                to: unmerge.to,
                from_version,
                to_version: 0,
                from_document,
                to_document: record_document(unmerge.company, &restored),
            }
        })
        .collect();
    MergeMoves::unmerged(&moves, Vec::new())
}

/// The survivor's record once `merged` is folded into `survivor` (none: the
/// survivor had none) for the Customer `to`: the earlier enrolment, the
/// events of the later period (both Customers' when they are of the same
/// one), and every completion. Progress past the target is completed by the
/// next event that counts: a merge is not an event, and grants nothing.
pub fn fold(
    survivor: Option<&ChallengeRecord>,
    merged: &ChallengeRecord,
    to: &str,
) -> ChallengeRecord {
    let mut folded = match survivor {
        Some(survivor) => survivor.clone(),
        None => ChallengeRecord {
            rule_id: merged.rule_id,
            period: merged.period.clone(),
            ..ChallengeRecord::default()
        },
    };
    folded.customer_id = to.to_string();
    folded.version += 1;
    if merged.enrolled_at.is_some()
        && (folded.enrolled_at.is_none() || merged.enrolled_at < folded.enrolled_at)
    {
        folded.enrolled_at = merged.enrolled_at;
        folded.enrolled_on = merged.enrolled_on;
    }
    // Period keys of one Challenge sort in time order.
    if merged.period > folded.period {
        folded.period = merged.period.clone();
        folded.counted = merged.counted.clone();
    } else if merged.period == folded.period {
        for counted in &merged.counted {
            if !folded.counted.iter().any(|c| c.source == counted.source) {
                folded.counted.push(counted.clone());
            }
        }
        folded.counted.sort_by_key(|c| c.day);
    }
    folded
        .completions
        .extend(merged.completions.iter().cloned());
    folded.completions.sort_by_key(|c| c.completed_at);
    folded
}

/// The survivor's record once what `original` (the merged Customer's record
/// as it was when merged) brought is taken out again: its events and its
/// completions. What the survivor did since stays.
pub fn unfold(survivor: &ChallengeRecord, original: &ChallengeRecord) -> ChallengeRecord {
    let mut unfolded = survivor.clone();
    unfolded.version += 1;
    unfolded
        .counted
        .retain(|c| !original.counted.iter().any(|o| o.source == c.source));
    unfolded
        .completions
        .retain(|c| !original.completions.contains(c));
    unfolded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::challenges::progress::Completion;
    use crate::resources::challenges::progress::Counted;
    use rust_decimal::Decimal;

    fn counted(source: &str, day: &str) -> Counted {
        Counted {
            source: source.into(),
            day: day.parse().unwrap(),
            amount: Decimal::ONE,
        }
    }

    fn record(customer: &str, period: &str, events: &[Counted]) -> ChallengeRecord {
        ChallengeRecord {
            rule_id: 7,
            customer_id: customer.into(),
            version: 3,
            enrolled_at: Some("2026-11-02T10:00:00Z".parse().unwrap()),
            enrolled_on: Some("2026-11-02".parse().unwrap()),
            period: period.into(),
            counted: events.to_vec(),
            completions: vec![Completion {
                period: "2026-W44".into(),
                completed_at: format!("2026-11-0{}T10:00:00Z", customer.len())
                    .parse()
                    .unwrap(),
                counted: Vec::new(),
                granted: None,
                revoked_at: None,
            }],
        }
    }

    #[test]
    fn a_merge_joins_the_events_of_one_period_and_an_unmerge_takes_them_out() {
        let survivor = record("a", "2026-W46", &[counted("cart:A", "2026-11-09")]);
        let merged = record("bb", "2026-W46", &[counted("cart:B", "2026-11-10")]);
        let folded = fold(Some(&survivor), &merged, "a");
        assert_eq!(folded.customer_id, "a");
        assert_eq!(folded.version, 4);
        let sources: Vec<&str> = folded.counted.iter().map(|c| c.source.as_str()).collect();
        assert_eq!(sources, ["cart:A", "cart:B"]);
        assert_eq!(folded.completions.len(), 2);
        let unfolded = unfold(&folded, &merged);
        assert_eq!(unfolded.counted, survivor.counted);
        assert_eq!(unfolded.completions, survivor.completions);
        assert_eq!(unfolded.version, 5);
    }

    #[test]
    fn the_later_period_wins_and_a_survivor_without_a_record_takes_the_merged_one() {
        let survivor = record("a", "2026-W45", &[counted("cart:A", "2026-11-03")]);
        let merged = record("bb", "2026-W46", &[counted("cart:B", "2026-11-10")]);
        assert_eq!(fold(Some(&survivor), &merged, "a").counted, merged.counted);
        assert_eq!(fold(Some(&merged), &survivor, "bb").counted, merged.counted);
        let alone = fold(None, &merged, "a");
        assert_eq!((alone.customer_id.as_str(), alone.version), ("a", 1));
        assert_eq!(alone.counted, merged.counted);
        assert_eq!(alone.enrolled_at, merged.enrolled_at);
    }
}
