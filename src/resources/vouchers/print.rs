//! Printing Vouchers on a receipt or a page: the text of each in the
//! response language, and when it was printed.

use crate::common::language::Language;
use crate::common::money::round_money;
use crate::common::retry::again_when_changed;
use crate::engine::campaign::Campaign;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::error::VoucherFailure;
use crate::http::idempotency::answer::answer_now;
use crate::resources::coupons::rules::CouponValue;
use crate::resources::coupons::rules::coupon_of;
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::model::PrintedVoucher;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherState;
use crate::resources::vouchers::static_codes::store_key;
use crate::resources::vouchers::store::VoucherStamp;
use crate::resources::vouchers::usable::Presented;
use crate::resources::vouchers::usable::campaign_of;
use crate::resources::vouchers::usable::refusal;
use crate::resources::vouchers::usable::state_of;
use crate::services::Services;

/// The words of a printed Voucher in one language: (language, "off", "Code",
/// "Valid until"). Other languages print in English.
const LABELS: [(&str, &str, &str, &str); 2] = [
    ("en", "off", "Code", "Valid until"),
    ("es", "de descuento", "Código", "Válido hasta"),
];

/// The text printed for `voucher` of `campaign` in `language`.
fn printed_text(voucher: &Voucher, campaign: Option<&Campaign>, language: &Language) -> String {
    let (_, off, code, until) = LABELS
        .iter()
        .find(|(name, ..)| *name == language.chosen)
        .copied()
        .unwrap_or(LABELS[0]);
    let name = campaign.map_or_else(
        || voucher.coupon_name.clone(),
        |c| c.name.resolve(&language.chosen, &language.default),
    );
    let mut lines = vec![name];
    if let Some(coupon) = campaign.and_then(coupon_of) {
        lines.push(match coupon.value {
            CouponValue::Percent(percent) => format!("{}% {off}", percent.normalize()),
            CouponValue::Amount(amount) => {
                let places = language.locale.minor_units;
                format!("{:.*} {off}", places as usize, round_money(amount, places))
            }
        });
    }
    lines.push(format!("{code}: {}", voucher.code));
    if let Some(to) = campaign.and_then(|c| c.available_to) {
        let local = language
            .locale
            .wall_clock(to.instant(&language.locale).as_datetime());
        lines.push(format!("{until}: {}", local.format("%Y-%m-%d")));
    }
    lines.join("\n")
}

impl Services {
    /// Prints the Customer's Vouchers `codes` (all or none, each usable now),
    /// or with `None` every Voucher of theirs that can be used now; records
    /// when.
    pub async fn print_vouchers(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        codes: Option<&[String]>,
        language: &Language,
    ) -> ApiResult<Vec<PrintedVoucher>> {
        again_when_changed(|| async move {
            // Each try reads the Vouchers anew and answers them as the stamp
            // leaves them.
            let customer = self.find_customer(company, customer).await?.customer;
            let rules = self.catalog.company(company);
            let now = self.now();
            let locale = &language.locale;
            let presented = Presented::anywhere(&customer.id, now, locale);
            let held = self
                .store
                .vouchers_by(company, "customer_id", &customer.id)
                .await?;
            let chosen: Vec<Voucher> = match codes {
                None => held
                    .iter()
                    // A Voucher held by a checkout is still the Customer's to use.
                    .filter(|v| {
                        matches!(
                            state_of(v, campaign_of(v, &rules.campaigns), now, locale),
                            VoucherState::Active | VoucherState::Frozen
                        )
                    })
                    .cloned()
                    .collect(),
                Some(codes) => {
                    let mut chosen = Vec::new();
                    let mut failures = Vec::new();
                    for code in codes {
                        let found =
                            match self.find_voucher(company, code, Some(&customer.id)).await? {
                                // A static code the Customer has not used yet: stored
                                // when printed.
                                Some(found) if !found.stored => Some(found.voucher),
                                Some(found) => held
                                    .iter()
                                    .find(|v| store_key(v).as_deref() == Some(found.key.as_str()))
                                    .cloned(),
                                None => None,
                            };
                        let found = found.as_ref();
                        let refused = match found {
                            None => Some((
                                ErrorCode::VoucherNotFound,
                                format!("no Voucher `{code}` of this Customer"),
                            )),
                            // Held by a checkout is still usable, as for POST.
                            Some(v) => refusal(v, campaign_of(v, &rules.campaigns), &presented)
                                .filter(|(code, _)| *code != ErrorCode::VoucherFrozen),
                        };
                        match (refused, found) {
                            (Some((refused, message)), _) => failures.push(VoucherFailure {
                                voucher_code: code.clone(),
                                code: refused,
                                message,
                            }),
                            (None, Some(v)) if !chosen.iter().any(|c: &Voucher| c.id == v.id) => {
                                chosen.push(v.clone())
                            }
                            (None, _) => {}
                        }
                    }
                    if let Some(refused) = ApiError::of_vouchers(failures) {
                        return Err(refused);
                    }
                    chosen
                }
            };
            for voucher in chosen.iter().filter(|v| !held.iter().any(|h| h.id == v.id)) {
                if let Some(key) = store_key(voucher) {
                    self.store
                        .store_voucher_once(company, &key, voucher)
                        .await?;
                }
            }
            let printed: Vec<PrintedVoucher> = chosen
                .iter()
                .map(|voucher| {
                    let campaign = campaign_of(voucher, &rules.campaigns);
                    let text = printed_text(voucher, campaign, language);
                    PrintedVoucher {
                        voucher: Voucher {
                            state: state_of(voucher, campaign, now, locale),
                            printed_at: Some(now),
                            ..voucher.clone()
                        },
                        text,
                    }
                })
                .collect();
            let stamped: Vec<(String, &Voucher)> = chosen
                .iter()
                .filter_map(|voucher| Some((store_key(voucher)?, voucher)))
                .collect();
            if !stamped.is_empty() {
                answer_now(&printed).await;
                self.store
                    .stamp_vouchers(company, &customer.id, &stamped, VoucherStamp::Printed(now))
                    .await?;
            }
            Ok(printed)
        })
        .await
    }
}
