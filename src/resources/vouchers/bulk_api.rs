//! The back-office operation behind `loyalty vouchers issue`.

use poem::Request;
use poem_openapi::OpenApi;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;

use crate::error::ErrorCode;
use crate::http::errors::ErrorResponse;
use crate::http::services;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::companies::api::OperatorAuth;
use crate::resources::vouchers::bulk::BulkIssue;
use crate::resources::vouchers::bulk::BulkIssued;

/// Operator-only bulk issues of Vouchers.
#[derive(Debug, Default)]
pub struct VoucherBulkIssues;

#[OpenApi]
impl VoucherBulkIssues {
    /// Issue a Coupon's Vouchers in bulk: `count` bearer Vouchers (numbered
    /// from `first`) or one per Customer of `customer_ids`. Issuing again
    /// under the same `source` gives the same Vouchers.
    #[oai(path = "/companies/:slug/coupons/:id/vouchers", method = "post")]
    async fn issue(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        id: Path<i64>,
        body: Json<BulkIssue>,
    ) -> Result<Json<BulkIssued>, ErrorResponse> {
        let issued = services(request)?.bulk_issue(&slug.0, id.0, body.0).await?;
        Ok(Json(issued))
    }
}

/// The error codes of its own each operation answers.
impl DeclaredErrors for VoucherBulkIssues {
    const ERRORS: &'static [OperationErrors] = &[OperationErrors {
        operation: "POST /companies/{slug}/coupons/{id}/vouchers",
        codes: &[ErrorCode::CompanyNotFound, ErrorCode::CouponNotFound],
    }];
}
