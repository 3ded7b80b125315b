//! What a merge moves, and an unmerge gives back, of what a Customer holds
//! beyond points and carts: each kind with a part in merges
//! ([`Contribution::merge_part`]) plans its own moves, applied in the
//! merge's transaction, and its field of the merge record.

use serde_json::Value;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::pipeline::contribution::MergeMoves;
use crate::pipeline::contribution::MergePart;
use crate::pipeline::contribution::MergeScope;
use crate::pipeline::kinds::CONTRIBUTIONS;
use crate::resources::merges::model::MergeRecord;
use crate::resources::merges::model::NotRestored;
use crate::services::Services;

/// The kinds with a part in merges, in the order their moves run.
pub(crate) fn merge_parts() -> impl Iterator<Item = &'static MergePart> {
    CONTRIBUTIONS
        .iter()
        .filter_map(|contribution| contribution.merge_part())
}

/// The holdings part of a merge or unmerge.
#[derive(Debug, Default)]
pub(crate) struct HoldingsPlan {
    /// Each kind's moves, in the order of [`merge_parts`], applied in the
    /// merge's transaction.
    pub moves: Vec<Vec<Value>>,
    /// Each kind's field of the merge record (a merge's).
    recorded: Vec<(&'static str, Value)>,
    /// What stays with the survivor, and why (an unmerge's).
    pub not_restored: Vec<NotRestored>,
}

impl HoldingsPlan {
    fn add(&mut self, part: &MergePart, moves: MergeMoves) {
        self.moves.push(moves.moves);
        self.recorded.push((part.field, moves.recorded));
        self.not_restored.extend(moves.not_restored);
    }

    /// `record` with what each kind moved in its field.
    pub fn record_into(&self, record: MergeRecord) -> ApiResult<MergeRecord> {
        let mut document = serde_json::to_value(record).map_err(ApiError::internal)?;
        for (field, recorded) in &self.recorded {
            let slot = document.get_mut(*field).ok_or_else(|| {
                ApiError::internal(format!("a merge record has no field `{field}`"))
            })?;
            *slot = recorded.clone();
        }
        serde_json::from_value(document).map_err(ApiError::internal)
    }
}

impl Services {
    /// What merging `merged` into `target` moves of what `merged` holds.
    pub(crate) async fn plan_holdings_merge(
        &self,
        company: &str,
        merged: &str,
        target: &str,
    ) -> ApiResult<HoldingsPlan> {
        let scope = MergeScope {
            company,
            from: merged,
            to: target,
            recorded: &Value::Null,
        };
        let mut plan = HoldingsPlan::default();
        for part in merge_parts() {
            plan.add(part, (part.plan_merge)(self, &scope).await?);
        }
        Ok(plan)
    }

    /// Gives back to `customer` what the merge in `record` moved to `target`,
    /// as far as the target still holds it; says what stays and why.
    pub(crate) async fn plan_holdings_unmerge(
        &self,
        company: &str,
        record: &MergeRecord,
        customer: &str,
        target: &str,
    ) -> ApiResult<HoldingsPlan> {
        let document = serde_json::to_value(record).map_err(ApiError::internal)?;
        let mut plan = HoldingsPlan::default();
        for part in merge_parts() {
            let scope = MergeScope {
                company,
                from: target,
                to: customer,
                recorded: document.get(part.field).unwrap_or(&Value::Null),
            };
            plan.add(part, (part.plan_unmerge)(self, &scope).await?);
        }
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::resources::merges::model::MovedHoldings;

    fn record() -> MergeRecord {
        MergeRecord {
            merged_customer_id: "b".into(),
            target_customer_id: "a".into(),
            target_created: false,
            merged_at: "2026-11-27T10:00:00Z".parse().unwrap(),
            merged_was_active: true,
            cards: Vec::new(),
            identifiers: Vec::new(),
            associations: Vec::new(),
            carts: Vec::new(),
            points: 0,
            wallet: 0,
            holdings: MovedHoldings::default(),
        }
    }

    /// A kind's field missing from the merge record would lose what its
    /// merge moved, and an unmerge could not give it back.
    #[test]
    fn every_kind_with_a_part_in_merges_has_its_field_in_the_merge_record() {
        let mut plan = HoldingsPlan::default();
        for part in merge_parts() {
            plan.add(part, MergeMoves::merged::<Value, Value>(&[], &[]).unwrap());
        }
        assert!(plan.recorded.len() >= 4, "{:?}", plan.recorded);
        assert_eq!(plan.record_into(record()).unwrap(), record());
        let fields: Vec<&str> = merge_parts().map(|part| part.field).collect();
        let mut unique = fields.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), fields.len(), "{fields:?}");
    }

    #[test]
    fn a_field_the_merge_record_lacks_is_refused_not_dropped() {
        let plan = HoldingsPlan {
            recorded: vec![("stamp_cards", Value::Array(Vec::new()))],
            ..HoldingsPlan::default()
        };
        let refused = plan.record_into(record()).unwrap_err();
        assert_eq!(refused.code, ErrorCode::ServerError, "{refused:?}");
    }
}
