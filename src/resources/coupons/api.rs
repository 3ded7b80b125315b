//! Coupons: POST /coupons, GET /coupons, GET /coupons/{id},
//! PATCH /coupons/{id}, DELETE /coupons/{id}.

use poem_openapi::Tags;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;

use crate::error::ErrorCode;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::OperationErrors;
use crate::resources::api_campaigns::resource_api::campaign_resource_api;
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

campaign_resource_api! {
    /// Coupon endpoints.
    api: CouponsApi for Coupons, tag: "CouponTags::Coupons",
    paths: "/coupons", "/coupons/:id" ("/coupons/{id}"),
    param: { #[oai(validator(max_length = 128))] id },
    payloads: CouponSpec => Coupon, list: CouponList { coupons },
    create_errors: [ErrorCode::VoucherCodeTaken],
    create: {
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
    },
    list: {
        /// List Coupons (campaign files and API).
    },
    get: {
        /// Get a Coupon.
    },
    update: {
        /// Update a Coupon created through the API.
        ///
        /// The fields sent replace the stored ones (a `static_code` replaces a
        /// `code_pattern` and the other way round); the result is checked like a
        /// new Coupon. Vouchers already issued keep their codes. Coupons from
        /// files are changed in their files (403 `forbidden_request`).
    },
    more: {
        errors: [OperationErrors::new(
            "DELETE /coupons/{id}",
            &[ErrorCode::ForbiddenRequest, ErrorCode::CouponNotFound],
        )],
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
        caller: Tier3<'_>,
        #[oai(validator(max_length = 128))] id: Path<String>,
    ) -> Result<Json<DeletedCoupon>, ErrorResponse> {
        let id = caller
            .services
            .delete_coupon(&caller.company, &id.0)
            .await?;
        Ok(Json(DeletedCoupon {
            id,
            result: "deleted".into(),
        }))
    }
    },
}
