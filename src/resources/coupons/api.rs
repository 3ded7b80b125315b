//! Coupons: POST /coupons, GET /coupons, GET /coupons/{id},
//! PATCH /coupons/{id}, DELETE /coupons/{id}.

use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::http::idempotency::answer::answers_with;
use crate::http::languages::language;
use crate::http::services;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::coupons::model::Coupon;
use crate::resources::coupons::model::CouponList;
use crate::resources::coupons::model::CouponSpec;
use crate::resources::coupons::model::DeletedCoupon;
use crate::resources::coupons::service::Coupons;

#[derive(Tags)]
enum CouponTags {
    /// Coupons: the templates Vouchers are issued from, from campaign files
    /// (`kind: coupon`) and created through the API.
    Coupons,
}

/// Coupon endpoints.
#[derive(Debug, Default)]
pub struct CouponsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for CouponsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /coupons",
            codes: &[ErrorCode::VoucherCodeTaken],
        },
        OperationErrors {
            operation: "GET /coupons",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /coupons/{id}",
            codes: &[ErrorCode::CouponNotFound],
        },
        OperationErrors {
            operation: "PATCH /coupons/{id}",
            codes: &[
                ErrorCode::ForbiddenRequest,
                ErrorCode::CouponNotFound,
                ErrorCode::VoucherCodeTaken,
            ],
        },
        OperationErrors {
            operation: "DELETE /coupons/{id}",
            codes: &[ErrorCode::ForbiddenRequest, ErrorCode::CouponNotFound],
        },
    ];
}

#[OpenApi(tag = "CouponTags::Coupons")]
impl CouponsApi {
    /// Create a Coupon.
    ///
    /// Its Vouchers take `discount` off the eligible lines of a cart: those
    /// neither in `excluded_products` nor in a taxonomy of
    /// `excluded_categories`, at `locations`, between `valid_from` and
    /// `valid_to`, on `weekdays` within `hours`. Codes are one `static_code`
    /// or unique ones from `code_pattern`. A `static_code` another Voucher or
    /// Coupon has (however written: case, spaces, dashes and confusable
    /// characters aside) is refused with 409 `voucher_code_taken`, and a
    /// code once a Coupon's stays its own. The same Coupon can be written as
    /// a campaign file of kind `coupon` (campaigns/README.md). Its id is
    /// assigned from 1000000 up.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/coupons", method = "post")]
    async fn create(
        &self,
        caller: Tier3,
        request: &poem::Request,
        body: Json<CouponSpec>,
    ) -> Result<Json<Coupon>, ErrorResponse> {
        answers_with(request, Coupon::clone);
        Ok(Json(
            services(request)?
                .create_resource_campaign::<Coupons>(&caller.0.company, body.0, language(request)?)
                .await?,
        ))
    }

    /// List Coupons (campaign files and API).
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/coupons", method = "get")]
    async fn list(
        &self,
        caller: Tier2,
        request: &poem::Request,
    ) -> Result<Json<CouponList>, ErrorResponse> {
        Ok(Json(CouponList {
            coupons: services(request)?
                .resource_campaigns::<Coupons>(&caller.0.company, language(request)?),
        }))
    }

    /// Get a Coupon.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/coupons/:id", method = "get")]
    async fn get(
        &self,
        caller: Tier2,
        request: &poem::Request,
        #[oai(validator(max_length = 128))] id: Path<String>,
    ) -> Result<Json<Coupon>, ErrorResponse> {
        Ok(Json(services(request)?.resource_campaign::<Coupons>(
            &caller.0.company,
            &id.0,
            language(request)?,
        )?))
    }

    /// Update a Coupon created through the API.
    ///
    /// The fields sent replace the stored ones (a `static_code` replaces a
    /// `code_pattern` and the other way round); the result is checked like a
    /// new Coupon. Vouchers already issued keep their codes. Coupons from
    /// files are changed in their files (403 `forbidden_request`).
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/coupons/:id", method = "patch")]
    async fn update(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(max_length = 128))] id: Path<String>,
        body: Json<CouponSpec>,
    ) -> Result<Json<Coupon>, ErrorResponse> {
        answers_with(request, Coupon::clone);
        Ok(Json(
            services(request)?
                .update_resource_campaign::<Coupons>(
                    &caller.0.company,
                    &id.0,
                    body.0,
                    language(request)?,
                )
                .await?,
        ))
    }

    /// Delete a Coupon created through the API.
    ///
    /// Its Vouchers are refused from then on with `voucher_deleted`; what
    /// they were used for stays in the history. Coupons from files are
    /// deleted with their files (403 `forbidden_request`).
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/coupons/:id", method = "delete")]
    async fn delete(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(max_length = 128))] id: Path<String>,
    ) -> Result<Json<DeletedCoupon>, ErrorResponse> {
        let id = services(request)?
            .delete_coupon(&caller.0.company, &id.0)
            .await?;
        Ok(Json(DeletedCoupon {
            id,
            result: "deleted".into(),
        }))
    }
}
