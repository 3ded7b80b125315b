//! Repository of Companies (tenants).

use chrono::{DateTime, Utc};
use surrealdb::types::SurrealValue;

use crate::common::money::DEFAULT_MINOR_UNITS;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::companies::model::Company;
use crate::resources::companies::model::Environment;
use crate::resources::companies::model::RateLimits;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::store_error;

/// A Company as stored; the record id is `company:<slug>`.
#[derive(Debug, Clone, SurrealValue)]
#[surreal(crate = "surrealdb::types")]
struct CompanyRow {
    slug: String,
    environment: String,
    default_language: String,
    languages: Vec<String>,
    rate_limits: Option<RateLimitsRow>,
    currency: Option<String>,
    minor_units: Option<i64>,
    time_zone: Option<String>,
    created_at: DateTime<Utc>,
}

/// Stored rate limits; absent on Companies created before limits existed.
#[derive(Debug, Clone, SurrealValue)]
#[surreal(crate = "surrealdb::types")]
struct RateLimitsRow {
    critical: i64,
    moderate: i64,
    low: i64,
}

impl From<RateLimits> for RateLimitsRow {
    fn from(limits: RateLimits) -> Self {
        RateLimitsRow {
            critical: i64::from(limits.critical),
            moderate: i64::from(limits.moderate),
            low: i64::from(limits.low),
        }
    }
}

impl From<RateLimitsRow> for RateLimits {
    fn from(row: RateLimitsRow) -> Self {
        let clamp = |value: i64| u32::try_from(value.max(1)).unwrap_or(u32::MAX);
        RateLimits {
            critical: clamp(row.critical),
            moderate: clamp(row.moderate),
            low: clamp(row.low),
        }
    }
}

impl CompanyRow {
    fn into_company(self) -> ApiResult<Company> {
        Ok(Company {
            environment: parse_environment(&self.environment)?,
            slug: self.slug,
            default_language: self.default_language,
            languages: self.languages,
            rate_limits: self.rate_limits.map(Into::into).unwrap_or_default(),
            currency: self.currency.unwrap_or_else(|| "EUR".to_string()),
            minor_units: self
                .minor_units
                .and_then(|units| u32::try_from(units).ok())
                .unwrap_or(DEFAULT_MINOR_UNITS),
            time_zone: self.time_zone.unwrap_or_else(|| "UTC".to_string()),
            created_at: self.created_at,
        })
    }
}

/// Reads an environment back from storage, where the schema guarantees its values.
pub(crate) fn parse_environment(value: &str) -> ApiResult<Environment> {
    value
        .parse()
        .map_err(|_| ApiError::internal(format!("stored environment `{value}` is invalid")))
}

impl Store {
    /// Creates `company`; fails with `company_already_exists` if the slug is taken.
    pub async fn create_company(&self, company: &Company) -> ApiResult<()> {
        let row = CompanyRow {
            slug: company.slug.clone(),
            environment: company.environment.as_str().to_string(),
            default_language: company.default_language.clone(),
            languages: company.languages.clone(),
            rate_limits: Some(company.rate_limits.into()),
            currency: Some(company.currency.clone()),
            minor_units: Some(i64::from(company.minor_units)),
            time_zone: Some(company.time_zone.clone()),
            created_at: company.created_at,
        };
        let result = self
            .db
            .query("CREATE type::record('company', $slug) CONTENT $row RETURN NONE")
            .bind(("slug", company.slug.clone()))
            .bind(("row", row))
            .await
            .and_then(|r| r.check());
        match result {
            Ok(_) => Ok(()),
            Err(error) if error.to_string().contains("already exists") => Err(ApiError::new(
                ErrorCode::CompanyAlreadyExists,
                format!("Company `{}` already exists", company.slug),
            )),
            Err(error) => Err(store_error(error)),
        }
    }

    /// The Company with `slug`, if any.
    pub async fn company(&self, slug: &str) -> ApiResult<Option<Company>> {
        let row: Option<CompanyRow> = first(
            self.db
                .query("SELECT * OMIT id FROM ONLY type::record('company', $slug)")
                .bind(("slug", slug.to_string())),
        )
        .await?;
        row.map(CompanyRow::into_company).transpose()
    }

    /// Sets a Company's rate limits; `None` if it does not exist.
    pub async fn set_company_rate_limits(
        &self,
        slug: &str,
        limits: RateLimits,
    ) -> ApiResult<Option<Company>> {
        let row: Option<CompanyRow> = first(
            self.db
                .query("UPDATE ONLY type::record('company', $slug) SET rate_limits = $limits RETURN AFTER")
                .bind(("slug", slug.to_string()))
                .bind(("limits", RateLimitsRow::from(limits))),
        )
        .await?;
        row.map(CompanyRow::into_company).transpose()
    }

    /// Sets a Company's currency, its minor unit and its time zone; `None`
    /// if it does not exist.
    pub async fn set_company_locale(
        &self,
        slug: &str,
        currency: &str,
        minor_units: u32,
        time_zone: &str,
    ) -> ApiResult<Option<Company>> {
        let row: Option<CompanyRow> = first(
            self.db
                .query("UPDATE ONLY type::record('company', $slug) SET currency = $currency, minor_units = $minor_units, time_zone = $time_zone RETURN AFTER")
                .bind(("slug", slug.to_string()))
                .bind(("currency", currency.to_string()))
                .bind(("minor_units", i64::from(minor_units)))
                .bind(("time_zone", time_zone.to_string())),
        )
        .await?;
        row.map(CompanyRow::into_company).transpose()
    }

    /// Sets a Company's default language and its languages; `None` if it
    /// does not exist.
    pub async fn set_company_languages(
        &self,
        slug: &str,
        default_language: &str,
        languages: &[String],
    ) -> ApiResult<Option<Company>> {
        let row: Option<CompanyRow> = first(
            self.db
                .query("UPDATE ONLY type::record('company', $slug) SET default_language = $default_language, languages = $languages RETURN AFTER")
                .bind(("slug", slug.to_string()))
                .bind(("default_language", default_language.to_string()))
                .bind(("languages", languages.to_vec())),
        )
        .await?;
        row.map(CompanyRow::into_company).transpose()
    }

    /// Every Company, ordered by slug.
    pub async fn companies(&self) -> ApiResult<Vec<Company>> {
        let rows: Vec<CompanyRow> =
            first(self.db.query("SELECT * OMIT id FROM company ORDER BY slug")).await?;
        rows.into_iter().map(CompanyRow::into_company).collect()
    }
}
