//! Back-office endpoints, called by the operator CLI.

use crate::http::errors::poem_error;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use poem::Request;
use poem_openapi::auth::Bearer;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi, SecurityScheme};

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::back_office::OperatorToken;
use crate::http::errors::ErrorResponse;
use crate::http::services;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::ApiKey;
use crate::resources::companies::model::Company;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::service::NewCompany;
use crate::resources::vouchers::model::Voucher;
use crate::secrets::constant_time_eq;

/// `Authorization: Bearer <operator token>`.
#[derive(SecurityScheme)]
#[oai(ty = "bearer", checker = "check_operator_token")]
pub struct OperatorAuth(());

async fn check_operator_token(request: &Request, bearer: Bearer) -> poem::Result<()> {
    let expected = request
        .data::<OperatorToken>()
        .ok_or_else(|| ApiError::internal("operator token is not attached"))
        .map_err(poem_error)?;
    if constant_time_eq(&expected.0, &bearer.token) {
        Ok(())
    } else {
        Err(poem_error(ApiError::new(
            ErrorCode::OperatorUnauthorized,
            "wrong operator token",
        )))
    }
}

/// A Company setting an operator changes.
#[derive(Debug, Clone, Copy, Enum)]
#[oai(rename_all = "snake_case")]
enum CompanySetting {
    /// Requests per second of each tier.
    RateLimits,
    /// Currency, minor unit and time zone.
    Locale,
    /// The default language and the others.
    Languages,
}

/// A list of Companies.
#[derive(Debug, Object)]
struct CompanyList {
    companies: Vec<serde_json::Value>,
}

/// A list of keys.
#[derive(Debug, Object)]
struct KeyList {
    keys: Vec<serde_json::Value>,
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<serde_json::Value, ErrorResponse> {
    serde_json::to_value(value).map_err(|e| ApiError::internal(e).into())
}

/// Operator-only management of Companies and API keys.
#[derive(Debug, Default)]
pub struct BackOfficeApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for BackOfficeApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /companies",
            codes: &[],
        },
        OperationErrors {
            operation: "POST /companies",
            codes: &[ErrorCode::CompanyAlreadyExists],
        },
        OperationErrors {
            operation: "POST /companies/{slug}/{setting}",
            codes: &[ErrorCode::CompanyNotFound],
        },
        OperationErrors {
            operation: "GET /keys",
            codes: &[ErrorCode::CompanyNotFound],
        },
        OperationErrors {
            operation: "POST /keys",
            codes: &[ErrorCode::CompanyNotFound],
        },
        OperationErrors {
            operation: "POST /keys/{key}/disable",
            codes: &[ErrorCode::ApiKeyNotFound, ErrorCode::SystemKeyNotEditable],
        },
        OperationErrors {
            operation: "POST /keys/{key}/enable",
            codes: &[ErrorCode::ApiKeyNotFound, ErrorCode::SystemKeyNotEditable],
        },
    ];
}

#[OpenApi]
impl BackOfficeApi {
    /// List Companies.
    #[oai(path = "/companies", method = "get")]
    async fn companies(
        &self,
        _auth: OperatorAuth,
        request: &Request,
    ) -> Result<Json<CompanyList>, ErrorResponse> {
        let companies: Vec<Company> = services(request)?.companies().await?;
        let companies = companies.iter().map(to_json).collect::<Result<_, _>>()?;
        Ok(Json(CompanyList { companies }))
    }

    /// Create a Company.
    #[oai(path = "/companies", method = "post")]
    async fn create_company(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        body: Json<serde_json::Value>,
    ) -> Result<Json<serde_json::Value>, ErrorResponse> {
        let new: NewCompany = parse(body.0)?;
        let company = services(request)?.create_company(new).await?;
        Ok(Json(to_json(&company)?))
    }

    /// Change one of a Company's settings: `rate_limits` (requests per
    /// second of tiers 1, 2 and 3: `critical`, `moderate`, `low`), `locale`
    /// (`currency`, `minor_units`, `time_zone`; what is omitted stays) or
    /// `languages` (the default `language` and the other `languages` it
    /// translates into). Answers the Company.
    #[oai(path = "/companies/:slug/:setting", method = "post")]
    async fn set_company_setting(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        setting: Path<CompanySetting>,
        body: Json<serde_json::Value>,
    ) -> Result<Json<serde_json::Value>, ErrorResponse> {
        let services = services(request)?;
        let company = match setting.0 {
            CompanySetting::RateLimits => services.set_rate_limits(&slug.0, parse(body.0)?).await,
            CompanySetting::Locale => services.set_locale(&slug.0, parse(body.0)?).await,
            CompanySetting::Languages => services.set_languages(&slug.0, parse(body.0)?).await,
        }?;
        Ok(Json(to_json(&company)?))
    }

    /// List keys, optionally of one Company. Secrets are never returned.
    #[oai(path = "/keys", method = "get")]
    async fn keys(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        #[oai(validator(min_length = 1, max_length = 128))] company: Query<Option<String>>,
    ) -> Result<Json<KeyList>, ErrorResponse> {
        let keys: Vec<ApiKey> = services(request)?.keys(company.0.as_deref()).await?;
        let keys = keys.iter().map(to_json).collect::<Result<_, _>>()?;
        Ok(Json(KeyList { keys }))
    }

    /// Create a key; the answer is the only place its secret ever appears.
    #[oai(path = "/keys", method = "post")]
    async fn create_key(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        body: Json<serde_json::Value>,
    ) -> Result<Json<serde_json::Value>, ErrorResponse> {
        let new: NewKey = parse(body.0)?;
        let created: CreatedApiKey = services(request)?.create_key(new).await?;
        Ok(Json(to_json(&created)?))
    }

    /// Disable a key (not a system key). The record is kept.
    #[oai(path = "/keys/:key/disable", method = "post")]
    async fn disable_key(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        key: Path<String>,
    ) -> Result<Json<serde_json::Value>, ErrorResponse> {
        let updated = services(request)?.set_key_enabled(&key.0, false).await?;
        Ok(Json(to_json(&updated)?))
    }

    /// Enable a key (not a system key).
    #[oai(path = "/keys/:key/enable", method = "post")]
    async fn enable_key(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        key: Path<String>,
    ) -> Result<Json<serde_json::Value>, ErrorResponse> {
        let updated = services(request)?.set_key_enabled(&key.0, true).await?;
        Ok(Json(to_json(&updated)?))
    }
}

/// Customers to assign a targeted Instant Win to.
#[derive(Debug, Object)]
struct Assignment {
    /// Customer ids, 1 to 1000.
    customer_ids: Vec<String>,
}

/// The Vouchers of an assignment.
#[derive(Debug, Object)]
struct AssignedVouchers {
    /// One per Customer (an existing one when the Customer held it already).
    vouchers: Vec<Voucher>,
}

#[OpenApi]
impl InstantWinAssignments {
    /// Assign a targeted Instant Win to Customers (one Targeted Delivery
    /// send): each gets a Voucher they take part with.
    #[oai(
        path = "/companies/:slug/instant_wins/:id/assignments",
        method = "post"
    )]
    async fn assign(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        id: Path<i64>,
        body: Json<Assignment>,
    ) -> Result<Json<AssignedVouchers>, ErrorResponse> {
        let vouchers = services(request)?
            .assign_instant_win(&slug.0, id.0, &body.0.customer_ids)
            .await?;
        Ok(Json(AssignedVouchers { vouchers }))
    }
}

/// Operator-only Targeted Delivery of Instant Wins.
#[derive(Debug, Default)]
pub struct InstantWinAssignments;

/// The error codes of its own each operation answers.
impl DeclaredErrors for InstantWinAssignments {
    const ERRORS: &'static [OperationErrors] = &[OperationErrors {
        operation: "POST /companies/{slug}/instant_wins/{id}/assignments",
        codes: &[
            ErrorCode::CompanyNotFound,
            ErrorCode::InstantWinNotFound,
            ErrorCode::CustomerNotFound,
            ErrorCode::CustomerInactive,
        ],
    }];
}

/// Parses a request body into a use-case input, answering `invalid_request`
/// with serde's description of what is wrong.
fn parse<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, ErrorResponse> {
    serde_json::from_value(value)
        .map_err(|e| ApiError::invalid(format!("invalid body: {e}")).into())
}
