//! Discounts: POST /discounts/trigger.

use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::errors::ErrorResponse;
use crate::http::services;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::model::Voucher;

#[derive(Tags)]
enum DiscountTags {
    /// Discount campaigns and the Coupons they are triggered through.
    Discounts,
}

/// A Coupon to trigger for a Customer.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CouponTrigger {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The Coupon to issue a Voucher of.
    pub coupon_id: i64,
}

/// Discount endpoints.
#[derive(Debug, Default)]
pub struct DiscountsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for DiscountsApi {
    const ERRORS: &'static [OperationErrors] = &[OperationErrors {
        operation: "POST /discounts/trigger",
        codes: &[
            ErrorCode::CustomerNotFound,
            ErrorCode::CustomerInactive,
            ErrorCode::CouponNotFound,
            ErrorCode::VoucherInactive,
            ErrorCode::VoucherExpired,
            ErrorCode::VoucherCodeTaken,
        ],
    }];
}

#[OpenApi(tag = "DiscountTags::Discounts")]
impl DiscountsApi {
    /// Trigger a coupon with a discount for a Customer.
    ///
    /// Issues the Customer a Voucher of the Coupon `coupon_id`, with a new
    /// unique code from its `code_pattern` and its `uses_per_voucher` uses;
    /// each call issues one more (send an `Idempotency-Key` to retry safely).
    /// A Coupon with a `static_code` issues none (400): every Customer
    /// presents that code. Refused with `voucher_inactive` or
    /// `voucher_expired` (422) when the Coupon is inactive or over.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/discounts/trigger", method = "post")]
    async fn trigger(
        &self,
        caller: Tier1,
        request: &poem::Request,
        body: Json<CouponTrigger>,
    ) -> Result<Json<Voucher>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        customer.check_not_blank()?;
        Ok(Json(
            services(request)?
                .trigger_coupon(&caller.0.company, customer, body.coupon_id)
                .await?,
        ))
    }
}
