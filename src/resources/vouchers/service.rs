//! Vouchers: issued from a Coupon for one Customer (POST /discounts/trigger),
//! listed, and validated without changing anything (GET /vouchers/{code}).

use crate::common::ids::time_ordered_id;
use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::retry::Tries;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::coupons::rules::coupon_of;
use crate::resources::coupons::rules::find_coupon;
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::codes::{CODE_DRAWS, CODE_TAKEN};
use crate::resources::vouchers::model::NewVoucher;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherIssue;
use crate::resources::vouchers::static_codes::FoundVoucher;
use crate::resources::vouchers::static_codes::store_key;
use crate::resources::vouchers::static_codes::unstored_static_voucher;
use crate::resources::vouchers::usable::Presented;
use crate::resources::vouchers::usable::campaign_of;
use crate::resources::vouchers::usable::refusal;
use crate::resources::vouchers::usable::state_of;
use crate::services::Services;

fn not_found(code: &str) -> ApiError {
    ApiError::new(ErrorCode::VoucherNotFound, format!("no Voucher `{code}`"))
}

impl Services {
    /// Issues a Voucher of the Coupon `coupon_id` to the Customer
    /// `customer`: a new unique code from the Coupon's pattern.
    pub async fn trigger_coupon(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        coupon_id: i64,
    ) -> ApiResult<Voucher> {
        let customer = self.active_customer_by(company, customer).await?;
        let rules = self.catalog.company(company);
        let (campaign, coupon) = find_coupon(&rules.campaigns, coupon_id)?;
        if !campaign.active {
            return Err(ApiError::new(
                ErrorCode::VoucherInactive,
                format!("Coupon {coupon_id} is inactive"),
            ));
        }
        let settings = self.company_settings(company).await?;
        let locale = settings.locale();
        if campaign
            .available_to
            .is_some_and(|to| self.now() > to.instant(&locale))
        {
            return Err(ApiError::new(
                ErrorCode::VoucherExpired,
                format!("Coupon {coupon_id} can no longer be used"),
            ));
        }
        let language = settings.default_language.clone();
        let pattern = match &coupon.codes {
            CouponCodes::Generated(pattern) => pattern,
            // The Customer's Voucher of the static code: the same one
            // however often it is triggered.
            CouponCodes::Static(_) => {
                let found = FoundVoucher {
                    key: String::new(),
                    voucher: unstored_static_voucher(
                        campaign,
                        coupon,
                        Some(&customer.id),
                        &language,
                        self.now(),
                    ),
                    stored: false,
                };
                let key = store_key(&found.voucher).ok_or_else(|| {
                    ApiError::internal(format!("Coupon {coupon_id}'s static code has no key"))
                })?;
                let stored = self
                    .stored_voucher(company, FoundVoucher { key, ..found })
                    .await?;
                let voucher = self
                    .store
                    .vouchers_by_keys(company, &[stored.key])
                    .await?
                    .pop()
                    .ok_or_else(|| ApiError::internal("a stored Voucher was not read back"))?;
                return Ok(Voucher {
                    state: state_of(&voucher, Some(campaign), self.now(), &locale),
                    ..voucher
                });
            }
        };
        let reason = format!("trigger:{}", time_ordered_id("iss"));
        let mut tries = Tries::at_most(CODE_DRAWS);
        loop {
            let now = self.now();
            let voucher = Voucher::issued(
                crate::common::ids::time_ordered_id("vch"),
                NewVoucher {
                    code: pattern.generate(&mut rand::rng()),
                    coupon_id,
                    coupon_name: campaign.name.resolve(&language, &language),
                    customer_id: customer.id.clone(),
                    uses_left: i64::from(coupon.uses_per_voucher),
                    source: "trigger",
                    created_at: now,
                    valid_until: coupon.valid_until(now),
                },
            );
            answer_now(&voucher).await;
            let issue = VoucherIssue {
                voucher,
                issue_key: reason.clone(),
                issues_per_customer: coupon.issues_per_customer,
            };
            let issued = self.store.issue_vouchers(company, &[issue]).await;
            if tries.again(&issued, CODE_TAKEN) {
                continue;
            }
            let voucher = issued?
                .pop()
                .ok_or_else(|| ApiError::internal("an issued Voucher was not read back"))?;
            tracing::info!(company, coupon_id, voucher = %voucher.id, "Voucher issued");
            return Ok(voucher);
        }
    }

    /// The Voucher with `code` if it can be used now by `customer` (when
    /// named) at `location_code` (when named); otherwise the interface's
    /// refusal. Changes nothing.
    pub async fn validate_voucher(
        &self,
        company: &str,
        code: &str,
        customer: Option<CustomerRef<'_>>,
        location_code: Option<&str>,
    ) -> ApiResult<Voucher> {
        let customer_id = match customer {
            Some(reference) => Some(
                self.find_customer(company, reference)
                    .await
                    // An unknown Customer is the interface's `voucher_not_found`;
                    // a store failure stays what it is.
                    .map_err(|error| match error.code {
                        ErrorCode::CustomerNotFound => not_found(code),
                        _ => error,
                    })?
                    .customer
                    .id,
            ),
            None => None,
        };
        let voucher = self
            .find_voucher(company, code, customer_id.as_deref())
            .await?
            .ok_or_else(|| not_found(code))?
            .voucher;
        let rules = self.catalog.company(company);
        let campaign = campaign_of(&voucher, &rules.campaigns);
        let locale = self.company_settings(company).await?.locale();
        let location = self
            .master_data
            .company(company)
            .location_facts(location_code);
        let presented = Presented {
            customer_id: customer_id.as_deref(),
            location_code,
            location: &location,
            location_required: false,
            reservation_id: None,
            at: self.now(),
            locale: &locale,
        };
        if let Some((code, message)) = refusal(&voucher, campaign, &presented) {
            return Err(ApiError::new(code, message));
        }
        Ok(Voucher {
            state: state_of(&voucher, campaign, presented.at, &locale),
            ..voucher
        })
    }

    /// A page of the Company's Vouchers, optionally of one Customer and one
    /// Coupon, each in the state it is in now.
    pub async fn vouchers(
        &self,
        company: &str,
        customer: Option<CustomerRef<'_>>,
        coupon_id: Option<i64>,
        page: PageRequest,
    ) -> ApiResult<Page<Voucher>> {
        let customer_id = match customer {
            Some(reference) => Some(self.find_customer(company, reference).await?.customer.id),
            None => None,
        };
        let fetched = self
            .store
            .voucher_page(
                company,
                customer_id.as_deref(),
                coupon_id,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        let rules = self.catalog.company(company);
        let locale = self.company_settings(company).await?.locale();
        let now = self.now();
        let fetched = fetched
            .into_iter()
            .map(|voucher| Voucher {
                state: state_of(
                    &voucher,
                    campaign_of(&voucher, &rules.campaigns),
                    now,
                    &locale,
                ),
                ..voucher
            })
            .collect();
        Ok(Page::from_fetched(fetched, &page, |voucher| {
            voucher.id.clone()
        }))
    }

    /// (Coupon id, excluded products, excluded categories) of the Coupon
    /// `coupon_id`, of the Voucher `code`'s Coupon, or of every Coupon.
    pub async fn coupon_exclusions(
        &self,
        company: &str,
        coupon_id: Option<i64>,
        code: Option<&str>,
    ) -> ApiResult<Vec<(i64, Vec<String>, Vec<String>)>> {
        let wanted = match (coupon_id, code) {
            (Some(id), _) => Some(id),
            (None, Some(code)) => Some(
                self.find_voucher(company, code, None)
                    .await?
                    .ok_or_else(|| not_found(code))?
                    .voucher
                    .coupon_id,
            ),
            (None, None) => None,
        };
        let rules = self.catalog.company(company);
        let found: Vec<(i64, Vec<String>, Vec<String>)> = rules
            .campaigns
            .iter()
            .filter(|c| wanted.is_none_or(|id| id == c.id))
            .filter_map(|c| {
                coupon_of(c).map(|coupon| {
                    (
                        c.id,
                        coupon.excluded_products.clone(),
                        coupon.excluded_categories.clone(),
                    )
                })
            })
            .collect();
        if let Some(id) = wanted
            && found.is_empty()
        {
            return Err(ApiError::new(
                ErrorCode::CouponNotFound,
                format!("no Coupon `{id}`"),
            ));
        }
        Ok(found)
    }
}
