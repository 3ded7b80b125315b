//! The back office's webhook endpoints: `/api/companies/{slug}/webhooks`,
//! called by `loyalty webhooks`.

use poem::Request;
use poem_openapi::OpenApi;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;

use crate::error::ErrorCode;
use crate::http::errors::ErrorResponse;
use crate::http::services;
use crate::http::spec::errors::api_with_errors;
use crate::resources::companies::api::OperatorAuth;
use crate::resources::webhooks::model::DeletedWebhookEndpoint;
use crate::resources::webhooks::model::EndpointWithSecret;
use crate::resources::webhooks::model::NewWebhookEndpoint;
use crate::resources::webhooks::model::WebhookDelivery;
use crate::resources::webhooks::model::WebhookDeliveryList;
use crate::resources::webhooks::model::WebhookEndpoint;
use crate::resources::webhooks::model::WebhookEndpointChange;
use crate::resources::webhooks::model::WebhookEndpointList;

api_with_errors! {
    /// Operator-only management of webhook endpoints.
    WebhookEndpoints {
        "POST /companies/{slug}/webhooks" => [ErrorCode::CompanyNotFound, ErrorCode::WebhookUrlRefused],
        "GET /companies/{slug}/webhooks" => [ErrorCode::CompanyNotFound],
        "PATCH /companies/{slug}/webhooks/{id}" => [
            ErrorCode::CompanyNotFound,
            ErrorCode::WebhookEndpointNotFound,
            ErrorCode::WebhookUrlRefused,
        ],
        "POST /companies/{slug}/webhooks/{id}/rotate-secret" => [
            ErrorCode::CompanyNotFound,
            ErrorCode::WebhookEndpointNotFound,
        ],
        "DELETE /companies/{slug}/webhooks/{id}" => [
            ErrorCode::CompanyNotFound,
            ErrorCode::WebhookEndpointNotFound,
        ],
        "POST /companies/{slug}/webhooks/{id}/test" => [
            ErrorCode::CompanyNotFound,
            ErrorCode::WebhookEndpointNotFound,
        ],
        "GET /companies/{slug}/webhooks/{id}/deliveries" => [
            ErrorCode::CompanyNotFound,
            ErrorCode::WebhookEndpointNotFound,
        ],
        "POST /companies/{slug}/webhooks/{id}/deliveries/{event}/resend" => [
            ErrorCode::CompanyNotFound,
            ErrorCode::WebhookEndpointNotFound,
            ErrorCode::WebhookDeliveryNotFound,
        ],
    }
}

#[OpenApi]
impl WebhookEndpoints {
    /// Create a webhook endpoint: where the Company's events of the types
    /// named are POSTed, signed (`Loyalty-Signature`). The answer is the
    /// only one that shows its signing secret.
    #[oai(path = "/companies/:slug/webhooks", method = "post")]
    async fn create(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        body: Json<NewWebhookEndpoint>,
    ) -> Result<Json<EndpointWithSecret>, ErrorResponse> {
        let services = services(request)?;
        Ok(Json(
            services.create_webhook_endpoint(&slug.0, body.0).await?,
        ))
    }

    /// List the Company's webhook endpoints (without their secrets).
    #[oai(path = "/companies/:slug/webhooks", method = "get")]
    async fn list(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
    ) -> Result<Json<WebhookEndpointList>, ErrorResponse> {
        let endpoints = services(request)?.webhook_endpoints(&slug.0).await?;
        Ok(Json(WebhookEndpointList { endpoints }))
    }

    /// Change a webhook endpoint: its URL, the event types it receives,
    /// its note, whether it is enabled. What is omitted stays.
    #[oai(path = "/companies/:slug/webhooks/:id", method = "patch")]
    async fn update(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        id: Path<String>,
        body: Json<WebhookEndpointChange>,
    ) -> Result<Json<WebhookEndpoint>, ErrorResponse> {
        let services = services(request)?;
        Ok(Json(
            services
                .update_webhook_endpoint(&slug.0, &id.0, body.0)
                .await?,
        ))
    }

    /// Give a webhook endpoint a new signing secret, shown in this answer
    /// only; deliveries are signed with it from now on.
    #[oai(path = "/companies/:slug/webhooks/:id/rotate-secret", method = "post")]
    async fn rotate_secret(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        id: Path<String>,
    ) -> Result<Json<EndpointWithSecret>, ErrorResponse> {
        let services = services(request)?;
        Ok(Json(services.rotate_webhook_secret(&slug.0, &id.0).await?))
    }

    /// Delete a webhook endpoint.
    #[oai(path = "/companies/:slug/webhooks/:id", method = "delete")]
    async fn delete(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        id: Path<String>,
    ) -> Result<Json<DeletedWebhookEndpoint>, ErrorResponse> {
        services(request)?
            .delete_webhook_endpoint(&slug.0, &id.0)
            .await?;
        Ok(Json(DeletedWebhookEndpoint {
            id: id.0,
            deleted: true,
        }))
    }

    /// Send a webhook endpoint a test event (`webhook.test`), whatever it
    /// subscribes to: signed and tried like any other. Answers its
    /// delivery, pending.
    #[oai(path = "/companies/:slug/webhooks/:id/test", method = "post")]
    async fn test(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        id: Path<String>,
    ) -> Result<Json<WebhookDelivery>, ErrorResponse> {
        let services = services(request)?;
        Ok(Json(services.send_test_webhook(&slug.0, &id.0).await?))
    }

    /// A webhook endpoint's latest deliveries, newest first: each event's
    /// state, tries and last answer.
    #[oai(path = "/companies/:slug/webhooks/:id/deliveries", method = "get")]
    async fn deliveries(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        id: Path<String>,
        /// How many, 1 to 500 (default 50).
        #[oai(
            default = "default_limit",
            validator(minimum(value = "1"), maximum(value = "500"))
        )]
        limit: Query<usize>,
    ) -> Result<Json<WebhookDeliveryList>, ErrorResponse> {
        let deliveries = services(request)?
            .webhook_deliveries(&slug.0, &id.0, limit.0)
            .await?;
        Ok(Json(WebhookDeliveryList { deliveries }))
    }

    /// Send a delivery again, whatever it came to: tried from now, with
    /// the same event id and body, for another 24 hours.
    #[oai(
        path = "/companies/:slug/webhooks/:id/deliveries/:event/resend",
        method = "post"
    )]
    async fn resend(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        id: Path<String>,
        event: Path<String>,
    ) -> Result<Json<WebhookDelivery>, ErrorResponse> {
        let services = services(request)?;
        Ok(Json(
            services
                .resend_webhook_delivery(&slug.0, &id.0, &event.0)
                .await?,
        ))
    }
}

/// Deliveries listed when the request says nothing.
fn default_limit() -> usize {
    50
}
