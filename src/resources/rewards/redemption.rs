//! Redeeming a Reward: its cost debited, a unit of stock taken, the
//! Customer's count for the period, what it gives given and the reward
//! transaction recorded, all in one transaction.

use crate::common::ids::time_ordered_id;
use crate::common::retry::Tries;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::facts::Facts;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::http::idempotency::answer::answer_now;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::rewards::gift::Recipient;
use crate::resources::rewards::gift::gift_write;
use crate::resources::rewards::model::RewardState;
use crate::resources::rewards::model::RewardTransaction;
use crate::resources::rewards::rules::Reward;
use crate::resources::rewards::store::RedemptionWrite;
use crate::resources::vouchers::codes::{CODE_DRAWS, CODE_TAKEN};
use crate::services::Services;

use crate::resources::rewards::service::find_reward;
use crate::resources::rewards::service::limit_period;

impl Services {
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
        let mut tries = Tries::at_most(CODE_DRAWS);
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
            answer_now(&redemption.transaction).await;
            let written = self.store.write_redemption(company, &redemption).await;
            if tries.again(&written, CODE_TAKEN) {
                continue;
            }
            written?;
            drop(held);
            tracing::info!(company, customer = %customer.id, reward_id, cost,
                transaction = %redemption.transaction.id, "Reward redeemed");
            return Ok(redemption.transaction);
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
        let rules = self.catalog.company(parts.company);
        let gift = gift_write(
            &rules.campaigns,
            campaign,
            reward,
            &Recipient {
                customer_id: &customer.id,
                transaction_id: &id,
                render: &|text| text.resolve(language, language),
                now,
            },
        )?;
        ledger.extend(gift.ledger);
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
            given: Some(gift.given),
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
            voucher: gift.voucher,
            game_id: gift.game_id,
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
