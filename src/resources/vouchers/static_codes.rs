//! Static codes: one code (`SUMMER10`) that every Customer presents. Each
//! Customer's uses are counted on a Voucher of their own, stored under the
//! code's key and the Customer's id the first time it is used, frozen,
//! selected or triggered; until then it is the Voucher the Coupon would
//! give them, with every use left. A code is looked up here before the
//! stored unique codes, so a static code always means its Coupon.

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::error::ApiResult;
use crate::resources::coupons::rules::Coupon;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::coupons::rules::coupon_of;
use crate::resources::vouchers::codes::code_key;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherState;
use crate::services::Services;

/// What `source` says of a Customer's Voucher of a static code.
pub const STATIC_SOURCE: &str = "static_code";

/// The Coupon campaign among `campaigns` whose static code has `key`.
pub fn static_coupon<'c>(
    campaigns: &'c [Campaign],
    key: &str,
) -> Option<(&'c Campaign, &'c Coupon)> {
    campaigns.iter().find_map(|campaign| {
        let coupon = coupon_of(campaign)?;
        match &coupon.codes {
            CouponCodes::Static(code) if code_key(code).as_deref() == Some(key) => {
                Some((campaign, coupon))
            }
            _ => None,
        }
    })
}

/// Where a Customer's Voucher of the static code with `key` is stored: the
/// key and the Customer (`:` is in no code's key).
pub fn static_voucher_key(key: &str, customer_id: &str) -> String {
    format!("{key}:{customer_id}")
}

/// The Voucher of the static code of `campaign` that `customer_id` holds
/// before its first use: every use left. Its id is the same whoever makes
/// it, so two tills using it at once record one Voucher. With no Customer,
/// the Coupon's code as anyone would present it (`customer_id` empty).
pub fn unstored_static_voucher(
    campaign: &Campaign,
    coupon: &Coupon,
    customer_id: Option<&str>,
    language: &str,
    now: Timestamp,
) -> Voucher {
    let code = match &coupon.codes {
        CouponCodes::Static(code) => code.clone(),
        CouponCodes::Generated(_) => String::new(),
    };
    let key = code_key(&code).unwrap_or_default();
    Voucher {
        id: match customer_id {
            Some(customer) => format!("vch_{}", static_voucher_key(&key, customer)),
            None => format!("vch_{key}"),
        },
        static_code: Some(code.clone()),
        code,
        coupon_id: campaign.id,
        coupon_name: campaign.name.resolve(language, language),
        customer_id: customer_id.unwrap_or_default().to_string(),
        state: VoucherState::Active,
        uses_left: i64::from(coupon.uses_per_voucher),
        source: STATIC_SOURCE.into(),
        rule_id: None,
        campaign_history_id: None,
        loyalty_rule_history_id: None,
        created_at: now,
        // A static code is never issued: it lasts as long as its Coupon.
        valid_until: None,
        printed_at: None,
        selected_at: None,
        reservations: Vec::new(),
    }
}

/// Whether `voucher` is one Customer's Voucher of a static code.
pub fn of_static_code(voucher: &Voucher) -> bool {
    voucher.source == STATIC_SOURCE
}

/// The key `voucher` is stored under.
pub fn store_key(voucher: &Voucher) -> Option<String> {
    let key = code_key(&voucher.code)?;
    Some(
        if of_static_code(voucher) && !voucher.customer_id.is_empty() {
            static_voucher_key(&key, &voucher.customer_id)
        } else {
            key
        },
    )
}

/// A Voucher found by its code.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundVoucher {
    /// The key it is (or will be) stored under.
    pub key: String,
    /// The Voucher.
    pub voucher: Voucher,
    /// `false` for a Customer's Voucher of a static code not used yet.
    pub stored: bool,
}

impl Services {
    /// The Voucher presented as `code` (however it is written) by
    /// `customer_id`: theirs of a static code, or the stored one with the
    /// code. `None` when the code is no Voucher's.
    pub async fn find_voucher(
        &self,
        company: &str,
        code: &str,
        customer_id: Option<&str>,
    ) -> ApiResult<Option<FoundVoucher>> {
        let Some(key) = code_key(code) else {
            return Ok(None);
        };
        let rules = self.catalog.company(company);
        let Some((campaign, coupon)) = static_coupon(&rules.campaigns, &key) else {
            return Ok(self
                .store
                .vouchers_by_keys(company, std::slice::from_ref(&key))
                .await?
                .pop()
                .map(|voucher| FoundVoucher {
                    key,
                    voucher,
                    stored: true,
                }));
        };
        let Some(customer_id) = customer_id else {
            let language = self
                .company_settings(company)
                .await?
                .default_language
                .clone();
            return Ok(Some(FoundVoucher {
                voucher: unstored_static_voucher(campaign, coupon, None, &language, self.now()),
                key,
                stored: false,
            }));
        };
        let key = static_voucher_key(&key, customer_id);
        if let Some(voucher) = self
            .store
            .vouchers_by_keys(company, std::slice::from_ref(&key))
            .await?
            .pop()
        {
            return Ok(Some(FoundVoucher {
                key,
                voucher,
                stored: true,
            }));
        }
        let language = self
            .company_settings(company)
            .await?
            .default_language
            .clone();
        Ok(Some(FoundVoucher {
            voucher: unstored_static_voucher(
                campaign,
                coupon,
                Some(customer_id),
                &language,
                self.now(),
            ),
            key,
            stored: false,
        }))
    }

    /// `found`, stored when it was not yet (a Customer's Voucher of a static
    /// code, before its first freeze, selection or print).
    pub async fn stored_voucher(
        &self,
        company: &str,
        found: FoundVoucher,
    ) -> ApiResult<FoundVoucher> {
        if found.stored {
            return Ok(found);
        }
        self.store
            .store_voucher_once(company, &found.key, &found.voucher)
            .await?;
        Ok(FoundVoucher {
            stored: true,
            ..found
        })
    }
}
