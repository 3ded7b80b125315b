//! The Vouchers a cart names, read and checked before its evaluation: each
//! code of `coupons_desired` (and the Customer's selected Vouchers, when
//! the cart asks for them with `selected` or `all`) with why it cannot be
//! used, when it cannot. The engine applies the usable ones
//! ([`crate::resources::coupons::apply`]).

use std::collections::HashSet;

use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::coupons::apply::DesiredVoucher;
use crate::resources::vouchers::codes::code_key;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::static_codes::static_coupon;
use crate::resources::vouchers::static_codes::static_voucher_key;
use crate::resources::vouchers::static_codes::store_key;
use crate::resources::vouchers::static_codes::unstored_static_voucher;
use crate::resources::vouchers::usable::Presented;
use crate::resources::vouchers::usable::campaign_of;
use crate::resources::vouchers::usable::refusal;
use crate::services::Services;

/// The words of `coupons_desired` that name the Customer's selected
/// Vouchers rather than a code (`all` also lets every targeted Instant Win
/// of the Customer take part).
const SELECTED_WORDS: [&str; 2] = ["all", "selected"];

/// Whether `code` of `coupons_desired` is one of [`SELECTED_WORDS`].
pub(crate) fn is_selected_word(code: &str) -> bool {
    SELECTED_WORDS
        .iter()
        .any(|w| code.trim().eq_ignore_ascii_case(w))
}

/// Refusals a selected Voucher is reported with: the ones that depend on
/// this cart. A selected Voucher that is used up, expired or gone is left
/// out without a word: the cart did not name it.
const SITUATIONAL: [ErrorCode; 3] = [
    ErrorCode::VoucherOutLocation,
    ErrorCode::VoucherOutDate,
    ErrorCode::VoucherFrozen,
];

/// Where and when a cart presents its Vouchers.
#[derive(Debug, Clone, Copy)]
pub struct CartVouchers<'a> {
    /// The cart's `coupons_desired`.
    pub coupons_desired: &'a [String],
    /// The holds (POST /vouchers/{code}/freeze) the cart uses.
    pub reservation_ids: &'a [String],
    /// The cart's store.
    pub location_code: Option<&'a str>,
    /// When.
    pub at: Timestamp,
}

impl Services {
    /// The Vouchers `cart` names for `customer_id`, in its order and then
    /// the selected ones, each checked as a redemption would be. Codes of a
    /// targeted Instant Win's Vouchers are left to the Instant Win.
    pub(crate) async fn desired_vouchers(
        &self,
        company: &str,
        customer_id: &str,
        cart: CartVouchers<'_>,
        locale: &Locale,
    ) -> ApiResult<Vec<DesiredVoucher>> {
        let mut wants_selected = false;
        // (code as named, the key its Voucher is stored under).
        let mut named = Vec::new();
        let mut seen = HashSet::new();
        let rules = self.catalog.company(company);
        for code in cart.coupons_desired {
            if is_selected_word(code) {
                wants_selected = true;
                continue;
            }
            let key = code_key(code).map(|key| match static_coupon(&rules.campaigns, &key) {
                Some(_) => static_voucher_key(&key, customer_id),
                None => key,
            });
            if key.as_ref().is_none_or(|key| seen.insert(key.clone())) {
                named.push((code.clone(), key));
            }
        }
        if named.is_empty() && !wants_selected {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = named.iter().filter_map(|(_, key)| key.clone()).collect();
        let mut found = self.store.vouchers_by_keys(company, &keys).await?;
        let location = self
            .master_data
            .company(company)
            .location_facts(cart.location_code);
        let check = |voucher: &Voucher| {
            let reservation_id = voucher
                .holds_at(cart.at)
                .find(|hold| cart.reservation_ids.contains(&hold.reservation_id))
                .map(|hold| hold.reservation_id.clone());
            let presented = Presented {
                customer_id: Some(customer_id),
                location_code: cart.location_code,
                location: &location,
                location_required: true,
                reservation_id: reservation_id.as_deref(),
                at: cart.at,
                locale,
            };
            let refused = refusal(voucher, campaign_of(voucher, &rules.campaigns), &presented);
            (reservation_id, refused)
        };
        let mut language = None;
        let mut desired = Vec::new();
        for (code, key) in named {
            let stored = key.as_ref().and_then(|key| {
                let at = found
                    .iter()
                    .position(|v| store_key(v).as_ref() == Some(key))?;
                Some(found.swap_remove(at))
            });
            // A static code this Customer has not used yet.
            let unstored = match (&stored, code_key(&code)) {
                (None, Some(code_key)) => match static_coupon(&rules.campaigns, &code_key) {
                    Some((campaign, coupon)) => {
                        let language = match &language {
                            Some(language) => language,
                            None => language.insert(
                                self.company_settings(company)
                                    .await?
                                    .default_language
                                    .clone(),
                            ),
                        };
                        Some(unstored_static_voucher(
                            campaign,
                            coupon,
                            Some(customer_id),
                            language,
                            cart.at,
                        ))
                    }
                    None => None,
                },
                _ => None,
            };
            let stored_now = stored.is_some();
            match (stored, unstored) {
                // The Instant Win decides for its own Vouchers.
                (Some(voucher), _) if voucher.rule_id.is_some() => {}
                (Some(voucher), _) | (None, Some(voucher)) => {
                    let (reservation_id, refused) = check(&voucher);
                    let unstored = !stored_now;
                    desired.push(desired_voucher(
                        code,
                        voucher,
                        reservation_id,
                        refused,
                        unstored,
                    ));
                }
                (None, None) => desired.push(DesiredVoucher {
                    key: key.unwrap_or_default(),
                    voucher_id: String::new(),
                    voucher_code: code.clone(),
                    coupon_id: 0,
                    static_code: None,
                    reservation_id: None,
                    refusal: Some((ErrorCode::VoucherNotFound, format!("no Voucher `{code}`"))),
                    create: None,
                    code,
                }),
            }
        }
        if wants_selected {
            let held = self
                .store
                .vouchers_by(company, "customer_id", customer_id)
                .await?;
            for voucher in held {
                if voucher.selected_at.is_none() || voucher.rule_id.is_some() {
                    continue;
                }
                let Some(key) = store_key(&voucher) else {
                    continue;
                };
                if !seen.insert(key) {
                    continue;
                }
                let (reservation_id, refused) = check(&voucher);
                if refused
                    .as_ref()
                    .is_some_and(|(code, _)| !SITUATIONAL.contains(code))
                {
                    continue;
                }
                desired.push(desired_voucher(
                    voucher.code.clone(),
                    voucher,
                    reservation_id,
                    refused,
                    false,
                ));
            }
        }
        Ok(desired)
    }
}

/// A desired Voucher found in the store, or (`unstored`) a Customer's
/// Voucher of a static code to store with its first use.
fn desired_voucher(
    code: String,
    voucher: Voucher,
    reservation_id: Option<String>,
    refusal: Option<(ErrorCode, String)>,
    unstored: bool,
) -> DesiredVoucher {
    DesiredVoucher {
        key: store_key(&voucher).unwrap_or_default(),
        voucher_id: voucher.id.clone(),
        voucher_code: voucher.code.clone(),
        coupon_id: voucher.coupon_id,
        static_code: voucher.static_code.clone(),
        reservation_id,
        refusal,
        create: unstored.then_some(voucher),
        code,
    }
}
