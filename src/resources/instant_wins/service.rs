//! Instant Win campaigns as integrators read them (GET /instant_wins and
//! /instant_wins/{id}), and their Targeted Delivery: Vouchers assigning a
//! targeted Instant Win to Customers.

use crate::common::retry::Tries;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::master_data::matching::location_listed;
use crate::resources::vouchers::codes::{CODE_DRAWS, CODE_TAKEN};
use std::collections::HashMap;

use crate::common::language::Language;
use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::customers::service::CustomerRef;
use crate::resources::instant_wins::model::InstantWinCampaign;
use crate::resources::instant_wins::model::InstantWinPrize;
use crate::resources::instant_wins::model::InstantWinPrizes;
use crate::resources::instant_wins::model::InstantWinSearch;
use crate::resources::instant_wins::model::PrizeOutcome;
use crate::resources::instant_wins::rules::Audience;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::vouchers::model::NewVoucher;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherIssue;
use crate::secrets::random_hex;
use crate::services::Services;

/// Filters of the list and detail endpoints.
#[derive(Debug, Clone, Default)]
pub struct InstantWinFilter<'a> {
    /// The Customer: adds remaining_participations and their targeted campaigns.
    pub customer: Option<CustomerRef<'a>>,
    /// Only this audience.
    pub audience: Option<Audience>,
    /// Only campaigns running at this location (id or code).
    pub location: Option<String>,
    /// Only campaigns running in one of these countries.
    pub countries: Vec<String>,
    /// Only campaigns available to this tier.
    pub tier: Option<String>,
}

/// Whether `instant_win` is among those `filter` asks for; `location` is
/// the catalogue's record of the filter's store (`{}` when it has none).
fn runs_for(
    campaign: &Campaign,
    instant_win: &InstantWin,
    filter: &InstantWinFilter<'_>,
    location: &serde_json::Value,
) -> bool {
    let audience = filter.audience.is_none_or(|a| a == instant_win.audience);
    let at = filter.location.as_ref().is_none_or(|code| {
        campaign.locations.is_empty() || location_listed(&campaign.locations, code, location)
    });
    let reach = &campaign.reach;
    let country = filter.countries.is_empty()
        || reach.countries.is_empty()
        || filter
            .countries
            .iter()
            .any(|c| reach.countries.contains(&c.to_uppercase()));
    let tier = filter
        .tier
        .as_ref()
        .is_none_or(|tier| reach.tiers.is_empty() || reach.tiers.contains(tier));
    audience && at && country && tier
}

fn instant_win_of(campaign: &Campaign) -> Option<&InstantWin> {
    match &campaign.kind {
        CampaignKind::InstantWin(instant_win) => Some(instant_win),
        _ => None,
    }
}

fn not_found(what: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        ErrorCode::InstantWinNotFound,
        format!("no Instant Win {what}"),
    )
}

/// What is known of one Customer for the listed campaigns.
struct CustomerView {
    participations: HashMap<i64, i64>,
    vouchers: Vec<Voucher>,
}

impl Services {
    /// Instant Win campaigns of the Company, in id order, filtered.
    pub async fn instant_wins(
        &self,
        company: &str,
        filter: InstantWinFilter<'_>,
        page: PageRequest,
        language: &Language,
    ) -> ApiResult<Page<InstantWinCampaign>> {
        let after = match page.starting_after.as_deref() {
            Some(token) => Some(token.parse::<i64>().map_err(|_| {
                ApiError::invalid(
                    "starting_after is the next_token_starts_after of a previous page",
                )
            })?),
            None => None,
        };
        let rules = self.catalog.company(company);
        let location = self
            .master_data
            .company(company)
            .location_facts(filter.location.as_deref());
        let candidates: Vec<&Campaign> = rules
            .campaigns
            .iter()
            .filter(|c| instant_win_of(c).is_some_and(|iw| runs_for(c, iw, &filter, &location)))
            .collect();
        let view = self.customer_view(company, &filter, &candidates).await?;
        let mut listed: Vec<&Campaign> = candidates
            .into_iter()
            .filter(|campaign| after.is_none_or(|after| campaign.id > after))
            .filter(|campaign| match (&view, instant_win_of(campaign)) {
                // For a Customer: loyalty campaigns and the targeted ones they hold.
                (Some(view), Some(iw)) if iw.audience == Audience::Targeted => {
                    view.vouchers.iter().any(|v| v.rule_id == Some(campaign.id))
                }
                _ => true,
            })
            .collect();
        listed.truncate(page.fetch_limit());
        let given = self
            .store
            .prizes_given(company, &listed.iter().map(|c| c.id).collect::<Vec<_>>())
            .await?;
        let items = listed
            .into_iter()
            .filter_map(|campaign| {
                let instant_win = instant_win_of(campaign)?;
                Some(describe(
                    campaign,
                    instant_win,
                    &given,
                    view.as_ref(),
                    language,
                ))
            })
            .collect();
        Ok(Page::from_fetched(items, &page, |c| {
            c.header.id.to_string()
        }))
    }

    /// One Instant Win, named by `id` as `search_by` says.
    pub async fn instant_win(
        &self,
        company: &str,
        id: &str,
        search_by: InstantWinSearch,
        mut filter: InstantWinFilter<'_>,
        language: &Language,
    ) -> ApiResult<InstantWinCampaign> {
        let rules = self.catalog.company(company);
        let mut implied_customer = None;
        let rule_id = match search_by {
            InstantWinSearch::LoyaltyRuleId => id
                .parse::<i64>()
                .map_err(|_| not_found(format!("with id `{id}`")))?,
            InstantWinSearch::StaticCode => rules
                .campaigns
                .iter()
                .find(|c| {
                    instant_win_of(c)
                        .and_then(|iw| iw.coupon.as_ref())
                        .is_some_and(|coupon| coupon.static_code == id)
                })
                .map(|c| c.id)
                .ok_or_else(|| not_found(format!("with static_code `{id}`")))?,
            InstantWinSearch::LoyaltyRuleHistoryId | InstantWinSearch::CampaignHistoryId => {
                let field = if search_by == InstantWinSearch::LoyaltyRuleHistoryId {
                    "loyalty_rule_history_id"
                } else {
                    "campaign_history_id"
                };
                let vouchers = self.store.vouchers_by(company, field, id).await?;
                let voucher = vouchers
                    .first()
                    .ok_or_else(|| not_found(format!("with {field} `{id}`")))?;
                if search_by == InstantWinSearch::LoyaltyRuleHistoryId {
                    implied_customer = Some(voucher.customer_id.clone());
                }
                voucher
                    .rule_id
                    .ok_or_else(|| not_found(format!("with {field} `{id}`")))?
            }
        };
        if filter.customer.is_none()
            && let Some(customer_id) = &implied_customer
        {
            filter.customer = Some(CustomerRef::id(customer_id));
        }
        let (campaign, instant_win) = rules
            .campaigns
            .iter()
            .find_map(|c| Some((c, instant_win_of(c).filter(|_| c.id == rule_id)?)))
            .ok_or_else(|| not_found(format!("with id {rule_id}")))?;
        let location = self
            .master_data
            .company(company)
            .location_facts(filter.location.as_deref());
        if !runs_for(campaign, instant_win, &filter, &location) {
            return Err(not_found(format!(
                "{rule_id} for that audience, location, country or tier"
            )));
        }
        let view = self.customer_view(company, &filter, &[campaign]).await?;
        let given = self.store.prizes_given(company, &[rule_id]).await?;
        Ok(describe(
            campaign,
            instant_win,
            &given,
            view.as_ref(),
            language,
        ))
    }

    async fn customer_view(
        &self,
        company: &str,
        filter: &InstantWinFilter<'_>,
        campaigns: &[&Campaign],
    ) -> ApiResult<Option<CustomerView>> {
        let Some(reference) = filter.customer else {
            return Ok(None);
        };
        let customer = self.find_customer(company, reference).await?.customer;
        let now = self
            .company_locale(company)
            .await?
            .wall_clock(self.now().as_datetime());
        let periods: Vec<(i64, String)> = campaigns
            .iter()
            .filter_map(|c| instant_win_of(c).map(|iw| (c.id, iw.once.key(now))))
            .collect();
        let (participations, vouchers) = tokio::try_join!(
            self.store.participations(company, &customer.id, &periods),
            self.store.vouchers_by(company, "customer_id", &customer.id),
        )?;
        Ok(Some(CustomerView {
            participations,
            vouchers,
        }))
    }

    /// Assigns the targeted Instant Win `rule_id` to each Customer of
    /// `customer_ids` in one Targeted Delivery send: each gets a Voucher (a
    /// Customer who holds one already keeps it). Every Customer must exist.
    pub async fn assign_instant_win(
        &self,
        company: &str,
        rule_id: i64,
        customer_ids: &[String],
    ) -> ApiResult<Vec<Voucher>> {
        if customer_ids.is_empty() || customer_ids.len() > 1000 {
            return Err(ApiError::invalid("name 1 to 1000 Customers"));
        }
        let rules = self.catalog.company(company);
        let campaign = rules
            .campaigns
            .iter()
            .find(|c| c.id == rule_id)
            .ok_or_else(|| not_found(format!("with id {rule_id}")))?;
        let coupon = match instant_win_of(campaign) {
            Some(iw) if iw.audience == Audience::Targeted => iw.coupon.clone(),
            Some(_) => {
                return Err(ApiError::invalid(format!(
                    "Instant Win {rule_id} is for every loyalty member; only targeted ones are assigned"
                )));
            }
            None => return Err(not_found(format!("with id {rule_id}"))),
        }
        .ok_or_else(|| ApiError::internal("a targeted Instant Win without a coupon"))?;
        let language = self
            .company_settings(company)
            .await?
            .default_language
            .clone();
        let coupon_name = coupon.name.resolve(&language, &language);
        let send = format!("ch_{}", random_hex(8));
        let now = self.now();
        let mut holders = Vec::new();
        for customer_id in customer_ids {
            let customer = self
                .find_customer(company, CustomerRef::id(customer_id))
                .await?
                .customer;
            holders.push(customer.id);
        }
        let issue = |customer_id: &String| VoucherIssue {
            issue_key: targeted_delivery_issue(rule_id, customer_id),
            issues_per_customer: None,
            voucher: Voucher {
                static_code: Some(coupon.static_code.clone()),
                rule_id: Some(rule_id),
                campaign_history_id: Some(send.clone()),
                loyalty_rule_history_id: Some(format!("lrh_{}", random_hex(8))),
                ..Voucher::issued(
                    crate::common::ids::time_ordered_id("vch"),
                    NewVoucher {
                        code: format!("{}-{}", coupon.static_code, random_hex(5).to_uppercase()),
                        coupon_id: coupon.id,
                        coupon_name: coupon_name.clone(),
                        customer_id: customer_id.clone(),
                        uses_left: coupon.uses_per_voucher.map_or(1, i64::from),
                        source: "targeted_delivery",
                        created_at: now,
                        valid_until: None,
                    },
                )
            },
        };
        // A code drawn twice (one in a million per code) refuses the whole
        // send; it is drawn again.
        let mut tries = Tries::at_most(CODE_DRAWS);
        let issued = loop {
            let vouchers: Vec<VoucherIssue> = holders.iter().map(issue).collect();
            let issued = self.store.issue_vouchers(company, &vouchers).await;
            if !tries.again(&issued, CODE_TAKEN) {
                break issued?;
            }
        };
        tracing::info!(
            company,
            rule_id,
            send,
            customers = issued.len(),
            "targeted Instant Win assigned"
        );
        Ok(issued)
    }
}

/// Why a targeted Instant Win's Voucher is issued: one per campaign and
/// Customer.
pub(crate) fn targeted_delivery_issue(rule_id: i64, customer_id: &str) -> String {
    format!("targeted_delivery:{rule_id}:{customer_id}")
}

/// The campaign as the API returns it.
fn describe(
    campaign: &Campaign,
    instant_win: &InstantWin,
    given: &HashMap<(i64, String), i64>,
    customer: Option<&CustomerView>,
    language: &Language,
) -> InstantWinCampaign {
    let render =
        |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
    let voucher = customer.and_then(|view| {
        view.vouchers
            .iter()
            .find(|v| v.rule_id == Some(campaign.id))
    });
    InstantWinCampaign {
        header: CampaignHeader::of(campaign, language, &language.locale),
        recurrence_type: campaign
            .reach
            .recurrence
            .as_ref()
            .map(|r| r.kind().to_string()),
        recurrence_days: campaign
            .reach
            .recurrence
            .as_ref()
            .map(|r| r.days())
            .unwrap_or_default(),
        select_customers: instant_win.audience.name().to_string(),
        loyalty_rule_history_id: voucher.and_then(|v| v.loyalty_rule_history_id.clone()),
        once: instant_win.once.name().to_string(),
        once_limit: instant_win.once_limit,
        remaining_participations: customer.map(|view| {
            let used = view.participations.get(&campaign.id).copied().unwrap_or(0);
            (instant_win.once_limit - used).max(0)
        }),
        locations: campaign.locations.clone(),
        countries: campaign.reach.countries.clone(),
        tiers: campaign.reach.tiers.clone(),
        instant_win: prize_views(campaign.id, instant_win, given, &render),
    }
}

/// The prizes of `instant_win` (an Instant Win's or a game's, rule
/// `rule_id`) as the API shows them, with the stock left after `given`.
pub(crate) fn prize_views(
    rule_id: i64,
    instant_win: &InstantWin,
    given: &HashMap<(i64, String), i64>,
    render: &dyn Fn(&crate::engine::text::Text) -> String,
) -> InstantWinPrizes {
    InstantWinPrizes {
        instant_win_prizes: instant_win
            .prizes
            .iter()
            .map(|prize| InstantWinPrize {
                id: prize.id.clone(),
                name: render(&prize.name),
                description: prize.description.as_ref().map(render),
                outcome: PrizeOutcome {
                    promotion_type: prize.promotion_type.name().to_string(),
                    promotion_id: prize.promotion_id,
                },
                weight: prize.weight,
                stock: prize
                    .remaining(
                        given
                            .get(&(rule_id, prize.id.clone()))
                            .copied()
                            .unwrap_or(0),
                    )
                    .unwrap_or(-1),
                stock_management_strategy: prize.strategy.name().to_string(),
            })
            .collect(),
    }
}
