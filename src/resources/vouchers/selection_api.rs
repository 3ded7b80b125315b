//! A Customer's selected Vouchers: POST /vouchers/{code}/select,
//! POST /vouchers/{code}/deselect, PUT /vouchers/select,
//! PUT /vouchers/deselect, GET /customers/{id}/vouchers/selected.

use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::api::VOUCHER_REFUSALS_AND_CUSTOMER;
use crate::resources::vouchers::api::VoucherTags;
use crate::resources::vouchers::model::Voucher;

/// The Customer holding the Voucher (or Vouchers) of the request.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct VoucherHolder {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
}

/// Vouchers of a Customer (to select, deselect or print).
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct HolderCodes {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The codes (1 to 50).
    #[oai(validator(
        min_items = 1,
        max_items = 50,
        max_length = 64,
        pattern = r"^[A-Za-z0-9 -]*[A-Za-z0-9][A-Za-z0-9 -]*$"
    ))]
    pub codes: Vec<String>,
}

/// Vouchers.
#[derive(Debug, Object)]
pub struct Vouchers {
    /// The Vouchers, each in the state it is in now.
    pub vouchers: Vec<Voucher>,
}

/// Selection endpoints.
#[derive(Debug, Default)]
pub struct VoucherSelectionApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for VoucherSelectionApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /vouchers/{code}/select",
            codes: VOUCHER_REFUSALS_AND_CUSTOMER,
        },
        OperationErrors {
            operation: "POST /vouchers/{code}/deselect",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::VoucherNotFound],
        },
        OperationErrors {
            operation: "PUT /vouchers/select",
            codes: VOUCHER_REFUSALS_AND_CUSTOMER,
        },
        OperationErrors {
            operation: "PUT /vouchers/deselect",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::VoucherNotFound],
        },
        OperationErrors {
            operation: "GET /customers/{id}/vouchers/selected",
            codes: &[ErrorCode::CustomerNotFound],
        },
    ];
}

#[OpenApi(tag = "VoucherTags::Vouchers")]
impl VoucherSelectionApi {
    /// Select a Voucher.
    ///
    /// Clips the Customer's Voucher to their wallet (an app's "use at
    /// checkout"): listed by GET /customers/{id}/vouchers/selected.
    /// Selecting again keeps the first `selected_at`. A Voucher that cannot
    /// be used now is refused with its code (`voucher_expired`, ...).
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/:code/select", method = "post")]
    async fn select_one(
        &self,
        caller: Tier1<'_>,
        /// The Voucher's code.
        #[oai(validator(min_length = 1, max_length = 64))]
        code: Path<String>,
        body: Json<VoucherHolder>,
    ) -> Result<Json<Voucher>, ErrorResponse> {
        self.one(caller, code.0, body.0, true).await
    }

    /// Deselect a Voucher.
    ///
    /// Takes it out of the Customer's wallet; deselecting one not selected
    /// changes nothing.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/:code/deselect", method = "post")]
    async fn deselect_one(
        &self,
        caller: Tier1<'_>,
        /// The Voucher's code.
        #[oai(validator(min_length = 1, max_length = 64))]
        code: Path<String>,
        body: Json<VoucherHolder>,
    ) -> Result<Json<Voucher>, ErrorResponse> {
        self.one(caller, code.0, body.0, false).await
    }

    /// Select a list of Vouchers.
    ///
    /// All or none, with `errors[]` naming each code that cannot be selected.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/select", method = "put")]
    async fn select_list(
        &self,
        caller: Tier1<'_>,
        body: Json<HolderCodes>,
    ) -> Result<Json<Vouchers>, ErrorResponse> {
        self.list(caller, body.0, true).await
    }

    /// Deselect a list of Vouchers.
    ///
    /// All or none, with `errors[]` naming each code that is not the
    /// Customer's.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/deselect", method = "put")]
    async fn deselect_list(
        &self,
        caller: Tier1<'_>,
        body: Json<HolderCodes>,
    ) -> Result<Json<Vouchers>, ErrorResponse> {
        self.list(caller, body.0, false).await
    }

    /// Selected Vouchers of a Customer.
    ///
    /// Oldest first, each in the state it is in now.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:id/vouchers/selected", method = "get")]
    async fn selected(
        &self,
        caller: Tier2<'_>,
        /// The Customer's id.
        #[oai(validator(min_length = 1, max_length = 128))]
        id: Path<String>,
    ) -> Result<Json<Vouchers>, ErrorResponse> {
        CustomerRef::id(&id.0).check_not_blank()?;
        Ok(Json(Vouchers {
            vouchers: caller
                .services
                .selected_vouchers(&caller.company, &id.0)
                .await?,
        }))
    }
}

impl VoucherSelectionApi {
    async fn one(
        &self,
        caller: Tier1<'_>,
        code: String,
        body: VoucherHolder,
        select: bool,
    ) -> Result<Json<Voucher>, ErrorResponse> {
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        let services = caller.services;
        caller.answers_with_some(|vouchers: &Vec<Voucher>| vouchers.last().cloned());
        let selected = services.select_vouchers(
            &caller.company,
            customer,
            std::slice::from_ref(&code),
            select,
        );
        let mut vouchers = services
            .guarded_lookup(&caller.company, &caller.key, selected)
            .await?;
        vouchers.pop().map(Json).ok_or_else(|| {
            crate::error::ApiError::internal("a selected Voucher was not read back").into()
        })
    }

    async fn list(
        &self,
        caller: Tier1<'_>,
        body: HolderCodes,
        select: bool,
    ) -> Result<Json<Vouchers>, ErrorResponse> {
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        let services = caller.services;
        caller.answers_with(|vouchers: &Vec<Voucher>| Vouchers {
            vouchers: vouchers.clone(),
        });
        let selected = services.select_vouchers(&caller.company, customer, &body.codes, select);
        Ok(Json(Vouchers {
            vouchers: services
                .guarded_lookup(&caller.company, &caller.key, selected)
                .await?,
        }))
    }
}
