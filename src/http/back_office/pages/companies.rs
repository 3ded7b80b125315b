//! The Companies: the list with its creation form (`/`), and a Company's
//! page (`/companies/{slug}`) with its keys, languages, currency, time zone
//! and rate limits.

use minijinja::context;
use poem::http::StatusCode;
use poem::web::{Data, Form};
use poem::{Request, Response, handler};
use serde::Deserialize;

use crate::common::url::encode_component;
use crate::error::ApiError;
use crate::http::back_office::pages::company_page::{CompanyAction, CompanyPage};
use crate::http::back_office::pages::render::{Pages, see_other};
use crate::http::back_office::pages::session::{Notice, Session};
use crate::resources::companies::model::{Environment, RateLimits};
use crate::resources::companies::service::{LanguagesChange, LocaleChange, NewCompany};
use crate::services::Services;

/// `GET /`: every Company, and the form that creates one.
#[handler]
pub async fn list(
    request: &Request,
    Data(services): Data<&Services>,
    Data(pages): Data<&Pages>,
) -> Response {
    match services.companies().await {
        Ok(companies) => pages.render(
            request,
            StatusCode::OK,
            "companies.html",
            context! { companies => companies },
        ),
        Err(error) => pages.error(request, &error),
    }
}

/// The Company creation form.
#[derive(Debug, Deserialize)]
pub struct CompanyForm {
    slug: String,
    environment: String,
    language: String,
    #[serde(default)]
    languages: String,
    #[serde(default)]
    currency: String,
    #[serde(default)]
    time_zone: String,
}

/// `POST /companies`: creates a Company and opens its page.
#[handler]
pub async fn create(
    Data(services): Data<&Services>,
    Data(pages): Data<&Pages>,
    Data(session): Data<&Session>,
    Form(form): Form<CompanyForm>,
) -> Response {
    let created = async {
        let new = NewCompany {
            slug: form.slug.trim().to_string(),
            environment: form.environment.parse::<Environment>()?,
            language: Some(form.language.trim().to_string()),
            languages: list_of(&form.languages),
            rate_limits: None,
            locale: LocaleChange {
                currency: filled(&form.currency),
                minor_units: None,
                time_zone: filled(&form.time_zone),
            },
        };
        services.create_company(new).await
    }
    .await;
    match created {
        Ok(company) => {
            pages.sessions().tell(
                session,
                Notice::ok(format!("Company {} created.", company.slug)),
            );
            see_other(&company_path(&company.slug))
        }
        Err(error) => {
            pages.sessions().tell(session, refused(&error));
            see_other("/")
        }
    }
}

/// `GET /companies/{slug}`: a Company's settings and keys.
#[handler]
pub async fn show(request: &Request, page: CompanyPage<'_>) -> Response {
    let read = async {
        let company = page.services.company(&page.slug).await?;
        let keys = page.services.keys(Some(&page.slug)).await?;
        let other_languages = company
            .languages
            .iter()
            .filter(|language| **language != company.default_language)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        Ok(context! { slug => &company.slug, company, keys, other_languages })
    }
    .await;
    page.show(request, "company.html", read)
}

/// The rate limits form.
#[derive(Debug, Deserialize)]
pub struct RateLimitsForm {
    critical: String,
    moderate: String,
    low: String,
}

/// `POST /companies/{slug}/rate_limits`.
#[handler]
pub async fn set_rate_limits(
    action: CompanyAction<'_>,
    Form(form): Form<RateLimitsForm>,
) -> Response {
    let (slug, services) = (&action.page.slug, action.page.services);
    let changed = async {
        let limits = RateLimits {
            critical: per_second("Tier 1", &form.critical)?,
            moderate: per_second("Tier 2", &form.moderate)?,
            low: per_second("Tier 3", &form.low)?,
        };
        services.set_rate_limits(slug, limits).await
    }
    .await;
    let notice = match changed {
        Ok(_) => Notice::ok("Rate limits changed; they apply from the next request."),
        Err(error) => refused(&error),
    };
    action.back_to_company(notice)
}

/// The currency and time zone form.
#[derive(Debug, Deserialize)]
pub struct LocaleForm {
    currency: String,
    #[serde(default)]
    minor_units: String,
    time_zone: String,
}

/// `POST /companies/{slug}/locale`.
#[handler]
pub async fn set_locale(action: CompanyAction<'_>, Form(form): Form<LocaleForm>) -> Response {
    let (slug, services) = (&action.page.slug, action.page.services);
    let changed = async {
        let minor_units = match filled(&form.minor_units) {
            Some(text) => Some(text.parse::<u32>().map_err(|_| {
                ApiError::invalid(format!("minor units must be a whole number, not `{text}`"))
            })?),
            None => None,
        };
        let change = LocaleChange {
            currency: filled(&form.currency),
            minor_units,
            time_zone: filled(&form.time_zone),
        };
        services.set_locale(slug, change).await
    }
    .await;
    let notice = match changed {
        Ok(company) => Notice::ok(format!(
            "Amounts are now in {} with {} decimals, days in {}.",
            company.currency, company.minor_units, company.time_zone
        )),
        Err(error) => refused(&error),
    };
    action.back_to_company(notice)
}

/// The languages form.
#[derive(Debug, Deserialize)]
pub struct LanguagesForm {
    language: String,
    #[serde(default)]
    languages: String,
}

/// `POST /companies/{slug}/languages`.
#[handler]
pub async fn set_languages(action: CompanyAction<'_>, Form(form): Form<LanguagesForm>) -> Response {
    let (slug, services) = (&action.page.slug, action.page.services);
    let change = LanguagesChange {
        language: form.language.trim().to_string(),
        languages: list_of(&form.languages),
    };
    let notice = match services.set_languages(slug, change).await {
        Ok(company) => Notice::ok(format!(
            "Languages are now {} (default {}).",
            company.languages.join(", "),
            company.default_language
        )),
        Err(error) => refused(&error),
    };
    action.back_to_company(notice)
}

/// The page of the Company `slug`.
pub fn company_path(slug: &str) -> String {
    format!("/companies/{}", encode_component(slug))
}

/// The notice of a refused form: the error's own message, as the API gives it.
pub fn refused(error: &ApiError) -> Notice {
    Notice::error(format!("{} ({})", error.message, error.code.code()))
}

/// A form field's text, `None` when left empty.
fn filled(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// A comma-separated list, without empty entries.
fn list_of(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(str::to_string)
        .collect()
}

fn per_second(tier: &str, text: &str) -> Result<u32, ApiError> {
    text.trim().parse::<u32>().map_err(|_| {
        ApiError::invalid(format!(
            "{tier} must be a whole number of requests per second, not `{text}`"
        ))
    })
}
