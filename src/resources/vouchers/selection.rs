//! A Customer's wallet of selected (clipped) Vouchers: select and deselect
//! one (POST /vouchers/{code}/select, /deselect) or a list, all or none
//! (PUT /vouchers/select, /deselect), and list them
//! (GET /customers/{id}/vouchers/selected).

use crate::common::retry::again_when_changed;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::error::VoucherFailure;
use crate::http::idempotency::answer::answer_now;
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::static_codes::FoundVoucher;
use crate::resources::vouchers::store::VoucherStamp;
use crate::resources::vouchers::usable::Presented;
use crate::resources::vouchers::usable::campaign_of;
use crate::resources::vouchers::usable::refusal;
use crate::resources::vouchers::usable::state_of;
use crate::services::Services;

impl Services {
    /// Selects (`select`) or deselects each Voucher of `codes` for the
    /// Customer, all or none. A Voucher that cannot be used now is not
    /// selected (its refusal, for each in `errors[]`); deselecting takes any.
    pub async fn select_vouchers(
        &self,
        company: &str,
        customer: CustomerRef<'_>,
        codes: &[String],
        select: bool,
    ) -> ApiResult<Vec<Voucher>> {
        again_when_changed(|| async move {
            // Each try reads the Vouchers anew and answers them as the stamp
            // leaves them.
            let customer = self.find_customer(company, customer).await?.customer;
            if codes.is_empty() || codes.len() > super::redemptions::MAX_CODES {
                return Err(ApiError::invalid(format!(
                    "`codes` names 1 to {} codes",
                    super::redemptions::MAX_CODES
                )));
            }
            let rules = self.catalog.company(company);
            let locale = self.company_settings(company).await?.locale();
            let now = self.now();
            let presented = Presented::anywhere(&customer.id, now, &locale);
            let mut keys = Vec::new();
            let mut failures = Vec::new();
            for code in codes {
                let held = self.find_voucher(company, code, Some(&customer.id)).await?;
                let failure = match &held {
                    None => Some((ErrorCode::VoucherNotFound, format!("no Voucher `{code}`"))),
                    Some(found) if found.voucher.customer_id != customer.id => Some((
                        ErrorCode::VoucherNotFound,
                        format!("Voucher {code} is not this Customer's"),
                    )),
                    Some(found) if select => refusal(
                        &found.voucher,
                        campaign_of(&found.voucher, &rules.campaigns),
                        &presented,
                    ),
                    Some(_) => None,
                };
                match (failure, held) {
                    (Some((refused, message)), _) => failures.push(VoucherFailure {
                        voucher_code: code.clone(),
                        code: refused,
                        message,
                    }),
                    (None, Some(found))
                        if !keys.iter().any(|k: &FoundVoucher| k.key == found.key) =>
                    {
                        keys.push(found)
                    }
                    (None, _) => {}
                }
            }
            if let Some(refused) = ApiError::of_vouchers(failures) {
                return Err(refused);
            }
            // A static code's Voucher is stored before it is first selected;
            // deselecting one never selected changes nothing, and answers it
            // as it stands.
            let mut found = Vec::with_capacity(keys.len());
            let mut never_selected = Vec::new();
            for held in keys {
                if held.stored {
                    found.push(held);
                } else if select {
                    found.push(self.stored_voucher(company, held).await?);
                } else {
                    never_selected.push(held.voucher);
                }
            }
            let stamp = VoucherStamp::Selected(select.then_some(now));
            let answered: Vec<Voucher> = found
                .iter()
                .map(|held| Voucher {
                    selected_at: if select {
                        held.voucher.selected_at.or(Some(now))
                    } else {
                        None
                    },
                    ..held.voucher.clone()
                })
                .chain(never_selected)
                .map(|voucher| {
                    let campaign = campaign_of(&voucher, &rules.campaigns);
                    Voucher {
                        state: state_of(&voucher, campaign, now, &locale),
                        ..voucher
                    }
                })
                .collect();
            if !found.is_empty() {
                answer_now(&answered).await;
                let stamped: Vec<(String, &Voucher)> = found
                    .iter()
                    .map(|held| (held.key.clone(), &held.voucher))
                    .collect();
                self.store
                    .stamp_vouchers(company, &customer.id, &stamped, stamp)
                    .await?;
            }
            Ok(answered)
        })
        .await
    }

    /// The Vouchers the Customer `customer_id` selected, oldest first, each
    /// in the state it is in now.
    pub async fn selected_vouchers(
        &self,
        company: &str,
        customer_id: &str,
    ) -> ApiResult<Vec<Voucher>> {
        let customer = self
            .find_customer(company, CustomerRef::id(customer_id))
            .await?
            .customer;
        let rules = self.catalog.company(company);
        let locale = self.company_settings(company).await?.locale();
        let now = self.now();
        let held = self
            .store
            .vouchers_by(company, "customer_id", &customer.id)
            .await?;
        Ok(held
            .into_iter()
            .filter(|voucher| voucher.selected_at.is_some())
            .map(|voucher| {
                let campaign = campaign_of(&voucher, &rules.campaigns);
                Voucher {
                    state: state_of(&voucher, campaign, now, &locale),
                    ..voucher
                }
            })
            .collect())
    }
}
