//! Discounts outside a cart (POST /discounts/redeem: a service desk's
//! goodwill discount, for example) and every discount a Customer got
//! (GET /discounts/transactions), from carts and from this call.

use crate::resources::limits::Redeeming;
use crate::resources::limits::limit_takes;
use rust_decimal::Decimal;

use crate::common::amount::Amount;
use crate::common::amount::SentAmount;
use crate::common::ids::time_ordered_id;
use crate::common::language::Language;
use crate::common::money::round_money;
use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::customers::service::CustomerRef;
use crate::resources::discounts::model::DiscountGiver;
use crate::resources::discounts::model::DiscountSource;
use crate::resources::discounts::model::DiscountTransaction;
use crate::resources::discounts::model::GivenDiscount;
use crate::resources::discounts::rules::Discount;
use crate::resources::discounts::rules::Off;
use crate::services::Services;

/// Where and why a discount is given outside a cart.
#[derive(Debug, Clone, Copy)]
pub struct GivenAt<'a> {
    /// What a percentage is taken of; the most a fixed amount takes.
    pub base_amount: &'a SentAmount,
    /// The store.
    pub location_code: Option<&'a str>,
    /// Why.
    pub description: Option<&'a str>,
}

/// The discount campaign `id` among `campaigns`.
pub(crate) fn discount_campaign(
    campaigns: &[Campaign],
    id: i64,
) -> ApiResult<(&Campaign, &Discount)> {
    campaigns
        .iter()
        .find_map(|campaign| match &campaign.kind {
            CampaignKind::Discount(discount) if campaign.id == id => Some((campaign, &**discount)),
            _ => None,
        })
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::DiscountNotFound,
                format!("no discount campaign `{id}`"),
            )
        })
}

/// What `discount` takes off `base`, exact to the minor unit: a percentage
/// of it or a fixed amount, at most `base` and at most the cap. `None` for
/// a discount that needs a cart: one on units or sets, or whose value is
/// an expression over the cart.
fn value_of(discount: &Discount, base: Decimal, minor_units: u32) -> Option<Decimal> {
    if discount.applies_to.counts_units() {
        return None;
    }
    let value = match &discount.off {
        Off::Percent(percent) => {
            round_money(base * percent.number()? / Decimal::ONE_HUNDRED, minor_units)
        }
        Off::Amount(amount) => round_money(amount.number()?, minor_units),
        Off::Price(_) => return None,
    };
    discount
        .max_amount
        .map_or(value, |cap| value.min(round_money(cap, minor_units)))
        .min(base)
        .into()
}

impl Services {
    /// Gives `customer` the discount campaign `discount_id` outside a cart
    /// and records it in their history. Conditions on a cart (`when`,
    /// `lines`) do not apply outside one; the campaign's activity and dates
    /// do, and it must take something off (`discount_unavailable`).
    pub async fn redeem_discount(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        discount_id: i64,
        given: GivenAt<'_>,
        language: &Language,
    ) -> ApiResult<DiscountTransaction> {
        let customer = self.active_customer_by(company, customer).await?;
        let rules = self.catalog.company(company);
        let (campaign, discount) = discount_campaign(&rules.campaigns, discount_id)?;
        let locale = self.company_settings(company).await?.locale();
        let now = self.now();
        let unavailable = |why: String| ApiError::new(ErrorCode::DiscountUnavailable, why);
        if !campaign.active {
            return Err(unavailable(format!("discount {discount_id} is inactive")));
        }
        if let Some(from) = campaign.available_from.map(|t| t.instant(&locale))
            && now < from
        {
            return Err(unavailable(format!(
                "discount {discount_id} is available from {from}"
            )));
        }
        if let Some(to) = campaign.available_to.map(|t| t.instant(&locale))
            && now > to
        {
            return Err(unavailable(format!("discount {discount_id} ended at {to}")));
        }
        let base = given
            .base_amount
            .money("`base_amount`", locale.minor_units)?;
        let Some(value) = value_of(discount, base.0, locale.minor_units) else {
            return Err(unavailable(format!(
                "discount {discount_id} is worked out on a cart's lines or units \
                 (`applies_to: {}`{}): it is given in carts only",
                discount.applies_to.name(),
                if discount.applies_to.counts_units() {
                    ""
                } else {
                    ", its value an expression"
                }
            )));
        };
        if value <= Decimal::ZERO {
            return Err(unavailable(format!(
                "discount {discount_id} takes nothing off {}",
                base.0
            )));
        }
        let transaction = DiscountTransaction {
            id: time_ordered_id("dtx"),
            customer_id: customer.id.clone(),
            source: DiscountSource::Redeem,
            value: Amount(value),
            discounts: vec![GivenDiscount {
                discount_id,
                discount_name: campaign.name.resolve(&language.chosen, &language.default),
                given_by: DiscountGiver::Campaign,
                value: Amount(value),
                voucher_code: None,
            }],
            cart_code: None,
            location_code: given.location_code.map(str::to_string),
            description: given.description.map(str::to_string),
            base_amount: Some(base),
            created_at: now,
            cancelled_at: None,
        };
        let redeeming = Redeeming {
            customer_id: &customer.id,
            location_code: given.location_code,
            wall_clock: locale.wall_clock(now.as_datetime()),
        };
        let takes = limit_takes(
            discount_id,
            &format!("discount {discount_id}"),
            &campaign.limits,
            &redeeming,
            value,
            ErrorCode::DiscountLimitReached,
        );
        answer_now(&transaction).await;
        self.store
            .insert_discount_transaction(company, &transaction, &takes)
            .await?;
        tracing::info!(company, customer = %customer.id, discount_id, %value, "discount redeemed");
        Ok(transaction)
    }

    /// A page of the discounts `customer` got, newest first.
    pub async fn discount_history(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        page: PageRequest,
    ) -> ApiResult<Page<DiscountTransaction>> {
        let customer_id = self.find_customer(company, customer).await?.customer.id;
        let fetched = self
            .store
            .discount_transactions(
                company,
                &customer_id,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        Ok(Page::from_fetched(fetched, &page, |transaction| {
            transaction.id.clone()
        }))
    }
}
