//! Holding a Voucher during a checkout: POST /vouchers/{code}/freeze holds
//! one use for a few minutes, which only a redemption naming its
//! `reservation_id` can take; POST /vouchers/{code}/unfreeze releases it.

use crate::common::ids::time_ordered_id;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::model::FrozenVoucher;
use crate::resources::vouchers::model::Reservation;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::static_codes::FoundVoucher;
use crate::resources::vouchers::usable::Presented;
use crate::resources::vouchers::usable::campaign_of;
use crate::resources::vouchers::usable::refusal;
use crate::resources::vouchers::usable::state_of;
use crate::services::Services;

/// How long a hold lasts when the request does not say.
pub const DEFAULT_FREEZE_MINUTES: u32 = 5;

/// Longest a hold may last.
pub const MAX_FREEZE_MINUTES: u32 = 60;

impl Services {
    /// Holds one use of the Customer's Voucher `code` for `minutes`.
    pub async fn freeze_voucher(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        code: &str,
        minutes: u32,
    ) -> ApiResult<FrozenVoucher> {
        let (customer_id, found) = self.held_voucher(company, customer, code).await?;
        let voucher = &found.voucher;
        let rules = self.catalog.company(company);
        let locale = self.company_settings(company).await?.locale();
        let now = self.now();
        let presented = Presented {
            customer_id: Some(&customer_id),
            location_code: None,
            location: &serde_json::Value::Null,
            location_required: false,
            reservation_id: None,
            at: now,
            locale: &locale,
        };
        if let Some((refused, message)) =
            refusal(voucher, campaign_of(voucher, &rules.campaigns), &presented)
        {
            return Err(ApiError::new(refused, message));
        }
        // A static code's Voucher is stored before its first hold.
        let found = self.stored_voucher(company, found).await?;
        let hold = Reservation {
            reservation_id: time_ordered_id("rsv"),
            until: Timestamp(now.as_datetime() + chrono::Duration::minutes(i64::from(minutes))),
        };
        self.store
            .freeze_voucher(company, &found.key, &customer_id, &hold, now)
            .await?;
        let voucher = self.current_voucher(company, &found.key, now).await?;
        Ok(FrozenVoucher {
            reservation_id: hold.reservation_id,
            expires_at: hold.until,
            voucher,
        })
    }

    /// Releases the hold `reservation_id` (every hold, when `None`) on the
    /// Customer's Voucher `code`.
    pub async fn unfreeze_voucher(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        code: &str,
        reservation_id: Option<&str>,
    ) -> ApiResult<Voucher> {
        let (customer_id, found) = self.held_voucher(company, customer, code).await?;
        let now = self.now();
        if !found.stored {
            // A static code's Voucher never held has no hold to release.
            return Ok(found.voucher);
        }
        self.store
            .unfreeze_voucher(company, &found.key, &customer_id, reservation_id, now)
            .await?;
        self.current_voucher(company, &found.key, now).await
    }

    /// The Customer's id and their Voucher `code`; `voucher_not_found`
    /// when it is not theirs.
    async fn held_voucher(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        code: &str,
    ) -> ApiResult<(String, FoundVoucher)> {
        let not_found = || {
            ApiError::new(
                ErrorCode::VoucherNotFound,
                format!("no Voucher `{code}` of this Customer"),
            )
        };
        let customer_id = self.find_customer(company, customer).await?.customer.id;
        let found = self
            .find_voucher(company, code, Some(&customer_id))
            .await?
            .filter(|found| found.voucher.customer_id == customer_id)
            .ok_or_else(not_found)?;
        Ok((customer_id, found))
    }

    /// The Voucher stored under `key` as it stands at `now`.
    async fn current_voucher(
        &self,
        company: &str,
        key: &str,
        now: Timestamp,
    ) -> ApiResult<Voucher> {
        let voucher = self
            .store
            .vouchers_by_keys(company, &[key.to_string()])
            .await?
            .pop()
            .ok_or_else(|| ApiError::internal("a held Voucher was not read back"))?;
        let rules = self.catalog.company(company);
        let locale = self.company_settings(company).await?.locale();
        let campaign = campaign_of(&voucher, &rules.campaigns);
        Ok(Voucher {
            state: state_of(&voucher, campaign, now, &locale),
            ..voucher
        })
    }
}
