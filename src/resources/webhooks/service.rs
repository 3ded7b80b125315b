//! The use-cases of webhook endpoints: an operator creates one (its
//! signing secret shown once), lists, changes, gives a new secret to and
//! deletes them, sends one a test event, reads its latest deliveries and
//! sends one again.

use serde_json::json;

use crate::common::ids::time_ordered_id;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::webhooks::events::TEST_EVENT;
use crate::resources::webhooks::events::checked_events;
use crate::resources::webhooks::groups::EventGroup;
use crate::resources::webhooks::model::EndpointWithSecret;
use crate::resources::webhooks::model::NewWebhookEndpoint;
use crate::resources::webhooks::model::WebhookDelivery;
use crate::resources::webhooks::model::WebhookEndpoint;
use crate::resources::webhooks::model::WebhookEndpointChange;
use crate::resources::webhooks::receiver::checked_receiver;
use crate::resources::webhooks::store::StoredEndpoint;
use crate::secrets::new_webhook_secret;
use crate::services::Services;

/// The refusal when `id` names no endpoint of `company`.
fn not_found(company: &str, id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::WebhookEndpointNotFound,
        format!("Company `{company}` has no webhook endpoint `{id}`"),
    )
}

/// `description` as kept: trimmed, none when blank.
fn kept_description(description: Option<String>) -> Option<String> {
    description
        .map(|text| text.trim().to_string())
        .filter(|text| !text.is_empty())
}

impl Services {
    /// Creates an endpoint of `company` receiving `new.events` at `new.url`;
    /// its secret is in this answer only.
    pub async fn create_webhook_endpoint(
        &self,
        company: &str,
        new: NewWebhookEndpoint,
    ) -> ApiResult<EndpointWithSecret> {
        self.company(company).await?;
        let events = checked_events(&new.events)?;
        let (url, _) = checked_receiver(&new.url, self.webhooks.settings).await?;
        let now = self.now();
        let stored = StoredEndpoint {
            endpoint: WebhookEndpoint {
                id: time_ordered_id("whe"),
                company: company.to_string(),
                url: url.to_string(),
                events,
                description: kept_description(new.description),
                enabled: new.enabled.unwrap_or(true),
                created_at: now,
                updated_at: now,
            },
            secret: new_webhook_secret(),
        };
        self.store.insert_webhook_endpoint(&stored).await?;
        self.refresh_webhook_subscriptions().await?;
        tracing::info!(company, endpoint = %stored.endpoint.id, url = %stored.endpoint.url, "webhook endpoint created");
        Ok(EndpointWithSecret {
            endpoint: stored.endpoint,
            secret: stored.secret,
        })
    }

    /// Every endpoint of `company`, oldest first, without their secrets.
    pub async fn webhook_endpoints(&self, company: &str) -> ApiResult<Vec<WebhookEndpoint>> {
        self.company(company).await?;
        let stored = self.store.webhook_endpoints(company).await?;
        Ok(stored.into_iter().map(|stored| stored.endpoint).collect())
    }

    /// The endpoint `id` of `company`, with its secret.
    async fn stored_webhook_endpoint(&self, company: &str, id: &str) -> ApiResult<StoredEndpoint> {
        self.company(company).await?;
        self.store
            .webhook_endpoint(company, id)
            .await?
            .ok_or_else(|| not_found(company, id))
    }

    /// Stores `stored` over the endpoint it replaces, refreshed.
    async fn replace_webhook_endpoint(
        &self,
        mut stored: StoredEndpoint,
    ) -> ApiResult<StoredEndpoint> {
        stored.endpoint.updated_at = self.now();
        if !self.store.replace_webhook_endpoint(&stored).await? {
            return Err(not_found(&stored.endpoint.company, &stored.endpoint.id));
        }
        Ok(stored)
    }

    /// Changes what `change` names of the endpoint `id` of `company`.
    pub async fn update_webhook_endpoint(
        &self,
        company: &str,
        id: &str,
        change: WebhookEndpointChange,
    ) -> ApiResult<WebhookEndpoint> {
        let mut stored = self.stored_webhook_endpoint(company, id).await?;
        let endpoint = &mut stored.endpoint;
        if let Some(url) = &change.url {
            endpoint.url = checked_receiver(url, self.webhooks.settings)
                .await?
                .0
                .to_string();
        }
        if let Some(events) = &change.events {
            endpoint.events = checked_events(events)?;
        }
        if change.description.is_some() {
            endpoint.description = kept_description(change.description);
        }
        if let Some(enabled) = change.enabled {
            endpoint.enabled = enabled;
        }
        let stored = self.replace_webhook_endpoint(stored).await?;
        self.refresh_webhook_subscriptions().await?;
        tracing::info!(company, endpoint = id, "webhook endpoint changed");
        Ok(stored.endpoint)
    }

    /// Gives the endpoint `id` of `company` a new signing secret, answered
    /// once; deliveries are signed with it from now on.
    pub async fn rotate_webhook_secret(
        &self,
        company: &str,
        id: &str,
    ) -> ApiResult<EndpointWithSecret> {
        let mut stored = self.stored_webhook_endpoint(company, id).await?;
        stored.secret = new_webhook_secret();
        let stored = self.replace_webhook_endpoint(stored).await?;
        tracing::info!(company, endpoint = id, "webhook endpoint secret rotated");
        Ok(EndpointWithSecret {
            endpoint: stored.endpoint,
            secret: stored.secret,
        })
    }

    /// Deletes the endpoint `id` of `company`.
    pub async fn delete_webhook_endpoint(&self, company: &str, id: &str) -> ApiResult<()> {
        self.company(company).await?;
        if !self.store.delete_webhook_endpoint(company, id).await? {
            return Err(not_found(company, id));
        }
        self.refresh_webhook_subscriptions().await?;
        tracing::info!(company, endpoint = id, "webhook endpoint deleted");
        Ok(())
    }

    /// Sends the endpoint `id` of `company` a test event (`webhook.test`),
    /// whatever it subscribes to; answers its delivery, pending.
    pub async fn send_test_webhook(&self, company: &str, id: &str) -> ApiResult<WebhookDelivery> {
        let stored = self.stored_webhook_endpoint(company, id).await?;
        let data = json!({
            "endpoint_id": id,
            "url": stored.endpoint.url,
            "message": "A test event from loyalty: the endpoint is reached and its signature checks.",
        });
        let webhooks = &self.store.memory.webhooks;
        let events = vec![(TEST_EVENT, data, self.now())];
        let groups = EventGroup::numbered(
            webhooks.next_event_id(),
            || webhooks.next_event_id(),
            company,
            None,
            events,
        );
        let rows = groups
            .iter()
            .filter_map(|group| group.row(company, id, |_| true))
            .collect();
        let event = groups
            .first()
            .and_then(|group| group.events.first())
            .map(|event| event.id.clone())
            .unwrap_or_default();
        self.store.insert_webhook_deliveries(rows).await?;
        webhooks.touch(company, id);
        tracing::info!(company, endpoint = id, %event, "webhook test event sent");
        self.webhook_delivery(company, id, &event).await
    }

    /// The latest `limit` deliveries to the endpoint `id` of `company`,
    /// newest first.
    pub async fn webhook_deliveries(
        &self,
        company: &str,
        id: &str,
        limit: usize,
    ) -> ApiResult<Vec<WebhookDelivery>> {
        self.stored_webhook_endpoint(company, id).await?;
        self.store.webhook_deliveries(company, id, limit).await
    }

    /// The delivery of `event` to the endpoint `id` of `company`.
    async fn webhook_delivery(
        &self,
        company: &str,
        id: &str,
        event: &str,
    ) -> ApiResult<WebhookDelivery> {
        self.store
            .webhook_delivery(company, id, event)
            .await?
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::WebhookDeliveryNotFound,
                    format!("webhook endpoint `{id}` has no delivery of `{event}`"),
                )
            })
    }

    /// Sends the delivery of `event` to the endpoint `id` of `company`
    /// again, from now (tried for another 24 hours); answers it, pending.
    pub async fn resend_webhook_delivery(
        &self,
        company: &str,
        id: &str,
        event: &str,
    ) -> ApiResult<WebhookDelivery> {
        self.stored_webhook_endpoint(company, id).await?;
        self.webhook_delivery(company, id, event).await?;
        self.store
            .resend_webhook_delivery(company, id, event, self.now())
            .await?;
        self.store.memory.webhooks.rewind(company, id);
        tracing::info!(company, endpoint = id, event, "webhook delivery sent again");
        self.webhook_delivery(company, id, event).await
    }
}
