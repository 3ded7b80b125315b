//! Accept-Language: the language translatable content is answered in.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

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

/// Picks the Company language that best matches an Accept-Language header:
/// the highest-weighted range that names one of `languages` exactly or by its
/// primary subtag (`es-ES` matches `es`); otherwise `default`.
pub fn negotiate(accept_language: Option<&str>, languages: &[String], default: &str) -> String {
    let mut ranges: Vec<(f32, usize, &str)> = accept_language
        .unwrap_or_default()
        .split(',')
        .enumerate()
        .filter_map(|(position, part)| {
            let mut pieces = part.trim().split(';');
            let range = pieces.next()?.trim();
            let quality = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            (!range.is_empty() && quality > 0.0).then_some((quality, position, range))
        })
        .collect();
    ranges.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, _, range) in ranges {
        let range = range.to_ascii_lowercase();
        let primary = range.split('-').next().unwrap_or_default();
        let found = languages
            .iter()
            .find(|l| l.to_ascii_lowercase() == range)
            .or_else(|| languages.iter().find(|l| l.to_ascii_lowercase() == primary))
            .or_else(|| {
                languages.iter().find(|l| {
                    l.split('-')
                        .next()
                        .is_some_and(|p| p.eq_ignore_ascii_case(primary))
                })
            });
        if let Some(language) = found {
            return language.clone();
        }
    }
    default.to_string()
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

/// The language of a response, and the Company default it falls back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Language {
    /// The language answered in (sent as Content-Language).
    pub chosen: String,
    /// The Company's default language.
    pub default: String,
    /// The Company's currency and time zone, for the amounts and times the
    /// response shows.
    pub locale: Locale,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn langs() -> Vec<String> {
        vec!["es".into(), "en".into(), "pt-BR".into()]
    }

    #[test]
    fn negotiation() {
        assert_eq!(negotiate(Some("en"), &langs(), "es"), "en");
        assert_eq!(negotiate(Some("en-GB,en;q=0.9"), &langs(), "es"), "en");
        assert_eq!(negotiate(Some("fr, en;q=0.5"), &langs(), "es"), "en");
        assert_eq!(
            negotiate(Some("de;q=1, es;q=0.2, en;q=0.8"), &langs(), "es"),
            "en"
        );
        assert_eq!(negotiate(Some("pt"), &langs(), "es"), "pt-BR");
        assert_eq!(negotiate(Some("fr"), &langs(), "es"), "es");
        assert_eq!(negotiate(Some("en;q=0"), &langs(), "es"), "es");
        assert_eq!(negotiate(None, &langs(), "es"), "es");
        assert_eq!(negotiate(Some("*"), &langs(), "es"), "es");
    }
}
