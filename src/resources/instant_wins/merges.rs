//! What a merge moves of a Customer's game participations: every one the
//! merged Customer has left goes to the survivor; an unmerge gives back as
//! many as the survivor has not played since.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::error::ApiResult;
use crate::pipeline::contribution::MergeMoves;
use crate::pipeline::contribution::MergePart;
use crate::pipeline::contribution::MergeScope;
use crate::resources::merges::model::NotRestored;
use crate::services::Services;

/// Game participations moved by a merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct MovedGameParticipations {
    /// The game.
    pub game_id: i64,
    /// How many participations.
    pub count: i64,
}

/// `count` participations of a game changing owner; refused if `from` has
/// fewer.
#[derive(Serialize)]
struct GameMove<'a> {
    game_id: i64,
    from: &'a str,
    to: &'a str,
    count: i64,
}

/// The participations a merge moves, listed in `game_participations`.
pub(crate) static GAME_MOVES: MergePart = MergePart {
    field: "game_participations",
    plan_merge: |services, merge| Box::pin(plan_merge(services, merge)),
    plan_unmerge: |services, unmerge| Box::pin(plan_unmerge(services, unmerge)),
    statements: game_move_statements,
};

fn game_move_statements(stale: &str) -> String {
    format!(
        "LET $source = type::record('game_participation', [$company, $move.from, $move.game_id]);
         LET $have = ($source.available) ?? 0;
         IF $have < $move.count {{ {stale} }};
         UPDATE $source SET available = $have - $move.count RETURN NONE;
         UPSERT type::record('game_participation', [$company, $move.to, $move.game_id])
             SET company = $company, customer_id = $move.to, game_id = $move.game_id,
                 available = (available ?? 0) + $move.count
             RETURN NONE;"
    )
}

/// Every participation the merged Customer has left moves.
async fn plan_merge(services: &Services, merge: &MergeScope<'_>) -> ApiResult<MergeMoves> {
    let moved: Vec<MovedGameParticipations> = services
        .store
        .game_participations(merge.company, merge.from)
        .await?
        .into_iter()
        .filter(|(_, count)| *count > 0)
        .map(|(game_id, count)| MovedGameParticipations { game_id, count })
        .collect();
    MergeMoves::merged(&moves(&moved, merge), &moved)
}

/// The participations moved come back, but those the survivor played.
async fn plan_unmerge(services: &Services, unmerge: &MergeScope<'_>) -> ApiResult<MergeMoves> {
    let moved: Vec<MovedGameParticipations> = unmerge.recorded()?;
    let available = services
        .store
        .game_participations(unmerge.company, unmerge.from)
        .await?;
    let mut back = Vec::new();
    let mut not_restored = Vec::new();
    for moved in moved {
        let left = available
            .iter()
            .find(|(game, _)| *game == moved.game_id)
            .map_or(0, |(_, count)| *count);
        let count = moved.count.min(left);
        if count > 0 {
            back.push(MovedGameParticipations {
                game_id: moved.game_id,
                count,
            });
        }
        if count < moved.count {
            not_restored.push(NotRestored {
                kind: "game_participations".into(),
                value: format!("{} of game {}", moved.count - count, moved.game_id),
                reason: "the target played them after the merge".into(),
            });
        }
    }
    MergeMoves::unmerged(&moves(&back, unmerge), not_restored)
}

/// The moves of `participations` from `scope.from` to `scope.to`.
fn moves<'a>(
    participations: &[MovedGameParticipations],
    scope: &MergeScope<'a>,
) -> Vec<GameMove<'a>> {
    participations
        .iter()
        .map(|moved| GameMove {
            game_id: moved.game_id,
            from: scope.from,
            to: scope.to,
            count: moved.count,
        })
        .collect()
}
