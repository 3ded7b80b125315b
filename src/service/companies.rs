//! Companies: created and listed by operators through the back-office.

use chrono::Utc;
use serde::{Deserialize, Serialize};

use super::Services;
use crate::error::ApiResult;
use crate::model::{Company, Environment, validate_language, validate_slug};

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
        let company = Company {
            slug: new.slug,
            environment: new.environment,
            default_language,
            languages,
            created_at: Utc::now(),
        };
        self.store.create_company(&company).await?;
        tracing::info!(company = %company.slug, environment = %company.environment, "company created");
        Ok(company)
    }

    /// Every Company, ordered by slug.
    pub async fn companies(&self) -> ApiResult<Vec<Company>> {
        self.store.companies().await
    }
}
