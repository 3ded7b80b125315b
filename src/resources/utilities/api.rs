//! Utilities: GET /check.

use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::http::auth::Tier2;
use crate::http::auth::credentials::SUPPORTED_API_VERSION;
use crate::http::errors::ErrorResponse;

/// OpenAPI tags of the utility endpoints.
#[derive(Tags)]
enum UtilityTags {
    /// Availability and credential checks.
    Utilities,
}

/// Answer of GET /check.
#[derive(Debug, Object)]
pub struct CheckBody {
    /// Always `ok`.
    pub status: String,
    /// Slug of the Company the credentials belong to.
    pub company: String,
    /// `sandbox` or `production`.
    pub environment: String,
    /// The API version the request was served with.
    pub api_version: String,
    /// Server time, DateTime in UTC (`YYYY-MM-DDThh:mm:ssZ`).
    pub time: String,
}

/// Utility endpoints.
#[derive(Debug, Default)]
pub struct UtilitiesApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for UtilitiesApi {
    const ERRORS: &'static [OperationErrors] = &[OperationErrors {
        operation: "GET /check",
        codes: &[],
    }];
}

#[OpenApi]
impl UtilitiesApi {
    /// Check API availability and validate credentials.
    ///
    /// A low-risk call: it reads nothing but the key. 200 means the service is up
    /// and the three headers are valid; the body names the Company they belong to.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/check", method = "get", tag = "UtilityTags::Utilities")]
    async fn check(&self, caller: Tier2<'_>) -> Result<Json<CheckBody>, ErrorResponse> {
        Ok(Json(CheckBody {
            status: "ok".to_string(),
            company: caller.company.clone(),
            environment: caller.environment.as_str().to_string(),
            api_version: SUPPORTED_API_VERSION.to_string(),
            time: caller.services.now().to_string(),
        }))
    }
}
