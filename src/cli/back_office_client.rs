//! How the operator commands reach the store: through a running server's
//! back-office listener, or, when none answers, by opening the store directly.

use crate::resources::master_data::import::rows::ImportFormat;
use crate::resources::master_data::import::{CatalogKind, ImportReport};
use crate::resources::master_data::references::FeatureCatalogue;
use crate::resources::vouchers::bulk::BulkIssue;
use crate::resources::vouchers::bulk::BulkIssued;
use crate::resources::webhooks::model::EndpointWithSecret;
use crate::resources::webhooks::model::NewWebhookEndpoint;
use crate::resources::webhooks::model::WebhookEndpoint;
use crate::resources::webhooks::model::WebhookEndpointChange;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::common::url::encode_component;
use crate::config::BackOfficeArgs;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::back_office::API_PREFIX;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::ApiKey;
use crate::resources::companies::model::Company;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::model::RateLimits;
use crate::resources::companies::service::LocaleChange;
use crate::resources::companies::service::NewCompany;
use crate::resources::vouchers::model::Voucher;
use crate::services::Services;
use crate::storage::RemoteAuth;
use crate::storage::Store;

/// A way to run back-office use-cases.
#[derive(Debug)]
pub enum BackOffice {
    /// A running server's back-office listener.
    Remote {
        /// HTTP client.
        client: reqwest::Client,
        /// Base URL, without trailing slash.
        base_url: String,
        /// Operator token.
        token: String,
    },
    /// The store itself, opened by this process (boxed: the handle is far
    /// larger than a client).
    Local(Box<Services>),
}

impl BackOffice {
    /// Connects as `args` say: the server at `--admin-url` if it answers,
    /// otherwise the store at `--db`.
    pub async fn connect(args: &BackOfficeArgs) -> ApiResult<BackOffice> {
        Self::connect_with_rules(args, None).await
    }

    /// The server at `--admin-url` when one answers; `None` otherwise (the
    /// store is then not opened).
    pub async fn connect_if_running(args: &BackOfficeArgs) -> ApiResult<Option<BackOffice>> {
        let base_url = args.admin_url.trim_end_matches('/').to_string();
        let client = reqwest::Client::new();
        let reachable = client
            .get(format!("{base_url}/openapi.json"))
            .send()
            .await
            .is_ok();
        if !reachable {
            return Ok(None);
        }
        Ok(Some(BackOffice::Remote {
            client,
            token: read_token(args)?,
            base_url,
        }))
    }

    /// Like [`BackOffice::connect`]; when it opens the store itself, it loads
    /// the campaign files of `campaigns` (for commands that need them).
    pub async fn connect_with_rules(
        args: &BackOfficeArgs,
        campaigns: Option<&Path>,
    ) -> ApiResult<BackOffice> {
        if let Some(running) = Self::connect_if_running(args).await? {
            return Ok(running);
        }
        let base_url = args.admin_url.trim_end_matches('/').to_string();
        if args.store.url.starts_with("mem://") {
            return Err(ApiError::new(
                ErrorCode::StoreUnavailable,
                format!(
                    "no server answers at {base_url}, and the store {} is in-memory: start the server or pass --admin-url",
                    args.store.url
                ),
            ));
        }
        let remote_auth = args.store.user.clone().map(|username| RemoteAuth {
            username,
            password: args.store.password.clone().unwrap_or_default(),
        });
        // One command's few queries: one connection is enough.
        let store = Store::connect_with(&args.store.url, remote_auth, 1).await.map_err(|e| {
            ApiError::new(
                ErrorCode::StoreUnavailable,
                format!(
                    "no server answers at {base_url}, and opening the store directly failed: {}",
                    e.message
                ),
            )
        })?;
        let catalog = match campaigns {
            Some(dir) => {
                let (catalog, report) = crate::engine::catalog::Catalog::load(dir);
                if let Some(error) = report.errors.first() {
                    return Err(ApiError::invalid(format!(
                        "the campaign files do not load: {error}"
                    )));
                }
                catalog
            }
            None => crate::engine::catalog::Catalog::empty(),
        };
        Ok(BackOffice::Local(Box::new(Services::new(
            store,
            None,
            std::sync::Arc::new(catalog),
        ))))
    }

    /// Creates a Company.
    pub async fn create_company(&self, new: NewCompany) -> ApiResult<Company> {
        match self {
            BackOffice::Local(services) => services.create_company(new).await,
            BackOffice::Remote { .. } => {
                self.call("POST", "/companies", Some(to_body(&new)?)).await
            }
        }
    }

    /// Sets a Company's rate limits.
    pub async fn set_rate_limits(&self, slug: &str, limits: RateLimits) -> ApiResult<Company> {
        match self {
            BackOffice::Local(services) => services.set_rate_limits(slug, limits).await,
            BackOffice::Remote { .. } => {
                let path = format!("/companies/{}/rate_limits", encode_component(slug));
                self.call("POST", &path, Some(to_body(&limits)?)).await
            }
        }
    }

    /// Sets a Company's currency, minor unit or time zone.
    pub async fn set_locale(&self, slug: &str, change: LocaleChange) -> ApiResult<Company> {
        match self {
            BackOffice::Local(services) => services.set_locale(slug, change).await,
            BackOffice::Remote { .. } => {
                let path = format!("/companies/{}/locale", encode_component(slug));
                self.call("POST", &path, Some(to_body(&change)?)).await
            }
        }
    }

    /// Lists Companies.
    pub async fn companies(&self) -> ApiResult<Vec<Company>> {
        match self {
            BackOffice::Local(services) => services.companies().await,
            BackOffice::Remote { .. } => {
                let list: Value = self.call("GET", "/companies", None).await?;
                from_value(list["companies"].clone())
            }
        }
    }

    /// Creates a key.
    pub async fn create_key(&self, new: NewKey) -> ApiResult<CreatedApiKey> {
        match self {
            BackOffice::Local(services) => services.create_key(new).await,
            BackOffice::Remote { .. } => self.call("POST", "/keys", Some(to_body(&new)?)).await,
        }
    }

    /// Lists keys, optionally of one Company.
    pub async fn keys(&self, company: Option<&str>) -> ApiResult<Vec<ApiKey>> {
        match self {
            BackOffice::Local(services) => services.keys(company).await,
            BackOffice::Remote { .. } => {
                let path = match company {
                    Some(slug) => format!("/keys?company={}", encode_component(slug)),
                    None => "/keys".to_string(),
                };
                let list: Value = self.call("GET", &path, None).await?;
                from_value(list["keys"].clone())
            }
        }
    }

    /// Creates a webhook endpoint of `company`.
    pub async fn create_webhook_endpoint(
        &self,
        company: &str,
        new: NewWebhookEndpoint,
    ) -> ApiResult<EndpointWithSecret> {
        match self {
            BackOffice::Local(services) => services.create_webhook_endpoint(company, new).await,
            BackOffice::Remote { .. } => {
                let path = webhooks_path(company, None);
                self.call("POST", &path, Some(to_body(&new)?)).await
            }
        }
    }

    /// The webhook endpoints of `company`.
    pub async fn webhook_endpoints(&self, company: &str) -> ApiResult<Vec<WebhookEndpoint>> {
        match self {
            BackOffice::Local(services) => services.webhook_endpoints(company).await,
            BackOffice::Remote { .. } => {
                let list: Value = self
                    .call("GET", &webhooks_path(company, None), None)
                    .await?;
                from_value(list["endpoints"].clone())
            }
        }
    }

    /// Changes the webhook endpoint `id` of `company`.
    pub async fn update_webhook_endpoint(
        &self,
        company: &str,
        id: &str,
        change: WebhookEndpointChange,
    ) -> ApiResult<WebhookEndpoint> {
        match self {
            BackOffice::Local(services) => {
                services.update_webhook_endpoint(company, id, change).await
            }
            BackOffice::Remote { .. } => {
                let path = webhooks_path(company, Some(id));
                self.call("PATCH", &path, Some(to_body(&change)?)).await
            }
        }
    }

    /// Gives the webhook endpoint `id` of `company` a new secret.
    pub async fn rotate_webhook_secret(
        &self,
        company: &str,
        id: &str,
    ) -> ApiResult<EndpointWithSecret> {
        match self {
            BackOffice::Local(services) => services.rotate_webhook_secret(company, id).await,
            BackOffice::Remote { .. } => {
                let path = format!("{}/rotate-secret", webhooks_path(company, Some(id)));
                self.call("POST", &path, None).await
            }
        }
    }

    /// Deletes the webhook endpoint `id` of `company`.
    pub async fn delete_webhook_endpoint(&self, company: &str, id: &str) -> ApiResult<()> {
        match self {
            BackOffice::Local(services) => services.delete_webhook_endpoint(company, id).await,
            BackOffice::Remote { .. } => {
                let _: Value = self
                    .call("DELETE", &webhooks_path(company, Some(id)), None)
                    .await?;
                Ok(())
            }
        }
    }

    /// Enables or disables a key.
    pub async fn set_key_enabled(&self, key: &str, enabled: bool) -> ApiResult<ApiKey> {
        match self {
            BackOffice::Local(services) => services.set_key_enabled(key, enabled).await,
            BackOffice::Remote { .. } => {
                let action = if enabled { "enable" } else { "disable" };
                let path = format!("/keys/{}/{action}", encode_component(key));
                self.call("POST", &path, None).await
            }
        }
    }

    /// Assigns the targeted Instant Win `rule_id` of `company` to Customers;
    /// returns their Vouchers.
    pub async fn assign_instant_win(
        &self,
        company: &str,
        rule_id: i64,
        customer_ids: &[String],
    ) -> ApiResult<Vec<Voucher>> {
        match self {
            BackOffice::Local(services) => {
                services
                    .assign_instant_win(company, rule_id, customer_ids)
                    .await
            }
            BackOffice::Remote { .. } => {
                let path = format!(
                    "/companies/{}/instant_wins/{rule_id}/assignments",
                    encode_component(company)
                );
                let body = serde_json::json!({ "customer_ids": customer_ids });
                let answer: Value = self.call("POST", &path, Some(body)).await?;
                from_value(answer["vouchers"].clone())
            }
        }
    }

    /// Issues a part of a bulk issue of the Coupon `coupon_id` of `company`.
    pub async fn bulk_issue(
        &self,
        company: &str,
        coupon_id: i64,
        issue: BulkIssue,
    ) -> ApiResult<BulkIssued> {
        match self {
            BackOffice::Local(services) => services.bulk_issue(company, coupon_id, issue).await,
            BackOffice::Remote { .. } => {
                let path = format!(
                    "/companies/{}/coupons/{coupon_id}/vouchers",
                    encode_component(company)
                );
                self.call("POST", &path, Some(to_body(&issue)?)).await
            }
        }
    }

    /// The Company's taxonomies and features.
    pub async fn feature_catalogue(&self, company: &str) -> ApiResult<FeatureCatalogue> {
        match self {
            BackOffice::Local(services) => services.feature_catalogue(company).await,
            BackOffice::Remote { .. } => {
                let path = format!("/companies/{}/catalog/features", encode_component(company));
                self.call("GET", &path, None).await
            }
        }
    }

    /// Imports `text` (a catalogue file) into the Company's catalogue.
    pub async fn import_catalog(
        &self,
        company: &str,
        kind: CatalogKind,
        format: ImportFormat,
        text: String,
    ) -> ApiResult<ImportReport> {
        match self {
            BackOffice::Local(services) => {
                services.import_catalog(company, kind, format, &text).await
            }
            BackOffice::Remote {
                client,
                base_url,
                token,
            } => {
                // The names the query takes are the enums' serde names.
                let name = |value: Value| value.as_str().unwrap_or_default().to_string();
                let url = format!(
                    "{base_url}{API_PREFIX}/companies/{}/catalog/import?kind={}&format={}",
                    encode_component(company),
                    name(serde_json::json!(kind)),
                    name(serde_json::json!(format)),
                );
                let response = client
                    .post(&url)
                    .bearer_auth(token)
                    .header("Content-Type", "text/plain; charset=utf-8")
                    .body(text)
                    .send()
                    .await
                    .map_err(|e| {
                        ApiError::new(ErrorCode::StoreUnavailable, format!("calling {url}: {e}"))
                    })?;
                answer(&url, response).await
            }
        }
    }

    async fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> ApiResult<T> {
        let BackOffice::Remote {
            client,
            base_url,
            token,
        } = self
        else {
            return Err(ApiError::internal("remote call on a local back-office"));
        };
        let url = format!("{base_url}{API_PREFIX}{path}");
        let body = body.unwrap_or(Value::Object(Default::default()));
        let request = match method {
            "POST" => client.post(&url).json(&body),
            "PATCH" => client.patch(&url).json(&body),
            "DELETE" => client.delete(&url),
            _ => client.get(&url),
        };
        let response = request.bearer_auth(token).send().await.map_err(|e| {
            ApiError::new(ErrorCode::StoreUnavailable, format!("calling {url}: {e}"))
        })?;
        answer(&url, response).await
    }
}

/// The back office's answer from `url`: its body when it succeeded, its
/// error otherwise.
pub(crate) async fn answer<T: DeserializeOwned>(
    url: &str,
    response: reqwest::Response,
) -> ApiResult<T> {
    let status = response.status();
    let value: Value = response.json().await.map_err(|e| {
        ApiError::new(
            ErrorCode::ServerError,
            format!("unreadable answer from {url} ({status}): {e}"),
        )
    })?;
    if status.is_success() {
        return from_value(value);
    }
    let code = value["code"]
        .as_str()
        .and_then(ErrorCode::from_code)
        .unwrap_or(ErrorCode::ServerError);
    let message = value["error"]
        .as_str()
        .unwrap_or("the back-office refused the request")
        .to_string();
    Err(ApiError::new(code, message))
}

/// The operator token from `--admin-token` or the file the server wrote.
fn read_token(args: &BackOfficeArgs) -> ApiResult<String> {
    if let Some(token) = &args.operator.admin_token {
        return Ok(token.clone());
    }
    read_token_file(&args.operator.admin_token_file)
}

fn read_token_file(path: &Path) -> ApiResult<String> {
    std::fs::read_to_string(path)
        .map(|token| token.trim().to_string())
        .map_err(|e| {
            ApiError::new(
                ErrorCode::OperatorUnauthorized,
                format!(
                    "a server is running but its operator token could not be read from {} ({e}); \
                     pass --admin-token or set LOYALTY_ADMIN_TOKEN",
                    path.display()
                ),
            )
        })
}

/// The back office's path of `company`'s webhook endpoints, or of one.
fn webhooks_path(company: &str, id: Option<&str>) -> String {
    let endpoints = format!("/companies/{}/webhooks", encode_component(company));
    match id {
        Some(id) => format!("{endpoints}/{}", encode_component(id)),
        None => endpoints,
    }
}

fn to_body<T: serde::Serialize>(value: &T) -> ApiResult<Value> {
    serde_json::to_value(value).map_err(ApiError::internal)
}

fn from_value<T: DeserializeOwned>(value: Value) -> ApiResult<T> {
    serde_json::from_value(value)
        .map_err(|e| ApiError::new(ErrorCode::ServerError, format!("unexpected answer: {e}")))
}
