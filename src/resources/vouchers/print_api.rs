//! Printing Vouchers: POST /vouchers/print, PUT /vouchers/print.

use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use crate::error::ErrorCode;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::api::VOUCHER_REFUSALS_AND_CUSTOMER;
use crate::resources::vouchers::api::VoucherTags;
use crate::resources::vouchers::model::PrintedVoucher;
use crate::resources::vouchers::selection_api::HolderCodes;
use crate::resources::vouchers::selection_api::VoucherHolder;

/// Printed Vouchers.
#[derive(Debug, Object)]
pub struct PrintedVouchers {
    /// Each Voucher with its text, in the order asked (POST: issue order).
    pub printed: Vec<PrintedVoucher>,
}

/// Print endpoints.
#[derive(Debug, Default)]
pub struct VoucherPrintApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for VoucherPrintApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /vouchers/print",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "PUT /vouchers/print",
            codes: VOUCHER_REFUSALS_AND_CUSTOMER,
        },
    ];
}

#[OpenApi(tag = "VoucherTags::Vouchers")]
impl VoucherPrintApi {
    /// Print a list of Vouchers.
    ///
    /// Prints every Voucher of the Customer that can be used now, held by a
    /// checkout or not (for a
    /// receipt's coupon section): for each, the text to print in the
    /// response language (`Accept-Language`: the Coupon's name, what it takes
    /// off, the code, until when), and records `printed_at`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/vouchers/print", method = "post")]
    async fn print_usable(
        &self,
        caller: Tier2<'_>,
        body: Json<VoucherHolder>,
    ) -> Result<Json<PrintedVouchers>, ErrorResponse> {
        let customer =
            CustomerRef::required(&body.0.customer_id, &body.0.customer_code, "customer")?;
        customer.check_not_blank()?;
        caller.answers_with(|printed: &Vec<PrintedVoucher>| printed_answer(printed));
        Ok(Json(PrintedVouchers {
            printed: caller
                .services
                .print_vouchers(&caller.company, customer, None, caller.language()?)
                .await?,
        }))
    }

    /// Print a specified list of Vouchers.
    ///
    /// Prints the Customer's Vouchers `codes`, all or none: one that is not
    /// theirs or cannot be used now is refused with its code, each in
    /// `errors[]`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/vouchers/print", method = "put")]
    async fn print_listed(
        &self,
        caller: Tier2<'_>,
        body: Json<HolderCodes>,
    ) -> Result<Json<PrintedVouchers>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        let services = caller.services;
        caller.answers_with(|printed: &Vec<PrintedVoucher>| printed_answer(printed));
        let printed = services.print_vouchers(
            &caller.company,
            customer,
            Some(&body.codes),
            caller.language()?,
        );
        Ok(Json(PrintedVouchers {
            printed: services
                .guarded_lookup(&caller.company, &caller.key, printed)
                .await?,
        }))
    }
}

/// The answer of a print.
fn printed_answer(printed: &[PrintedVoucher]) -> PrintedVouchers {
    PrintedVouchers {
        printed: printed.to_vec(),
    }
}
