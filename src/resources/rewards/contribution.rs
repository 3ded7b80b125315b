//! What Rewards contribute to the service around their evaluation: a
//! merge moves the merged Customer's reward transactions to the survivor,
//! redemptions and rolled-back ones alike (a later rollback gives the cost
//! back to the survivor, who holds the merged balance); an unmerge gives
//! back those the survivor still holds.

use serde::Serialize;

use crate::error::ApiResult;
use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::MergeMoves;
use crate::pipeline::contribution::MergePart;
use crate::pipeline::contribution::MergeScope;
use crate::resources::merges::model::NotRestored;
use crate::services::Services;

/// Rewards' part of the service.
pub(crate) struct Rewards;

/// A reward transaction changing owner; refused if `from` no longer holds it.
#[derive(Serialize)]
struct RewardMove<'a> {
    id: &'a str,
    from: &'a str,
    to: &'a str,
}

/// The reward transactions a merge moves, listed by id in `rewards`.
static REWARD_MOVES: MergePart = MergePart {
    field: "rewards",
    plan_merge: |services, merge| Box::pin(plan_merge(services, merge)),
    plan_unmerge: |services, unmerge| Box::pin(plan_unmerge(services, unmerge)),
    statements: reward_move_statements,
};

fn reward_move_statements(stale: &str) -> String {
    format!(
        "LET $key = type::record('reward_transaction', [$company, $move.id]);
         IF ($key.customer_id) != $move.from {{ {stale} }};
         UPDATE $key SET customer_id = $move.to RETURN NONE;"
    )
}

impl Contribution for Rewards {
    fn merge_part(&self) -> Option<&'static MergePart> {
        Some(&REWARD_MOVES)
    }
}

/// Every transaction of the merged Customer moves.
async fn plan_merge(services: &Services, merge: &MergeScope<'_>) -> ApiResult<MergeMoves> {
    let held = services
        .store
        .reward_transactions(merge.company, merge.from)
        .await?;
    let ids: Vec<&str> = held.iter().map(|r| r.id.as_str()).collect();
    MergeMoves::merged(&moves(&ids, merge), &ids)
}

/// The transactions moved come back, but those the survivor no longer
/// holds.
async fn plan_unmerge(services: &Services, unmerge: &MergeScope<'_>) -> ApiResult<MergeMoves> {
    let moved: Vec<String> = unmerge.recorded()?;
    let held = services
        .store
        .reward_transactions(unmerge.company, unmerge.from)
        .await?;
    let (back, kept): (Vec<&str>, Vec<&str>) = moved
        .iter()
        .map(String::as_str)
        .partition(|id| held.iter().any(|r| r.id == *id));
    let not_restored = kept
        .into_iter()
        .map(|id| NotRestored {
            kind: "reward".into(),
            value: id.to_string(),
            reason: "the target no longer holds it".into(),
        })
        .collect();
    MergeMoves::unmerged(&moves(&back, unmerge), not_restored)
}

/// The moves of the transactions `ids` from `scope.from` to `scope.to`.
fn moves<'a>(ids: &[&'a str], scope: &MergeScope<'a>) -> Vec<RewardMove<'a>> {
    ids.iter()
        .map(|id| RewardMove {
            id,
            from: scope.from,
            to: scope.to,
        })
        .collect()
}
