//! Authentication of integrator calls by X-Api-Key, X-Api-Secret and X-Api-Version.

use super::Services;
use crate::error::{ApiError, ApiResult};
use crate::model::Environment;
use crate::secrets::{constant_time_eq, secret_digest};

/// The only API version this service implements.
pub const SUPPORTED_API_VERSION: &str = "1";

/// A digest no real secret produces, compared against when the key is unknown so
/// that an unknown key costs the same work as a wrong secret.
const UNKNOWN_KEY_DIGEST: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The three authentication headers as received; any may be missing.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    /// X-Api-Key.
    pub key: Option<String>,
    /// X-Api-Secret.
    pub secret: Option<String>,
    /// X-Api-Version.
    pub version: Option<String>,
}

/// Who is calling: the Company (tenant) a valid key belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// Slug of the Company; every query of the request is scoped to it.
    pub company: String,
    /// Environment of the Company.
    pub environment: Environment,
    /// The key value used (public, safe to log).
    pub key: String,
}

impl Services {
    /// Checks credentials and returns the calling Company.
    ///
    /// Every failure is the same `Forbidden` error, and every path does the same
    /// work (one key lookup, one digest, one constant-time compare), so neither
    /// the answer nor its timing tells which part was wrong.
    pub async fn authenticate(&self, credentials: &Credentials) -> ApiResult<Caller> {
        let key = credentials.key.as_deref().unwrap_or_default();
        let secret = credentials.secret.as_deref().unwrap_or_default();
        let stored = if key.is_empty() {
            None
        } else {
            self.store.stored_key(key).await?
        };
        let expected = stored
            .as_ref()
            .map_or(UNKNOWN_KEY_DIGEST, |s| s.secret_digest.as_str());
        let secret_ok = constant_time_eq(expected, &secret_digest(key, secret));
        let version_ok = credentials.version.as_deref() == Some(SUPPORTED_API_VERSION);
        match stored {
            Some(stored)
                if secret_ok
                    && version_ok
                    && stored.key.enabled
                    && self
                        .serve_environment
                        .is_none_or(|env| env == stored.key.environment) =>
            {
                Ok(Caller {
                    company: stored.key.company,
                    environment: stored.key.environment,
                    key: stored.key.key,
                })
            }
            _ => Err(ApiError::forbidden()),
        }
    }
}
