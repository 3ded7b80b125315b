//! Companies: created and listed by operators through the back-office.

use serde::{Deserialize, Serialize};

use crate::common::validate::validate_language;
use crate::common::validate::validate_slug;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::rate_limits::limiters::Tier;
use crate::resources::companies::model::Company;
use crate::resources::companies::model::Environment;
use crate::resources::companies::model::RateLimits;
use crate::services::Services;

/// What an operator provides to create a Company.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewCompany {
    /// Unique slug, e.g. `acme`.
    pub slug: String,
    /// Sandbox or production.
    pub environment: Environment,
    /// Default language; `en` when omitted.
    #[serde(default)]
    pub language: Option<String>,
    /// Languages the Company translates into; the default language is added when missing.
    #[serde(default)]
    pub languages: Vec<String>,
    /// Requests per second per tier; the interface's 60/25/10 when omitted.
    #[serde(default)]
    pub rate_limits: Option<RateLimits>,
}

/// Largest rate a tier may be set to.
const MAX_RPS: u32 = 100_000;

fn validate_rate_limits(limits: &RateLimits) -> ApiResult<()> {
    for tier in Tier::ALL {
        let rps = tier.rps(limits);
        if !(1..=MAX_RPS).contains(&rps) {
            return Err(ApiError::invalid(format!(
                "{} must be between 1 and {MAX_RPS} requests per second",
                tier.name()
            )));
        }
    }
    Ok(())
}

impl Services {
    /// Creates a Company after validating its slug and languages.
    pub async fn create_company(&self, new: NewCompany) -> ApiResult<Company> {
        validate_slug("Company slug", &new.slug)?;
        let default_language = new.language.unwrap_or_else(|| "en".to_string());
        validate_language(&default_language)?;
        let mut languages = vec![default_language.clone()];
        for language in new.languages {
            validate_language(&language)?;
            if !languages.contains(&language) {
                languages.push(language);
            }
        }
        let rate_limits = new.rate_limits.unwrap_or_default();
        validate_rate_limits(&rate_limits)?;
        let company = Company {
            rate_limits,
            slug: new.slug,
            environment: new.environment,
            default_language,
            languages,
            created_at: self.now().as_datetime(),
        };
        self.store.create_company(&company).await?;
        tracing::info!(company = %company.slug, environment = %company.environment, "company created");
        Ok(company)
    }

    /// Changes a Company's rate limits; they apply from the next request.
    pub async fn set_rate_limits(&self, slug: &str, limits: RateLimits) -> ApiResult<Company> {
        validate_rate_limits(&limits)?;
        let company = self
            .store
            .set_company_rate_limits(slug, limits)
            .await?
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::CompanyNotFound,
                    format!("Company `{slug}` does not exist"),
                )
            })?;
        self.companies.forget(slug);
        tracing::info!(company = slug, ?limits, "rate limits changed");
        Ok(company)
    }

    /// Every Company, ordered by slug.
    pub async fn companies(&self) -> ApiResult<Vec<Company>> {
        self.store.companies().await
    }
}
