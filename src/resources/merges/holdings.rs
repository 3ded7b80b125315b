//! What a merge moves, and an unmerge gives back, of what a Customer holds
//! beyond points and carts: Rewards, game participations, Vouchers and
//! Challenge progress.

use serde_json::Value;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::challenges::merges::fold;
use crate::resources::challenges::merges::unfold;
use crate::resources::challenges::progress::ChallengeRecord;
use crate::resources::challenges::store::record_document;
use crate::resources::instant_wins::service::targeted_delivery_issue;
use crate::resources::merges::model::MergeRecord;
use crate::resources::merges::model::MovedChallenge;
use crate::resources::merges::model::MovedGameParticipations;
use crate::resources::merges::model::MovedVoucher;
use crate::resources::merges::model::NotRestored;
use crate::resources::merges::store::HoldingMove;
use crate::resources::vouchers::codes::code_key;
use crate::resources::vouchers::static_codes::of_static_code;
use crate::services::Services;

/// The holdings part of a merge.
#[derive(Debug, Default)]
pub(crate) struct HoldingsPlan {
    /// Changes of owner, applied in the merge's transaction.
    pub moves: Vec<HoldingMove>,
    /// Reward transactions moved (for the merge record).
    pub rewards: Vec<String>,
    /// Game participations moved (for the merge record).
    pub game_participations: Vec<MovedGameParticipations>,
    /// Vouchers moved (for the merge record).
    pub vouchers: Vec<MovedVoucher>,
    /// Challenge records folded into the target's (for the merge record).
    pub challenges: Vec<MovedChallenge>,
}

impl Services {
    /// Moves everything `merged` holds to `target`: its available Rewards, its
    /// game participations, and its Vouchers of campaigns the target holds no
    /// Voucher for (a Customer holds one Voucher per campaign).
    pub(crate) async fn plan_holdings_merge(
        &self,
        company: &str,
        merged: &str,
        target: &str,
    ) -> ApiResult<HoldingsPlan> {
        let (rewards, games, vouchers, target_vouchers) = tokio::try_join!(
            self.store.reward_transactions(company, merged),
            self.store.game_participations(company, merged),
            self.store.vouchers_by(company, "customer_id", merged),
            self.store.vouchers_by(company, "customer_id", target),
        )?;
        let (challenges, target_challenges) = tokio::try_join!(
            self.store.challenge_records(company, merged),
            self.store.challenge_records(company, target),
        )?;
        let mut plan = HoldingsPlan::default();
        for record in challenges {
            let survivor = target_challenges
                .iter()
                .find(|r| r.rule_id == record.rule_id);
            let folded = fold(survivor, &record, target);
            plan.moves.push(HoldingMove::Challenge {
                rule_id: record.rule_id,
                from: merged.to_string(),
                to: target.to_string(),
                from_version: record.version,
                to_version: survivor.map_or(0, |r| r.version),
                from_document: Value::Null,
                to_document: record_document(company, &folded),
            });
            plan.challenges.push(MovedChallenge {
                challenge_id: record.rule_id,
                events: record.counted.iter().map(|c| c.source.clone()).collect(),
                completions: record.completions.len() as i64,
                record,
            });
        }
        // Redemptions and rolled-back ones move too: a later rollback gives
        // the cost back to the survivor, who holds the merged balance.
        for reward in &rewards {
            plan.rewards.push(reward.id.clone());
            plan.moves.push(HoldingMove::Reward {
                id: reward.id.clone(),
                from: merged.to_string(),
                to: target.to_string(),
            });
        }
        for (game_id, count) in games.into_iter().filter(|(_, count)| *count > 0) {
            plan.game_participations
                .push(MovedGameParticipations { game_id, count });
            plan.moves.push(HoldingMove::Game {
                game_id,
                from: merged.to_string(),
                to: target.to_string(),
                count,
            });
        }
        // A Customer holds one Voucher per targeted campaign: the target
        // keeps its own. Coupons' Vouchers all move.
        // A static code's uses are counted per Customer under the Customer's
        // own key: the survivor keeps its count, the merged one's stays.
        for voucher in vouchers.iter().filter(|v| {
            !of_static_code(v)
                && (v.rule_id.is_none() || !target_vouchers.iter().any(|t| t.rule_id == v.rule_id))
        }) {
            plan.vouchers.push(MovedVoucher {
                rule_id: voucher.rule_id,
                code: voucher.code.clone(),
            });
            plan.moves.push(voucher_move(
                voucher.rule_id,
                &voucher.code,
                merged,
                target,
            )?);
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
    ) -> ApiResult<(Vec<HoldingMove>, Vec<NotRestored>)> {
        let (rewards, games, vouchers, challenges) = tokio::try_join!(
            self.store.reward_transactions(company, target),
            self.store.game_participations(company, target),
            self.store.vouchers_by(company, "customer_id", target),
            self.store.challenge_records(company, target),
        )?;
        let mut moves = Vec::new();
        let mut not_restored = Vec::new();
        // The merged Customer gets its records back as they were; the
        // target's keep what it did since, without what the merge brought.
        for moved in &record.challenges {
            let survivor = challenges.iter().find(|r| r.rule_id == moved.challenge_id);
            let restored = ChallengeRecord {
                customer_id: customer.to_string(),
                version: moved.record.version + 1,
                ..moved.record.clone()
            };
            let (from_version, from_document) = match survivor {
                Some(survivor) => (
                    survivor.version,
                    record_document(company, &unfold(survivor, &moved.record)),
                ),
                None => (0, Value::Null),
            };
            moves.push(HoldingMove::Challenge {
                rule_id: moved.challenge_id,
                from: target.to_string(),
                to: customer.to_string(),
                from_version,
                to_version: 0,
                from_document,
                to_document: record_document(company, &restored),
            });
        }
        for id in &record.rewards {
            if rewards.iter().any(|r| &r.id == id) {
                moves.push(HoldingMove::Reward {
                    id: id.clone(),
                    from: target.to_string(),
                    to: customer.to_string(),
                });
            } else {
                not_restored.push(NotRestored {
                    kind: "reward".into(),
                    value: id.clone(),
                    reason: "the target no longer holds it".into(),
                });
            }
        }
        for moved in &record.game_participations {
            let available = games
                .iter()
                .find(|(game, _)| *game == moved.game_id)
                .map_or(0, |(_, count)| *count);
            let back = moved.count.min(available);
            if back > 0 {
                moves.push(HoldingMove::Game {
                    game_id: moved.game_id,
                    from: target.to_string(),
                    to: customer.to_string(),
                    count: back,
                });
            }
            if back < moved.count {
                not_restored.push(NotRestored {
                    kind: "game_participations".into(),
                    value: format!("{} of game {}", moved.count - back, moved.game_id),
                    reason: "the target played them after the merge".into(),
                });
            }
        }
        for moved in &record.vouchers {
            if vouchers
                .iter()
                .any(|v| v.rule_id == moved.rule_id && v.code == moved.code)
            {
                moves.push(voucher_move(moved.rule_id, &moved.code, target, customer)?);
            } else {
                not_restored.push(NotRestored {
                    kind: "voucher".into(),
                    value: moved.code.clone(),
                    reason: "the target no longer holds it".into(),
                });
            }
        }
        Ok((moves, not_restored))
    }
}

/// The move of the Voucher with `code` (of the targeted campaign `rule_id`,
/// if any) from `from` to `to`.
fn voucher_move(rule_id: Option<i64>, code: &str, from: &str, to: &str) -> ApiResult<HoldingMove> {
    let key = code_key(code)
        .ok_or_else(|| ApiError::internal(format!("stored voucher code `{code}` has no key")))?;
    Ok(HoldingMove::Voucher {
        key,
        rule_id,
        issue_to: rule_id.map(|rule_id| targeted_delivery_issue(rule_id, to)),
        from: from.to_string(),
        to: to.to_string(),
    })
}
