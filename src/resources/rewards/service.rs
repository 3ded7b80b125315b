//! The Rewards catalogue and its use-cases: whether a Customer can redeem
//! each Reward now and why not, redeeming one (its cost debited, a unit of
//! stock taken, what it gives given, all in one transaction), a Customer's
//! reward transactions, and rolling a redemption back once.

use crate::common::ids::time_ordered_id;
use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::evaluate::available;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::languages::negotiate::Language;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::coupons::service::find_coupon;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;
use crate::resources::points::store::ledger::LedgerEntry;
use crate::resources::rewards::model::RewardGiven;
use crate::resources::rewards::model::RewardLimitView;
use crate::resources::rewards::model::RewardState;
use crate::resources::rewards::model::RewardTransaction;
use crate::resources::rewards::model::RewardView;
use crate::resources::rewards::rules::Reward;
use crate::resources::rewards::rules::RewardGift;
use crate::resources::rewards::store::RedemptionStanding;
use crate::resources::rewards::store::RedemptionWrite;
use crate::resources::rewards::store::RollbackWrite;
use crate::resources::vouchers::issue_store::VoucherIssue;
use crate::resources::vouchers::model::NewVoucher;
use crate::resources::vouchers::model::Voucher;
use crate::services::Services;

/// How often a redemption whose drawn Voucher code is taken draws again.
const CODE_ATTEMPTS: usize = 5;

/// Longest rollback reason.
const MAX_REASON: usize = 500;

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
fn limit_period(reward: &Reward, facts: &Facts) -> Option<String> {
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

/// What `gift` gives, as the catalogue shows it.
fn given_view(gift: &RewardGift) -> RewardGiven {
    let mut view = RewardGiven {
        kind: gift.name().to_string(),
        ..RewardGiven::default()
    };
    match gift {
        RewardGift::Item(item) => view.item = item.clone(),
        RewardGift::Voucher { coupon_id } => view.coupon_id = Some(*coupon_id),
        RewardGift::Points { points, kind } => {
            view.points = Some(*points);
            view.balance = Some(*kind);
        }
        RewardGift::Game { game_id } => view.game_id = Some(*game_id),
    }
    view
}

/// A Customer's standing on one Reward, as the catalogue adds it.
struct Standing {
    customer_id: String,
    cost: Option<i64>,
    redeemed_in_period: i64,
    verdict: Result<i64, Refusal>,
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
        let render =
            |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
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
            id: campaign.id,
            name: render(&campaign.name),
            description: campaign.description.as_ref().map(render),
            image_url: reward.image_url.clone(),
            active: campaign.active,
            available_from: campaign.available_from.map(|t| t.instant(locale)),
            available_to: campaign.available_to.map(|t| t.instant(locale)),
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
    async fn reward_facts(&self, company: &str, customer: &Customer) -> ApiResult<Facts> {
        let mut facts = self
            .customer_facts(company, customer, self.now().as_datetime())
            .await?;
        let rules = self.catalog.company(company);
        self.segment_facts(&rules, &mut facts);
        Ok(facts)
    }

    /// A Customer's standing on `reward`: what the store says, judged.
    async fn standing(
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

    /// POST /rewards/{id}/redeem: debits the Reward's cost from the
    /// Customer's balance, takes a unit of its stock, counts it against the
    /// Customer's limit, gives what it gives and records the transaction,
    /// all in one transaction; refuses with the code the catalogue shows
    /// otherwise, and changes nothing.
    pub async fn redeem_reward(
        &self,
        company: &str,
        reward_id: i64,
        customer: CustomerRef<'_>,
        location_code: Option<String>,
        author: Option<&str>,
    ) -> ApiResult<RewardTransaction> {
        let rules = self.catalog.company(company);
        let (campaign, reward) = find_reward(&rules.campaigns, reward_id)?;
        let customer = self.active_customer_by(company, customer).await?;
        let facts = self.reward_facts(company, &customer).await?;
        let held = self
            .balance_locks
            .lock(company, &[&customer.id], reward.balance)
            .await;
        let standing = self
            .standing(company, &customer, &facts, campaign, reward)
            .await?;
        let cost = standing
            .verdict
            .map_err(|(code, message)| ApiError::new(code, message))?;
        let language = self
            .company_settings(company)
            .await?
            .default_language
            .clone();
        let now = self.now();
        let mut attempts = 0;
        loop {
            let redemption = self.redemption_write(RedemptionParts {
                company,
                campaign,
                reward,
                customer: &customer,
                facts: &facts,
                cost,
                location_code: location_code.clone(),
                author,
                language: &language,
                now,
            })?;
            match self.store.write_redemption(company, &redemption).await {
                Err(error)
                    if error.code == ErrorCode::VoucherCodeTaken && attempts < CODE_ATTEMPTS =>
                {
                    attempts += 1;
                }
                Err(error) => return Err(error),
                Ok(()) => {
                    drop(held);
                    tracing::info!(company, customer = %customer.id, reward_id, cost,
                        transaction = %redemption.transaction.id, "Reward redeemed");
                    return Ok(redemption.transaction);
                }
            }
        }
    }

    /// The writes of one redemption; a Voucher it gives has a new code.
    fn redemption_write(&self, parts: RedemptionParts<'_>) -> ApiResult<RedemptionWrite> {
        let RedemptionParts {
            company: _,
            campaign,
            reward,
            customer,
            facts,
            cost,
            location_code,
            author,
            language,
            now,
        } = parts;
        let id = time_ordered_id("rwt");
        let mut ledger = Vec::new();
        if cost > 0 {
            ledger.push(LedgerEntry {
                operation_id: Some(id.clone()),
                author_email: author.map(str::to_string),
                rule_id: Some(campaign.id),
                ..LedgerEntry::new(&customer.id, reward.balance, -cost, "reward", now)
            });
        }
        let mut given = given_view(&reward.gives);
        let mut voucher = None;
        let mut game_id = None;
        match &reward.gives {
            RewardGift::Item(_) => {}
            RewardGift::Points { points, kind } => ledger.push(LedgerEntry {
                operation_id: Some(id.clone()),
                rule_id: Some(campaign.id),
                ..LedgerEntry::new(&customer.id, *kind, *points, "reward", now)
            }),
            RewardGift::Game { game_id: game } => game_id = Some(*game),
            RewardGift::Voucher { coupon_id } => {
                let rules = self.catalog.company(parts.company);
                let (coupon_campaign, coupon) = find_coupon(&rules.campaigns, *coupon_id)?;
                let CouponCodes::Generated(pattern) = &coupon.codes else {
                    return Err(ApiError::new(
                        ErrorCode::RewardNotAvailable,
                        format!(
                            "Coupon {coupon_id} has one static code for everyone: Reward {} has no Voucher of its own to give",
                            campaign.id
                        ),
                    ));
                };
                let issued = Voucher::issued(NewVoucher {
                    code: pattern.generate(&mut rand::rng()),
                    coupon_id: *coupon_id,
                    coupon_name: coupon_campaign.name.resolve(language, language),
                    customer_id: customer.id.clone(),
                    uses_left: i64::from(coupon.uses_per_voucher),
                    source: "reward",
                    created_at: now,
                });
                given.voucher_code = Some(issued.code.clone());
                given.voucher_id = Some(issued.id.clone());
                voucher = Some(VoucherIssue {
                    voucher: issued,
                    issue_key: format!("reward:{id}"),
                    issues_per_customer: coupon.issues_per_customer,
                });
            }
        }
        let transaction = RewardTransaction {
            id,
            customer_id: customer.id.clone(),
            reward_id: campaign.id,
            reward_name: Some(campaign.name.resolve(language, language)),
            source: "redemption".into(),
            rule_id: campaign.id,
            state: RewardState::Redeemed,
            points: cost,
            balance: reward.balance,
            given: Some(given),
            location_code,
            author_email: author.map(str::to_string),
            created_at: now,
            rolled_back_at: None,
            rolled_back_by: None,
            rollback_reason: None,
        };
        Ok(RedemptionWrite {
            transaction,
            stock: reward.stock,
            limit: reward
                .limit
                .zip(limit_period(reward, facts))
                .map(|(limit, period)| (limit.count, period)),
            ledger,
            voucher,
            game_id,
        })
    }

    /// GET /rewards/transactions: a Customer's reward transactions, newest first.
    pub async fn reward_transaction_page(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        page: PageRequest,
    ) -> ApiResult<Page<RewardTransaction>> {
        let customer = self.find_customer(company, customer).await?.customer;
        let fetched = self
            .store
            .reward_transaction_page(
                company,
                &customer.id,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        Ok(Page::from_fetched(fetched, &page, |t| t.id.clone()))
    }

    /// POST /rewards/transactions/{id}/rollback: gives a redemption's cost
    /// back and takes back what it gave (its Voucher voided, its game
    /// participation or points taken back), once.
    pub async fn rollback_reward_transaction(
        &self,
        company: &str,
        id: &str,
        reason: Option<String>,
        author: Option<&str>,
    ) -> ApiResult<RewardTransaction> {
        let reason = match reason {
            Some(reason) if reason.chars().count() > MAX_REASON => {
                return Err(ApiError::invalid(format!(
                    "reason is at most {MAX_REASON} characters"
                )));
            }
            Some(reason) if reason.trim().is_empty() => None,
            other => other,
        };
        let not_found = || {
            ApiError::new(
                ErrorCode::RewardTransactionNotFound,
                format!("no reward transaction `{id}`"),
            )
        };
        let done = self
            .store
            .reward_transaction(company, id)
            .await?
            .ok_or_else(not_found)?;
        let at: Timestamp = self.now();
        let mut ledger = Vec::new();
        if done.points > 0 {
            ledger.push(LedgerEntry {
                operation_id: Some(done.id.clone()),
                author_email: author.map(str::to_string),
                rule_id: Some(done.reward_id),
                ..LedgerEntry::new(
                    &done.customer_id,
                    done.balance,
                    done.points,
                    "reward_rollback",
                    at,
                )
            });
        }
        if let Some(RewardGiven {
            points: Some(points),
            balance: Some(kind),
            ..
        }) = &done.given
        {
            ledger.push(LedgerEntry {
                operation_id: Some(done.id.clone()),
                rule_id: Some(done.reward_id),
                ..LedgerEntry::new(&done.customer_id, *kind, -points, "reward_rollback", at)
            });
        }
        let rollback = RollbackWrite {
            id: done.id.clone(),
            ledger,
            at,
            author: author.map(str::to_string),
            reason: reason.clone(),
        };
        match self.store.write_rollback(company, &rollback).await {
            Err(error) if error.code == ErrorCode::CustomerNotEnoughScore => {
                return Err(ApiError::new(
                    ErrorCode::RewardGiftUsed,
                    format!(
                        "the points reward transaction {id} gave were spent: {}",
                        error.message
                    ),
                ));
            }
            written => written?,
        }
        tracing::info!(company, transaction = %done.id, "reward redemption rolled back");
        Ok(RewardTransaction {
            state: RewardState::RolledBack,
            rolled_back_at: Some(at),
            rolled_back_by: author.map(str::to_string),
            rollback_reason: reason,
            ..done
        })
    }
}

/// What one redemption is made of.
struct RedemptionParts<'a> {
    company: &'a str,
    campaign: &'a Campaign,
    reward: &'a Reward,
    customer: &'a Customer,
    facts: &'a Facts,
    cost: i64,
    location_code: Option<String>,
    author: Option<&'a str>,
    language: &'a str,
    now: Timestamp,
}
