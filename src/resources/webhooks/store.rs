//! Repository of webhook endpoints: one record each, keyed by its Company
//! and id, holding its signing secret beside what the back office shows.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::webhooks::emit::EndpointKey;
use crate::resources::webhooks::model::WebhookEndpoint;
use crate::resources::webhooks::outbox::endpoint_range;
use crate::storage::Store;
use crate::storage::execute;
use crate::storage::first;
use crate::storage::store_error;

/// An endpoint with the secret its deliveries are signed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEndpoint {
    /// The endpoint.
    pub endpoint: WebhookEndpoint,
    /// Its signing secret.
    pub secret: String,
}

/// `stored` as its record holds it.
fn document(stored: &StoredEndpoint) -> ApiResult<Value> {
    let mut document = serde_json::to_value(&stored.endpoint).map_err(ApiError::internal)?;
    if let Some(id) = document.as_object_mut().and_then(|o| o.remove("id")) {
        document["endpoint_id"] = id;
    }
    document["secret"] = json!(stored.secret);
    Ok(document)
}

/// A record read back.
fn from_document(mut document: Value) -> ApiResult<StoredEndpoint> {
    let unreadable =
        |e: String| ApiError::internal(format!("stored webhook endpoint unreadable: {e}"));
    let object = document
        .as_object_mut()
        .ok_or_else(|| unreadable("not an object".into()))?;
    object.remove("id");
    let secret = object
        .remove("secret")
        .and_then(|secret| secret.as_str().map(str::to_string))
        .ok_or_else(|| unreadable("no secret".into()))?;
    if let Some(id) = object.remove("endpoint_id") {
        object.insert("id".into(), id);
    }
    let endpoint = serde_json::from_value(document).map_err(|e| unreadable(e.to_string()))?;
    Ok(StoredEndpoint { endpoint, secret })
}

impl Store {
    /// Stores a new endpoint.
    pub async fn insert_webhook_endpoint(&self, stored: &StoredEndpoint) -> ApiResult<()> {
        let endpoint = &stored.endpoint;
        execute(
            self.db
                .query("CREATE type::record('webhook_endpoint', [$company, $id]) CONTENT $doc RETURN NONE")
                .bind(("company", endpoint.company.clone()))
                .bind(("id", endpoint.id.clone()))
                .bind(("doc", document(stored)?)),
        )
        .await
    }

    /// Replaces the stored endpoint with `stored`, when it is still there;
    /// false when it was deleted meanwhile.
    pub async fn replace_webhook_endpoint(&self, stored: &StoredEndpoint) -> ApiResult<bool> {
        let endpoint = &stored.endpoint;
        // UPDATE changes a record that exists and creates none.
        let replaced: Vec<Value> = first(
            self.db
                .query("UPDATE type::record('webhook_endpoint', [$company, $id]) CONTENT $doc RETURN VALUE true")
                .bind(("company", endpoint.company.clone()))
                .bind(("id", endpoint.id.clone()))
                .bind(("doc", document(stored)?)),
        )
        .await?;
        Ok(!replaced.is_empty())
    }

    /// The endpoint `id` of `company`, with its secret.
    pub async fn webhook_endpoint(
        &self,
        company: &str,
        id: &str,
    ) -> ApiResult<Option<StoredEndpoint>> {
        let document: Option<Value> = first(
            self.db
                .query("RETURN type::record('webhook_endpoint', [$company, $id]).*")
                .bind(("company", company.to_string()))
                .bind(("id", id.to_string())),
        )
        .await?;
        document.map(from_document).transpose()
    }

    /// Every enabled endpoint of every Company, with its secret.
    pub(crate) async fn enabled_webhook_endpoints(
        &self,
    ) -> ApiResult<HashMap<EndpointKey, StoredEndpoint>> {
        let documents: Vec<Value> = first(
            self.db
                .query("SELECT * FROM webhook_endpoint WHERE enabled = true"),
        )
        .await?;
        let mut endpoints = HashMap::new();
        for document in documents {
            let stored = from_document(document)?;
            let key = (stored.endpoint.company.clone(), stored.endpoint.id.clone());
            endpoints.insert(key, stored);
        }
        Ok(endpoints)
    }

    /// Every endpoint of every Company, enabled or not.
    pub(crate) async fn webhook_endpoint_keys(&self) -> ApiResult<Vec<EndpointKey>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT company, endpoint_id FROM webhook_endpoint"),
        )
        .await?;
        Ok(rows
            .iter()
            .filter_map(|row| {
                Some((
                    row["company"].as_str()?.to_string(),
                    row["endpoint_id"].as_str()?.to_string(),
                ))
            })
            .collect())
    }

    /// Every endpoint of `company`, oldest first.
    pub async fn webhook_endpoints(&self, company: &str) -> ApiResult<Vec<StoredEndpoint>> {
        let documents: Vec<Value> = first(
            self.db
                .query("SELECT * FROM webhook_endpoint WHERE company = $company ORDER BY created_at, endpoint_id")
                .bind(("company", company.to_string())),
        )
        .await?;
        documents.into_iter().map(from_document).collect()
    }

    /// Deletes the endpoint `id` of `company` with its deliveries, in one
    /// transaction; false when there was none.
    pub async fn delete_webhook_endpoint(&self, company: &str, id: &str) -> ApiResult<bool> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record('webhook_endpoint', [$company, $endpoint]);
             LET $existed = record::exists($key);
             DELETE $key RETURN NONE;
             DELETE {} RETURN NONE;
             DELETE {} RETURN NONE;
             $existed;
             COMMIT TRANSACTION;",
            endpoint_range("webhook_outbox"),
            endpoint_range("webhook_delivery"),
        );
        let mut response = self
            .transact(|db| {
                db.query(query.as_str())
                    .bind(("company", company.to_string()))
                    .bind(("endpoint", id.to_string()))
            })
            .await?;
        let index = response.num_statements().saturating_sub(2);
        let existed: Option<bool> = response.take(index).map_err(store_error)?;
        Ok(existed.unwrap_or(false))
    }
}
