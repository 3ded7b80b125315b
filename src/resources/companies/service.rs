//! Companies: created and listed by operators through the back-office.

use serde::{Deserialize, Serialize};

use crate::common::locale::currency_minor_units;
use crate::common::locale::is_currency_code;
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
    /// Its currency (`EUR` when omitted; amounts rounded to its minor unit
    /// unless `minor_units` says) and IANA time zone, e.g. `Europe/Madrid`
    /// (`UTC` when omitted).
    #[serde(flatten)]
    pub locale: LocaleChange,
}

/// A Company's currency and time zone as an operator changes them; what is
/// omitted stays as it is (the minor unit follows a new currency).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LocaleChange {
    /// ISO 4217 currency code.
    #[serde(default)]
    pub currency: Option<String>,
    /// Decimals amounts are rounded to.
    #[serde(default)]
    pub minor_units: Option<u32>,
    /// IANA time zone.
    #[serde(default)]
    pub time_zone: Option<String>,
}

/// Most decimals a currency's amounts may have.
const MAX_MINOR_UNITS: u32 = 4;

/// `currency`, `minor_units` and `time_zone`, checked: (currency, minor
/// units, time zone).
fn checked_locale(
    currency: &str,
    minor_units: Option<u32>,
    time_zone: &str,
) -> ApiResult<(String, u32, String)> {
    if !is_currency_code(currency) {
        return Err(ApiError::invalid(format!(
            "currency must be an ISO 4217 code such as EUR, not `{currency}`"
        )));
    }
    let minor_units = minor_units.unwrap_or_else(|| currency_minor_units(currency));
    if minor_units > MAX_MINOR_UNITS {
        return Err(ApiError::invalid(format!(
            "minor units are 0 to {MAX_MINOR_UNITS} decimals, not {minor_units}"
        )));
    }
    let zone: chrono_tz::Tz = time_zone.parse().map_err(|_| {
        ApiError::invalid(format!(
            "time zone must be an IANA name such as Europe/Madrid, not `{time_zone}`"
        ))
    })?;
    Ok((currency.to_string(), minor_units, zone.name().to_string()))
}

/// The default language and the others, checked: (default, every
/// language with the default first and no repeats).
fn checked_languages(default: String, others: Vec<String>) -> ApiResult<(String, Vec<String>)> {
    validate_language(&default)?;
    let mut languages = vec![default.clone()];
    for language in others {
        validate_language(&language)?;
        if !languages.contains(&language) {
            languages.push(language);
        }
    }
    Ok((default, languages))
}

/// A Company's languages as an operator sets them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LanguagesChange {
    /// The default language.
    pub language: String,
    /// The other languages the Company translates into.
    #[serde(default)]
    pub languages: Vec<String>,
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
        let (default_language, languages) = checked_languages(
            new.language.unwrap_or_else(|| "en".to_string()),
            new.languages,
        )?;
        let rate_limits = new.rate_limits.unwrap_or_default();
        validate_rate_limits(&rate_limits)?;
        let (currency, minor_units, time_zone) = checked_locale(
            new.locale.currency.as_deref().unwrap_or("EUR"),
            new.locale.minor_units,
            new.locale.time_zone.as_deref().unwrap_or("UTC"),
        )?;
        let company = Company {
            rate_limits,
            currency,
            minor_units,
            time_zone,
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
            .ok_or_else(|| company_not_found(slug))?;
        self.companies.forget(slug);
        tracing::info!(company = slug, ?limits, "rate limits changed");
        Ok(company)
    }

    /// Changes a Company's currency, minor unit or time zone; they apply
    /// from the next request.
    pub async fn set_locale(&self, slug: &str, change: LocaleChange) -> ApiResult<Company> {
        let not_found = || company_not_found(slug);
        let company = self.store.company(slug).await?.ok_or_else(not_found)?;
        let currency_changed = change.currency.is_some();
        let currency = change.currency.unwrap_or(company.currency);
        let minor_units = change
            .minor_units
            .or((!currency_changed).then_some(company.minor_units));
        let time_zone = change.time_zone.unwrap_or(company.time_zone);
        let (currency, minor_units, time_zone) =
            checked_locale(&currency, minor_units, &time_zone)?;
        let company = self
            .store
            .set_company_locale(slug, &currency, minor_units, &time_zone)
            .await?
            .ok_or_else(not_found)?;
        self.companies.forget(slug);
        tracing::info!(company = slug, %currency, minor_units, %time_zone, "currency and time zone changed");
        Ok(company)
    }

    /// Changes a Company's default language and the languages it
    /// translates into; they apply from the next request.
    pub async fn set_languages(&self, slug: &str, change: LanguagesChange) -> ApiResult<Company> {
        let (default_language, languages) = checked_languages(change.language, change.languages)?;
        let company = self
            .store
            .set_company_languages(slug, &default_language, &languages)
            .await?
            .ok_or_else(|| company_not_found(slug))?;
        self.companies.forget(slug);
        tracing::info!(company = slug, %default_language, ?languages, "languages changed");
        Ok(company)
    }

    /// The Company `slug`.
    pub async fn company(&self, slug: &str) -> ApiResult<Company> {
        self.store
            .company(slug)
            .await?
            .ok_or_else(|| company_not_found(slug))
    }

    /// Every Company, ordered by slug.
    pub async fn companies(&self) -> ApiResult<Vec<Company>> {
        self.store.companies().await
    }
}

/// The error of a Company that does not exist.
fn company_not_found(slug: &str) -> ApiError {
    ApiError::new(
        ErrorCode::CompanyNotFound,
        format!("Company `{slug}` does not exist"),
    )
}
