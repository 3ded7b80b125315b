//! First start: the demo Company and its system key, whose secret is printed
//! once; a key whose secret was never printed (the first start stopped
//! before it could) is replaced at the next start.

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::companies::keys::KeyKind;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::model::Environment;
use crate::resources::companies::service::NewCompany;
use crate::services::Services;

/// Slug of the Company created on the first start of an empty store.
pub const DEMO_COMPANY: &str = "demo";

/// A system key of the demo Company whose secret is yet to be printed;
/// `None` from [`ensure_demo_company`] when there is none.
#[derive(Debug, Clone)]
pub struct Bootstrap {
    /// The demo Company's system key and its secret, to print once.
    pub key: CreatedApiKey,
    /// Keys this one replaces: created by a start that stopped before
    /// printing their secret, now disabled.
    pub replaced: Vec<String>,
}

/// Creates the demo Company (sandbox) and a system key for it when the store
/// has no Company yet. On later starts, a demo key whose secret was never
/// shown (or a demo Company left without a key, the only Company) gets a
/// new key in its place.
///
/// The Company's record id is its slug, so two processes starting at once
/// cannot both create it: the loser sees `company_already_exists` and skips.
pub async fn ensure_demo_company(services: &Services) -> ApiResult<Option<Bootstrap>> {
    let companies = services.companies().await?;
    if companies.is_empty() {
        let created = services
            .create_company(NewCompany {
                slug: DEMO_COMPANY.to_string(),
                environment: Environment::Sandbox,
                language: Some("en".to_string()),
                languages: vec!["es".to_string()],
                rate_limits: None,
                locale: crate::resources::companies::service::LocaleChange::default(),
            })
            .await;
        match created {
            Ok(_) => {}
            Err(error) if error.code == ErrorCode::CompanyAlreadyExists => return Ok(None),
            Err(error) => return Err(error),
        }
        return bootstrap_key(services, Vec::new()).await.map(Some);
    }
    if !companies.iter().any(|company| company.slug == DEMO_COMPANY) {
        return Ok(None);
    }
    let unshown = services.store.unshown_keys(DEMO_COMPANY).await?;
    let keyless = companies.len() == 1 && services.store.keys(Some(DEMO_COMPANY)).await?.is_empty();
    if unshown.is_empty() && !keyless {
        return Ok(None);
    }
    for key in &unshown {
        services.store.retire_unshown_key(key).await?;
        services.gate.keys.forget(key);
    }
    if unshown.is_empty() {
        tracing::warn!(
            "the demo Company has no key (an earlier first start stopped before creating it): creating its system key"
        );
    } else {
        tracing::warn!(
            replaced = ?unshown,
            "the demo Company's system key was never shown (an earlier start stopped before printing it): a new one replaces it"
        );
    }
    bootstrap_key(services, unshown).await.map(Some)
}

/// A new system key of the demo Company, its secret yet to be shown.
async fn bootstrap_key(services: &Services, replaced: Vec<String>) -> ApiResult<Bootstrap> {
    let key = services
        .create_key_of_kind(
            NewKey {
                company: DEMO_COMPANY.to_string(),
                description: "Bootstrap key of the demo Company".to_string(),
                enabled: true,
            },
            KeyKind::Bootstrap,
        )
        .await?;
    Ok(Bootstrap { key, replaced })
}

impl Services {
    /// Records that the bootstrap key's secret was shown, so no later start
    /// replaces it.
    pub async fn bootstrap_shown(&self, bootstrap: &Bootstrap) -> ApiResult<()> {
        self.store.mark_secret_shown(&bootstrap.key.key.key).await
    }
}
