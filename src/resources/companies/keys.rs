//! API keys: created, listed, enabled and disabled by operators.

use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::companies::model::ApiKey;
use crate::resources::companies::model::CreatedApiKey;
use crate::secrets::new_key_value;
use crate::secrets::new_secret;
use crate::secrets::secret_digest;
use crate::services::Services;

/// Longest description an operator may give a key.
const MAX_DESCRIPTION_CHARS: usize = 200;

/// What an operator provides to create a key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewKey {
    /// Slug of the Company the key belongs to.
    pub company: String,
    /// Operator's label, e.g. `POS middleware, store 12`.
    pub description: String,
    /// Whether the key works from the start.
    #[serde(default = "default_enabled")]
    pub enabled: bool,
}

fn default_enabled() -> bool {
    true
}

/// Who a key is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyKind {
    /// Created by an operator; editable.
    Operator,
    /// The demo Company's system key, created at the first start and
    /// marked unshown until its secret is printed.
    Bootstrap,
}

impl Services {
    /// Creates an operator key and returns it with its secret (the only time
    /// the secret is available).
    pub async fn create_key(&self, new: NewKey) -> ApiResult<CreatedApiKey> {
        self.create_key_of_kind(new, KeyKind::Operator).await
    }

    /// Creates a key of `kind`.
    pub(crate) async fn create_key_of_kind(
        &self,
        new: NewKey,
        kind: KeyKind,
    ) -> ApiResult<CreatedApiKey> {
        let system = kind == KeyKind::Bootstrap;
        let description = new.description.trim().to_string();
        if description.is_empty() {
            return Err(ApiError::invalid("a key needs a description"));
        }
        if description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(ApiError::invalid(format!(
                "a key description has at most {MAX_DESCRIPTION_CHARS} characters"
            )));
        }
        let company = self.store.company(&new.company).await?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::CompanyNotFound,
                format!("Company `{}` does not exist", new.company),
            )
        })?;
        let now = self.now().as_datetime();
        let key = ApiKey {
            key: new_key_value(),
            company: company.slug,
            environment: company.environment,
            description,
            enabled: new.enabled,
            system,
            created_at: now,
            updated_at: now,
            last_used_at: None,
        };
        let secret = new_secret();
        self.store
            .create_key(&key, &secret_digest(&key.key, &secret), system)
            .await?;
        tracing::info!(key = %key.key, company = %key.company, system, "api key created");
        Ok(CreatedApiKey { key, secret })
    }

    /// Every key (without secrets), optionally of one Company.
    pub async fn keys(&self, company: Option<&str>) -> ApiResult<Vec<ApiKey>> {
        if let Some(slug) = company
            && self.store.company(slug).await?.is_none()
        {
            return Err(ApiError::new(
                ErrorCode::CompanyNotFound,
                format!("Company `{slug}` does not exist"),
            ));
        }
        self.with_latest_use(self.store.keys(company).await?)
    }

    /// Enables or disables a key. The record is always kept; system keys refuse.
    pub async fn set_key_enabled(&self, key: &str, enabled: bool) -> ApiResult<ApiKey> {
        let stored = self.store.stored_key(key).await?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::ApiKeyNotFound,
                format!("API key `{key}` does not exist"),
            )
        })?;
        if stored.key.system {
            return Err(system_key_refusal(key));
        }
        let updated = self
            .store
            .set_key_enabled(key, enabled)
            .await?
            .ok_or_else(|| system_key_refusal(key))?;
        self.gate.keys.forget(key);
        tracing::info!(key = %key, enabled, "api key updated");
        Ok(updated)
    }
}

fn system_key_refusal(key: &str) -> ApiError {
    ApiError::new(
        ErrorCode::SystemKeyNotEditable,
        format!(
            "API key `{key}` is a system key: it is managed by the platform and cannot be edited"
        ),
    )
}
