//! Redeeming Vouchers outside a cart (POST /vouchers/redeem), all or none,
//! and giving uses back (POST /vouchers/rollback).

use std::collections::HashSet;

use rust_decimal::Decimal;

use crate::common::ids::time_ordered_id;
use crate::common::retry::Tries;
use crate::common::retry::again_when_changed;
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::error::VoucherFailure;
use crate::http::idempotency::answer::answer_now;
use crate::resources::customers::service::CustomerRef;
use crate::resources::limits::Redeeming;
use crate::resources::limits::limit_takes;
use crate::resources::vouchers::codes::code_key;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherRedemption;
use crate::resources::vouchers::model::VoucherState;
use crate::resources::vouchers::redemption_store::VoucherUse;
use crate::resources::vouchers::static_codes::FoundVoucher;
use crate::resources::vouchers::usable::Presented;
use crate::resources::vouchers::usable::campaign_of;
use crate::resources::vouchers::usable::refusal;
use crate::services::Services;

/// Most codes one request names.
pub const MAX_CODES: usize = 50;

/// What a redemption names besides its codes.
#[derive(Debug, Clone, Copy)]
pub struct RedeemAt<'a> {
    /// The store.
    pub location_code: Option<&'a str>,
    /// The cart it is for.
    pub cart_code: Option<&'a str>,
    /// The hold it uses (POST /vouchers/{code}/freeze), if any.
    pub reservation_id: Option<&'a str>,
}

/// Each of `codes` with its key; 400 when one is no code, or two are one.
fn keyed(codes: &[String]) -> ApiResult<Vec<(String, String)>> {
    if codes.is_empty() || codes.len() > MAX_CODES {
        return Err(ApiError::invalid(format!(
            "`codes` names 1 to {MAX_CODES} codes"
        )));
    }
    let mut seen = HashSet::new();
    codes
        .iter()
        .map(|code| {
            let key = code_key(code)
                .ok_or_else(|| ApiError::invalid(format!("`{code}` is not a Voucher code")))?;
            if !seen.insert(key.clone()) {
                return Err(ApiError::invalid(format!(
                    "`{code}` is named twice in `codes` (codes are compared ignoring case, spaces and dashes)"
                )));
            }
            Ok((code.clone(), key))
        })
        .collect()
}

/// `voucher` after one use taken at `now` with the hold `reservation_id`
/// (if any), as the use's write leaves it: a use fewer, `redeemed` when
/// none is left, and only the other holds still running.
fn after_use(voucher: &Voucher, reservation_id: Option<&str>, now: Timestamp) -> Voucher {
    Voucher {
        uses_left: voucher.uses_left - 1,
        state: if voucher.uses_left <= 1 {
            VoucherState::Redeemed
        } else {
            voucher.state
        },
        reservations: voucher
            .holds_at(now)
            .filter(|hold| Some(hold.reservation_id.as_str()) != reservation_id)
            .cloned()
            .collect(),
        ..voucher.clone()
    }
}

/// Times a rollback by codes picks the latest redemptions again when a
/// concurrent rollback gave one of them back meanwhile.
const ROLLBACK_ATTEMPTS: u32 = 8;

impl Services {
    /// Uses one use of each Voucher of `codes` for `customer`, all or none:
    /// when any cannot be used, none is, and the refusal names each that
    /// cannot.
    pub async fn redeem_vouchers(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        codes: &[String],
        at: RedeemAt<'_>,
    ) -> ApiResult<(Vec<VoucherRedemption>, Vec<Voucher>)> {
        let customer = self.active_customer_by(company, customer).await?;
        let keyed = keyed(codes)?;
        let redeemed =
            again_when_changed(|| self.redeem_once(company, &customer.id, &keyed, at)).await?;
        tracing::info!(company, customer = %customer.id, count = redeemed.0.len(), "Vouchers redeemed");
        Ok(redeemed)
    }

    /// One try of [`Services::redeem_vouchers`] on the Vouchers as read
    /// now: the answer (the redemptions and the Vouchers after them) is
    /// made from them and written with the uses, which are refused with
    /// `concurrent_modification` when a Voucher changed meanwhile.
    async fn redeem_once(
        &self,
        company: &str,
        customer_id: &str,
        keyed: &[(String, String)],
        at: RedeemAt<'_>,
    ) -> ApiResult<(Vec<VoucherRedemption>, Vec<Voucher>)> {
        let (vouchers, failures) = self
            .usable_vouchers(company, customer_id, keyed, at)
            .await?;
        if let Some(refused) = ApiError::of_vouchers(failures) {
            return Err(refused);
        }
        let now = self.now();
        let rules = self.catalog.company(company);
        let locale = self.company_settings(company).await?.locale();
        let redeeming = Redeeming {
            customer_id,
            location_code: at.location_code,
            wall_clock: locale.wall_clock(now.as_datetime()),
        };
        let uses: Vec<VoucherUse> = vouchers
            .iter()
            .map(|found| VoucherUse {
                key: found.key.clone(),
                redemption: VoucherRedemption {
                    redemption_id: time_ordered_id("rdm"),
                    voucher_code: found.voucher.code.clone(),
                    voucher_id: found.voucher.id.clone(),
                    coupon_id: found.voucher.coupon_id,
                    customer_id: customer_id.to_string(),
                    location_code: at.location_code.map(str::to_string),
                    cart_code: at.cart_code.map(str::to_string),
                    value: None,
                    reservation_id: at.reservation_id.map(str::to_string),
                    redeemed_at: now,
                    rolled_back_at: None,
                },
                create: (!found.stored).then(|| found.voucher.clone()),
                seen: Some(found.voucher.clone()),
                // Outside a cart a use gives no money it knows of: it counts
                // towards the Coupon's redemption limits only.
                limit_takes: rules
                    .campaigns
                    .iter()
                    .find(|campaign| campaign.id == found.voucher.coupon_id)
                    .map(|campaign| {
                        limit_takes(
                            campaign.id,
                            &format!("Voucher {}", found.voucher.code),
                            &campaign.limits,
                            &redeeming,
                            Decimal::ZERO,
                            ErrorCode::VoucherLimitReached,
                        )
                    })
                    .unwrap_or_default(),
            })
            .collect();
        let redeemed = (
            uses.iter()
                .map(|u| u.redemption.clone())
                .collect::<Vec<_>>(),
            vouchers
                .iter()
                .map(|found| after_use(&found.voucher, at.reservation_id, now))
                .collect::<Vec<_>>(),
        );
        answer_now(&redeemed).await;
        if let Err(error) = self.store.redeem_vouchers(company, &uses, now).await {
            // Another till took or held a use meanwhile: say which codes now
            // fail.
            if matches!(
                error.code,
                ErrorCode::VoucherRedeemed | ErrorCode::VoucherFrozen
            ) {
                let (_, failures) = self
                    .usable_vouchers(company, customer_id, keyed, at)
                    .await?;
                return Err(ApiError::of_vouchers(failures).unwrap_or(error));
            }
            return Err(error);
        }
        Ok(redeemed)
    }

    /// The Vouchers of `keyed` that `customer_id` can use now at `at`, and
    /// a failure for each one that cannot.
    async fn usable_vouchers(
        &self,
        company: &str,
        customer_id: &str,
        keyed: &[(String, String)],
        at: RedeemAt<'_>,
    ) -> ApiResult<(Vec<FoundVoucher>, Vec<VoucherFailure>)> {
        let rules = self.catalog.company(company);
        let locale = self.company_settings(company).await?.locale();
        let location = self
            .master_data
            .company(company)
            .location_facts(at.location_code);
        let presented = Presented {
            customer_id: Some(customer_id),
            location_code: at.location_code,
            location: &location,
            location_required: true,
            reservation_id: at.reservation_id,
            at: self.now(),
            locale: &locale,
        };
        let mut usable = Vec::new();
        let mut failures = Vec::new();
        for (code, _) in keyed {
            let Some(found) = self.find_voucher(company, code, Some(customer_id)).await? else {
                failures.push(VoucherFailure {
                    voucher_code: code.clone(),
                    code: ErrorCode::VoucherNotFound,
                    message: format!("no Voucher `{code}`"),
                });
                continue;
            };
            match refusal(
                &found.voucher,
                campaign_of(&found.voucher, &rules.campaigns),
                &presented,
            ) {
                Some((refused, message)) => failures.push(VoucherFailure {
                    voucher_code: code.clone(),
                    code: refused,
                    message,
                }),
                None => usable.push(found),
            }
        }
        Ok((usable, failures))
    }

    /// Gives back the uses of `redemption_ids`, or of the latest redemption
    /// not rolled back of each Voucher of `codes` (held by `customer`), all
    /// or none.
    pub async fn roll_back_vouchers(
        &self,
        company: &str,
        customer: Option<CustomerRef<'_>>,
        codes: &[String],
        redemption_ids: &[String],
    ) -> ApiResult<Vec<VoucherRedemption>> {
        let customer_id = match customer {
            Some(reference) => Some(self.find_customer(company, reference).await?.customer.id),
            None => None,
        };
        let rolled_back = match (codes.is_empty(), redemption_ids.is_empty()) {
            (false, true) => {
                let Some(customer_id) = &customer_id else {
                    return Err(ApiError::invalid(
                        "rolling back by `codes` names the Customer: customer_id or customer_code",
                    ));
                };
                self.roll_back_latest(company, customer_id, codes).await?
            }
            (true, false) => {
                let mut ids = Vec::new();
                let mut failures = Vec::new();
                if redemption_ids.len() > MAX_CODES {
                    return Err(ApiError::invalid(format!(
                        "`redemption_ids` names at most {MAX_CODES}"
                    )));
                }
                let mut seen = HashSet::new();
                for id in redemption_ids {
                    if !seen.insert(id) {
                        return Err(ApiError::invalid(format!("`{id}` is named twice")));
                    }
                    match self.store.redemption(company, id).await? {
                        Some(redemption)
                            if customer_id
                                .as_ref()
                                .is_none_or(|c| c == &redemption.customer_id) =>
                        {
                            if redemption.rolled_back_at.is_some() {
                                failures.push(VoucherFailure {
                                    voucher_code: redemption.voucher_code.clone(),
                                    code: ErrorCode::VoucherNotRedeemed,
                                    message: format!("redemption {id} was rolled back already"),
                                });
                            } else {
                                ids.push(redemption);
                            }
                        }
                        _ => failures.push(VoucherFailure {
                            voucher_code: id.clone(),
                            code: ErrorCode::RedemptionNotFound,
                            message: format!("no redemption `{id}` of this Customer"),
                        }),
                    }
                }
                if let Some(refused) = ApiError::of_vouchers(failures) {
                    return Err(refused);
                }
                self.give_back_uses(company, &ids).await?
            }
            _ => {
                return Err(ApiError::invalid(
                    "name what to roll back: `codes` or `redemption_ids`, one of them",
                ));
            }
        };
        tracing::info!(
            company,
            count = rolled_back.len(),
            "Voucher redemptions rolled back"
        );
        Ok(rolled_back)
    }

    /// Gives back the latest redemption not rolled back of each Voucher of
    /// `codes` held by `customer_id`, all or none. A redemption picked that
    /// a concurrent rollback gave back meanwhile is not a refusal: the
    /// latest ones are picked again, so two rollbacks of a Voucher used
    /// twice each give one use back.
    async fn roll_back_latest(
        &self,
        company: &str,
        customer_id: &str,
        codes: &[String],
    ) -> ApiResult<Vec<VoucherRedemption>> {
        let mut tries = Tries::at_most(ROLLBACK_ATTEMPTS);
        loop {
            let mut ids = Vec::new();
            let mut failures = Vec::new();
            for (code, _) in keyed(codes)? {
                let held = self
                    .find_voucher(company, &code, Some(customer_id))
                    .await?
                    .filter(|found| found.voucher.customer_id == customer_id);
                let Some(held) = held else {
                    failures.push(VoucherFailure {
                        message: format!("no Voucher `{code}` of this Customer"),
                        voucher_code: code,
                        code: ErrorCode::VoucherNotFound,
                    });
                    continue;
                };
                match self.store.last_redemption(company, &held.key).await? {
                    Some(redemption) => ids.push(redemption),
                    None => failures.push(VoucherFailure {
                        message: format!("`{code}` has no redemption to roll back"),
                        voucher_code: code,
                        code: ErrorCode::VoucherNotRedeemed,
                    }),
                }
            }
            if let Some(refused) = ApiError::of_vouchers(failures) {
                return Err(refused);
            }
            let rolled_back = self.give_back_uses(company, &ids).await;
            if !tries.again(&rolled_back, &[ErrorCode::VoucherNotRedeemed]) {
                return rolled_back;
            }
        }
    }

    /// Gives back the use each of `redemptions` took, all or none, with
    /// the answer (the redemptions rolled back) written in the same
    /// transaction: `voucher_not_redeemed` when one was rolled back
    /// meanwhile.
    async fn give_back_uses(
        &self,
        company: &str,
        redemptions: &[VoucherRedemption],
    ) -> ApiResult<Vec<VoucherRedemption>> {
        let at = self.now();
        let rolled_back: Vec<VoucherRedemption> = redemptions
            .iter()
            .map(|redemption| VoucherRedemption {
                rolled_back_at: Some(at),
                ..redemption.clone()
            })
            .collect();
        answer_now(&rolled_back).await;
        self.store
            .roll_back_redemptions(company, &rolled_back, at)
            .await?;
        Ok(rolled_back)
    }
}
