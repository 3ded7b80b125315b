//! A Company's settings as requests read them: kept for 30 seconds, so
//! answering in the Company's language, currency and time zone costs no
//! store read per request.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use crate::common::language::Language;
use crate::common::language::negotiate;
use crate::common::locale::Locale;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::companies::model::Company;
use crate::services::Services;

/// How long a Company's settings are trusted before they are read again.
const REFRESH: Duration = Duration::from_secs(30);

/// Recently read Companies, so language resolution costs no store read per request.
#[derive(Debug, Default)]
pub struct CompanyCache {
    entries: RwLock<HashMap<String, (Arc<Company>, Instant)>>,
}

impl CompanyCache {
    /// Drops `slug`, so its next use reads the store.
    pub fn forget(&self, slug: &str) {
        if let Ok(mut entries) = self.entries.write() {
            entries.remove(slug);
        }
    }
}

impl Services {
    /// The Company `slug`, read at most every 30 seconds.
    pub async fn company_settings(&self, slug: &str) -> ApiResult<Arc<Company>> {
        if let Ok(entries) = self.companies.entries.read()
            && let Some((company, at)) = entries.get(slug)
            && at.elapsed() < REFRESH
        {
            return Ok(company.clone());
        }
        let company = Arc::new(self.store.company(slug).await?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::CompanyNotFound,
                format!("Company `{slug}` does not exist"),
            )
        })?);
        if let Ok(mut entries) = self.companies.entries.write() {
            entries.insert(slug.to_string(), (company.clone(), Instant::now()));
        }
        Ok(company)
    }

    /// The currency minor unit and time zone of `company`, read at most every
    /// 30 seconds.
    pub async fn company_locale(&self, company: &str) -> ApiResult<Locale> {
        Ok(self.company_settings(company).await?.locale())
    }

    /// The language to answer `company` in, given its Accept-Language header.
    pub async fn response_language(
        &self,
        company: &str,
        accept_language: Option<&str>,
    ) -> ApiResult<Language> {
        let settings = self.company_settings(company).await?;
        Ok(Language {
            chosen: negotiate(
                accept_language,
                &settings.languages,
                &settings.default_language,
            ),
            default: settings.default_language.clone(),
            locale: settings.locale(),
        })
    }
}
