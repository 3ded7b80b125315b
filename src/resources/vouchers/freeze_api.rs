//! Holds on Vouchers during a checkout: POST /vouchers/{code}/freeze,
//! POST /vouchers/{code}/unfreeze.

use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::api::VOUCHER_REFUSALS_AND_CUSTOMER;
use crate::resources::vouchers::api::VoucherTags;
use crate::resources::vouchers::freeze::DEFAULT_FREEZE_MINUTES;
use crate::resources::vouchers::model::FrozenVoucher;
use crate::resources::vouchers::model::Voucher;

/// A hold to take.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct FreezeRequest {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// How long the hold lasts, in minutes (1 to 60, default 5).
    #[oai(validator(minimum(value = "1"), maximum(value = "60")))]
    pub minutes: Option<u32>,
}

/// A hold to release.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct UnfreezeRequest {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The hold to release; absent: every hold on the Voucher.
    #[oai(validator(min_length = 1, max_length = 64))]
    pub reservation_id: Option<String>,
}

/// Freeze endpoints.
#[derive(Debug, Default)]
pub struct VoucherFreezeApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for VoucherFreezeApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /vouchers/{code}/freeze",
            codes: VOUCHER_REFUSALS_AND_CUSTOMER,
        },
        OperationErrors {
            operation: "POST /vouchers/{code}/unfreeze",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::VoucherNotFound],
        },
    ];
}

#[OpenApi(tag = "VoucherTags::Vouchers")]
impl VoucherFreezeApi {
    /// Freeze a Voucher.
    ///
    /// Holds one use of the Customer's Voucher during a checkout, for
    /// `minutes` (default 5): while held, only a redemption naming the
    /// answered `reservation_id` can take that use, and no other till can.
    /// A Voucher with several uses keeps the others free. The hold ends by
    /// itself at `expires_at`, when the use is taken, or with unfreeze.
    /// Refused with `voucher_frozen` when every use left is held already.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/:code/freeze", method = "post")]
    async fn freeze(
        &self,
        caller: Tier1<'_>,
        /// The Voucher's code.
        #[oai(validator(min_length = 1, max_length = 64))]
        code: Path<String>,
        body: Json<FreezeRequest>,
    ) -> Result<Json<FrozenVoucher>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        let services = caller.services;
        caller.answers_with(FrozenVoucher::clone);
        let frozen = services.freeze_voucher(
            &caller.company,
            customer,
            &code.0,
            body.minutes.unwrap_or(DEFAULT_FREEZE_MINUTES),
        );
        Ok(Json(
            services
                .guarded_lookup(&caller.company, &caller.key, frozen)
                .await?,
        ))
    }

    /// Unfreeze a Voucher.
    ///
    /// Releases the hold `reservation_id` (every hold on the Voucher, when
    /// absent); releasing one that ended or was used changes nothing.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/:code/unfreeze", method = "post")]
    async fn unfreeze(
        &self,
        caller: Tier1<'_>,
        /// The Voucher's code.
        #[oai(validator(min_length = 1, max_length = 64))]
        code: Path<String>,
        body: Json<UnfreezeRequest>,
    ) -> Result<Json<Voucher>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        caller.answers_with(Voucher::clone);
        Ok(Json(
            caller
                .services
                .unfreeze_voucher(
                    &caller.company,
                    customer,
                    &code.0,
                    body.reservation_id.as_deref(),
                )
                .await?,
        ))
    }
}
