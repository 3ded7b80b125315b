//! The Rewards catalogue: every Reward, and whether a Customer can redeem
//! each now and why not (the same judgement a redemption makes,
//! [`crate::resources::rewards::redemption`]).

use crate::common::language::Language;
use crate::engine::campaign::Campaign;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::engine::takes_part::available;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;
use crate::resources::rewards::gift::given_view;
use crate::resources::rewards::rules::Reward;
use crate::resources::rewards::store::RedemptionStanding;
use crate::resources::rewards::view::RewardLimitView;
use crate::resources::rewards::view::RewardView;
use crate::services::Services;

/// Why a Customer cannot redeem a Reward: the code a redemption answers, and words.
type Refusal = (ErrorCode, String);

/// The Reward campaign `id` of `campaigns`.
pub(crate) fn find_reward(campaigns: &[Campaign], id: i64) -> ApiResult<(&Campaign, &Reward)> {
    campaigns
        .iter()
        .find_map(|campaign| match &campaign.kind {
            CampaignKind::Reward(reward) if campaign.id == id => Some((campaign, reward.as_ref())),
            _ => None,
        })
        .ok_or_else(|| ApiError::new(ErrorCode::RewardNotFound, format!("no Reward `{id}`")))
}

/// The period key of `reward`'s limit at `facts`' time.
pub(super) fn limit_period(reward: &Reward, facts: &Facts) -> Option<String> {
    reward
        .limit
        .map(|limit| limit.per.key(facts.locale.wall_clock(facts.now)))
}

/// What the Customer of `facts` pays for `reward`, or why they cannot redeem
/// it now, given what the store says (`standing`).
fn judge(
    services: &Services,
    campaign: &Campaign,
    reward: &Reward,
    facts: &Facts,
    standing: &RedemptionStanding,
) -> Result<i64, Refusal> {
    let tier = facts.tier.as_str();
    let Some(cost) = reward.cost_for(tier) else {
        return Err((
            ErrorCode::RewardNotRedeemable,
            format!(
                "Reward {} is given, never redeemed: it has no points_cost",
                campaign.id
            ),
        ));
    };
    let engine = services.catalog.engine();
    let prepared = engine.prepare(facts);
    available(engine, campaign, facts, &prepared).map_err(|why| {
        (
            ErrorCode::RewardNotAvailable,
            format!("Reward {} cannot be redeemed now: {why}", campaign.id),
        )
    })?;
    if reward.stock >= 0 && standing.stock_taken >= reward.stock {
        return Err((
            ErrorCode::RewardOutOfStock,
            format!("every unit of Reward {} is taken", campaign.id),
        ));
    }
    if let Some(limit) = reward.limit
        && standing.redeemed_in_period >= limit.count
    {
        return Err((
            ErrorCode::RewardLimitReached,
            format!(
                "the Customer redeemed Reward {} {} times this {}, its limit",
                campaign.id,
                standing.redeemed_in_period,
                limit.per.name()
            ),
        ));
    }
    if standing.balance < cost {
        return Err((
            ErrorCode::CustomerNotEnoughScore,
            format!(
                "Reward {} costs {cost} {}; the Customer has {}",
                campaign.id,
                reward.balance.name(),
                standing.balance
            ),
        ));
    }
    Ok(cost)
}

/// A Customer's standing on one Reward, as the catalogue adds it.
pub(super) struct Standing {
    customer_id: String,
    cost: Option<i64>,
    redeemed_in_period: i64,
    /// What they pay, or why they cannot redeem it.
    pub verdict: Result<i64, Refusal>,
}

impl Services {
    /// `campaign` as the catalogue shows it, with `standing` when a Customer is named.
    fn reward_view(
        &self,
        campaign: &Campaign,
        reward: &Reward,
        stock_taken: i64,
        standing: Option<Standing>,
        language: &Language,
        locale: &crate::common::locale::Locale,
    ) -> RewardView {
        let (customer_id, customer_cost, redeemed_in_period, can_redeem, reason, reason_message) =
            match standing {
                None => (None, None, None, None, None, None),
                Some(standing) => {
                    let (can, code, message) = match standing.verdict {
                        Ok(_) => (true, None, None),
                        Err((code, message)) => {
                            (false, Some(code.code().to_string()), Some(message))
                        }
                    };
                    (
                        Some(standing.customer_id),
                        standing.cost,
                        reward.limit.map(|_| standing.redeemed_in_period),
                        Some(can),
                        code,
                        message,
                    )
                }
            };
        RewardView {
            header: CampaignHeader::of(campaign, language, locale),
            image_url: reward.image_url.clone(),
            points_cost: reward.points_cost,
            points_cost_by_tier: reward.points_cost_by_tier.clone(),
            balance: reward.balance,
            stock: reward.stock,
            stock_left: if reward.stock < 0 {
                -1
            } else {
                (reward.stock - stock_taken).max(0)
            },
            limit: reward.limit.map(|limit| RewardLimitView {
                count: limit.count,
                per: limit.per.name().to_string(),
            }),
            gives: given_view(&reward.gives),
            customer_id,
            customer_cost,
            redeemed_in_period,
            can_redeem,
            reason,
            reason_message,
        }
    }

    /// The facts `when` conditions of Rewards are judged on: the Customer,
    /// their history and tier, now.
    pub(super) async fn reward_facts(
        &self,
        company: &str,
        customer: &Customer,
    ) -> ApiResult<Facts> {
        let mut facts = self
            .customer_facts(company, customer, self.now().as_datetime())
            .await?;
        let rules = self.catalog.company(company);
        self.segment_facts(&rules, &mut facts);
        Ok(facts)
    }

    /// A Customer's standing on `reward`: what the store says, judged.
    pub(super) async fn standing(
        &self,
        company: &str,
        customer: &Customer,
        facts: &Facts,
        campaign: &Campaign,
        reward: &Reward,
    ) -> ApiResult<Standing> {
        let period = limit_period(reward, facts);
        let stored = self
            .store
            .redemption_standing(
                company,
                &customer.id,
                campaign.id,
                reward.balance,
                period.as_deref(),
            )
            .await?;
        let inactive =
            !customer.active || customer.anonymized_at.is_some() || customer.merged_into.is_some();
        let verdict = if inactive {
            Err((
                ErrorCode::CustomerInactive,
                format!("Customer {} is inactive", customer.id),
            ))
        } else {
            judge(self, campaign, reward, facts, &stored)
        };
        Ok(Standing {
            customer_id: customer.id.clone(),
            cost: reward.cost_for(facts.tier.as_str()),
            redeemed_in_period: stored.redeemed_in_period,
            verdict,
        })
    }

    /// GET /rewards: every Reward by id; with a Customer, whether they can
    /// redeem each now and why not.
    pub async fn rewards(
        &self,
        company: &str,
        customer: Option<CustomerRef<'_>>,
        language: &Language,
    ) -> ApiResult<Vec<RewardView>> {
        let rules = self.catalog.company(company);
        let rewards: Vec<(&Campaign, &Reward)> = rules
            .campaigns
            .iter()
            .filter_map(|campaign| match &campaign.kind {
                CampaignKind::Reward(reward) => Some((campaign, reward.as_ref())),
                _ => None,
            })
            .collect();
        self.reward_views(company, &rewards, customer, language)
            .await
    }

    /// GET /rewards/{id}.
    pub async fn reward(
        &self,
        company: &str,
        id: i64,
        customer: Option<CustomerRef<'_>>,
        language: &Language,
    ) -> ApiResult<RewardView> {
        let rules = self.catalog.company(company);
        let found = find_reward(&rules.campaigns, id)?;
        let mut views = self
            .reward_views(company, &[found], customer, language)
            .await?;
        views
            .pop()
            .ok_or_else(|| ApiError::internal("a Reward's view was not made"))
    }

    async fn reward_views(
        &self,
        company: &str,
        rewards: &[(&Campaign, &Reward)],
        customer: Option<CustomerRef<'_>>,
        language: &Language,
    ) -> ApiResult<Vec<RewardView>> {
        let locale = self.company_locale(company).await?;
        let taken = self.store.reward_stock_taken(company).await?;
        let customer = match customer {
            Some(reference) => {
                let customer = self.find_customer(company, reference).await?.customer;
                let facts = self.reward_facts(company, &customer).await?;
                Some((customer, facts))
            }
            None => None,
        };
        let mut views = Vec::with_capacity(rewards.len());
        for &(campaign, reward) in rewards {
            let standing = match &customer {
                Some((customer, facts)) => Some(
                    self.standing(company, customer, facts, campaign, reward)
                        .await?,
                ),
                None => None,
            };
            let stock_taken = taken
                .iter()
                .find(|(id, _)| *id == campaign.id)
                .map_or(0, |(_, taken)| *taken);
            views.push(self.reward_view(
                campaign,
                reward,
                stock_taken,
                standing,
                language,
                &locale,
            ));
        }
        Ok(views)
    }
}
