//! First start: the demo Company and its system key.

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::model::Environment;
use crate::resources::companies::service::NewCompany;
use crate::services::Services;

/// Slug of the Company created on the first start of an empty store.
pub const DEMO_COMPANY: &str = "demo";

/// What the first start created; `None` from [`ensure_demo_company`] on later starts.
#[derive(Debug, Clone)]
pub struct Bootstrap {
    /// The demo Company's system key and its secret, to print once.
    pub key: CreatedApiKey,
}

/// Creates the demo Company (sandbox) and a system key for it when the store
/// has no Company yet.
///
/// The Company's record id is its slug, so two processes starting at once
/// cannot both create it: the loser sees `company_already_exists` and skips.
pub async fn ensure_demo_company(services: &Services) -> ApiResult<Option<Bootstrap>> {
    if !services.companies().await?.is_empty() {
        return Ok(None);
    }
    let created = services
        .create_company(NewCompany {
            slug: DEMO_COMPANY.to_string(),
            environment: Environment::Sandbox,
            language: Some("en".to_string()),
            languages: vec!["es".to_string()],
            rate_limits: None,
            currency: None,
            minor_units: None,
            time_zone: None,
        })
        .await;
    match created {
        Ok(_) => {}
        Err(error) if error.code == ErrorCode::CompanyAlreadyExists => return Ok(None),
        Err(error) => return Err(error),
    }
    let key = services
        .create_key_of_kind(
            NewKey {
                company: DEMO_COMPANY.to_string(),
                description: "Bootstrap key of the demo Company".to_string(),
                enabled: true,
            },
            true,
        )
        .await?;
    Ok(Some(Bootstrap { key }))
}
