//! Holding a Voucher during a checkout: POST /vouchers/{code}/freeze holds
//! one use for a few minutes, which only a redemption naming its
//! `reservation_id` can take; POST /vouchers/{code}/unfreeze releases it.

use crate::common::ids::time_ordered_id;
use crate::common::locale::Locale;
use crate::common::retry::again_when_changed;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
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
        let frozen = again_when_changed(|| async move {
            // Each try reads the Voucher anew and answers it as the hold leaves it.
            let (customer_id, found) = self.held_voucher(company, customer, code).await?;
            let voucher = &found.voucher;
            let rules = self.catalog.company(company);
            let locale = self.company_settings(company).await?.locale();
            let now = self.now();
            let presented = Presented::anywhere(&customer_id, now, &locale);
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
            let mut holds: Vec<Reservation> = found.voucher.holds_at(now).cloned().collect();
            holds.push(hold.clone());
            let frozen = FrozenVoucher {
                reservation_id: hold.reservation_id.clone(),
                expires_at: hold.until,
                voucher: self.voucher_as_shown(company, &found.voucher, holds, (now, &locale)),
            };
            answer_now(&frozen).await;
            self.store
                .freeze_voucher(
                    company,
                    (&found.key, &found.voucher),
                    &customer_id,
                    &hold,
                    now,
                )
                .await?;
            Ok(frozen)
        })
        .await?;
        Ok(frozen)
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
        again_when_changed(|| async move {
            // Each try reads the Voucher anew and answers it as the release
            // leaves it.
            let (customer_id, found) = self.held_voucher(company, customer, code).await?;
            let now = self.now();
            if !found.stored {
                // A static code's Voucher never held has no hold to release.
                return Ok(found.voucher);
            }
            let holds = match reservation_id {
                None => Vec::new(),
                Some(released) => found
                    .voucher
                    .holds_at(now)
                    .filter(|hold| hold.reservation_id != released)
                    .cloned()
                    .collect(),
            };
            let locale = self.company_settings(company).await?.locale();
            let released = self.voucher_as_shown(company, &found.voucher, holds, (now, &locale));
            answer_now(&released).await;
            self.store
                .unfreeze_voucher(
                    company,
                    (&found.key, &found.voucher),
                    &customer_id,
                    reservation_id,
                    now,
                )
                .await?;
            Ok(released)
        })
        .await
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

    /// `voucher` with the holds `holds`, as it is shown at `now`: its state
    /// worked out from its Coupon.
    fn voucher_as_shown(
        &self,
        company: &str,
        voucher: &Voucher,
        holds: Vec<Reservation>,
        (now, locale): (Timestamp, &Locale),
    ) -> Voucher {
        let held = Voucher {
            reservations: holds,
            ..voucher.clone()
        };
        let rules = self.catalog.company(company);
        Voucher {
            state: state_of(&held, campaign_of(&held, &rules.campaigns), now, locale),
            ..held
        }
    }
}
