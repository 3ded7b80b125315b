//! Challenges in the interpreter: the `challenge` effect an event that
//! counts returns, with the record it moves and what a completion gives.
//! What the pipeline reads and writes for it is the service's
//! (`resources::challenges::contribution`).

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;

use crate::common::amount::Amount;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::effect::Effect;
use crate::engine::effect::VoucherIssuedEffect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::resources::challenges::goal::Measure;
use crate::resources::challenges::progress::Advanced;
use crate::resources::challenges::progress::ChallengeRecord;
use crate::resources::challenges::progress::Grant;
use crate::resources::challenges::progress::Offered;
use crate::resources::challenges::progress::advance;
use crate::resources::challenges::rules::Challenge;
use crate::resources::challenges::rules::ChallengeReward;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::resources::rewards::gift::GiftWrite;
use crate::resources::rewards::gift::Recipient;
use crate::resources::rewards::gift::gift_write;
use crate::resources::rewards::model::RewardState;
use crate::resources::rewards::model::RewardTransaction;
use crate::resources::vouchers::rules::voucher_of_coupon;

/// What an event did to a Challenge, as its `challenge` effect shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChallengeStep {
    /// Progress after the event, at most the target.
    pub progress: Amount,
    /// The goal's target.
    pub target: Amount,
    /// Whether this event completed it.
    pub completed: bool,
    /// What the completion gave (none when it gave nothing: its period's
    /// grant was given before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub granted: Option<Grant>,
}

/// An event's `challenge` effect, with what its transaction writes.
#[derive(Debug, Clone, PartialEq)]
pub struct ChallengeEffect {
    /// The Challenge.
    pub rule_id: i64,
    /// Its name in the response language.
    pub rule_name: String,
    /// What the event did.
    pub step: ChallengeStep,
    /// The record to write.
    pub record: ChallengeRecord,
    /// The Reward a completion gives, recorded with the event.
    pub reward_transaction: Option<RewardTransaction>,
    /// What that Reward gives: its points (ledger entries of the event) and
    /// the game it gives a participation in (its Voucher is an effect of its
    /// own, issued with the event's).
    pub reward_gift: Option<(Vec<LedgerEntry>, Option<i64>)>,
}

/// The source key of the event of `cx`: its cart, Custom Event or trigger.
fn event_source(cx: &KindContext<'_, '_>) -> String {
    let facts = cx.facts;
    if let Some(code) = facts.cart.get("code").and_then(Value::as_str) {
        return format!("cart:{code}");
    }
    if let Some(id) = facts.event.get("id").and_then(Value::as_str) {
        return format!("custom_event:{id}");
    }
    let kind = facts
        .trigger
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("event");
    format!("trigger:{kind}@{}", Timestamp::from(facts.now))
}

/// The `challenge` effect of the event of `cx` for `challenge` (and the
/// `voucher_issued` effect of a Voucher its completion gives); why the event
/// does not count otherwise.
pub fn challenge_effects(
    campaign: &Campaign,
    challenge: &Challenge,
    cx: &mut KindContext<'_, '_>,
) -> Result<Vec<Effect>, String> {
    let facts = cx.facts;
    let amount = match &challenge.goal.measure {
        Measure::Sum { amount, .. } => {
            let value = cx
                .engine
                .eval_json(amount, facts)
                .map_err(|e| format!("the amount to add could not be reckoned: {e}"))?;
            Amount::from_json(&value)
                .map_err(|e| format!("the amount to add is not an amount: {e}"))?
                .0
        }
        Measure::Count(_) | Measure::Streak { .. } => Decimal::ONE,
    };
    let at = Timestamp::from(facts.now);
    let offered = Offered {
        source: event_source(cx),
        day: facts.locale.wall_clock(facts.now).date(),
        amount,
        at,
    };
    let customer_id = facts.customer["id"].as_str().unwrap_or_default();
    let Advanced {
        mut record,
        progress,
        target,
        completed,
        grants,
    } = advance(
        challenge,
        cx.draws.challenges.get(&campaign.id),
        campaign.id,
        customer_id,
        &offered,
    )?;
    let rule_name = (cx.render)(&campaign.name);
    let mut effects = Vec::new();
    let mut reward_transaction = None;
    let mut reward_gift = None;
    let granted = match grants {
        None => None,
        Some(ChallengeReward::Points(points)) => Some(Grant::Points { points }),
        Some(ChallengeReward::Game(game_id)) => Some(Grant::Game { game_id }),
        Some(ChallengeReward::Reward(reward_id)) => {
            let (transaction, gift) = reward_grant(reward_id, campaign.id, customer_id, at, cx)?;
            let grant = Grant::Reward {
                reward_id,
                transaction_id: transaction.id.clone(),
            };
            reward_transaction = Some(transaction);
            if let Some(gift) = gift {
                if let Some(issue) = gift.voucher {
                    effects.push(Effect::VoucherIssued(Box::new(VoucherIssuedEffect {
                        rule_id: campaign.id,
                        rule_name: rule_name.clone(),
                        voucher: issue.voucher,
                        issues_per_customer: issue.issues_per_customer,
                    })));
                }
                reward_gift = Some((gift.ledger, gift.game_id));
            }
            Some(grant)
        }
        Some(ChallengeReward::Coupon(coupon_id)) => {
            // Written by the event's Voucher issues, like a `voucher` campaign's.
            let issued = voucher_of_coupon(campaign, coupon_id, cx.campaigns, facts, cx.render)
                .map_err(|reason| {
                    format!("completed, but its Voucher cannot be issued: {reason}")
                })?;
            let grant = Grant::Voucher {
                coupon_id,
                code: issued.voucher.code.clone(),
            };
            effects.push(Effect::VoucherIssued(Box::new(issued)));
            Some(grant)
        }
    };
    if let (true, Some(completion)) = (completed, record.completions.last_mut()) {
        completion.granted.clone_from(&granted);
    }
    effects.insert(
        0,
        Effect::Challenge(Box::new(ChallengeEffect {
            rule_id: campaign.id,
            rule_name,
            step: ChallengeStep {
                progress: Amount(progress),
                target: Amount(target),
                completed,
                granted,
            },
            record,
            reward_transaction,
            reward_gift,
        })),
    );
    Ok(effects)
}

/// The reward transaction of Reward `reward_id` a completion of Challenge
/// `challenge_id` gives `customer_id` at `at`, and what that Reward gives
/// (none when it is not among the Company's campaigns).
fn reward_grant(
    reward_id: i64,
    challenge_id: i64,
    customer_id: &str,
    at: Timestamp,
    cx: &KindContext<'_, '_>,
) -> Result<(RewardTransaction, Option<GiftWrite>), String> {
    let id = crate::common::ids::time_ordered_id("rwt");
    let reward = cx.campaigns.iter().find_map(|c| match &c.kind {
        CampaignKind::Reward(reward) if c.id == reward_id => Some((c, reward.as_ref())),
        _ => None,
    });
    let gift = match reward {
        Some((reward_campaign, reward)) => {
            let to = Recipient {
                customer_id,
                transaction_id: &id,
                render: cx.render,
                now: at,
            };
            Some(
                gift_write(cx.campaigns, reward_campaign, reward, &to).map_err(|error| {
                    format!(
                        "completed, but Reward {reward_id} cannot be given: {}",
                        error.message
                    )
                })?,
            )
        }
        None => None,
    };
    let transaction = RewardTransaction {
        id,
        customer_id: customer_id.to_string(),
        reward_id,
        reward_name: reward.map(|(c, _)| (cx.render)(&c.name)),
        source: "challenge".into(),
        rule_id: challenge_id,
        state: RewardState::Available,
        points: 0,
        balance: PointsKind::Points,
        given: gift.as_ref().map(|g| g.given.clone()),
        location_code: None,
        author_email: None,
        created_at: at,
        rolled_back_at: None,
        rolled_back_by: None,
        rollback_reason: None,
    };
    Ok((transaction, gift))
}
