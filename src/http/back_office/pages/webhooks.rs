//! A Company's webhook endpoints: each with its latest deliveries (state,
//! tries, the receiver's last answer), a button that sends it a test event
//! and, on each delivery, one that sends it again.

use minijinja::context;
use poem::web::{Data, Path};
use poem::{Request, Response, handler};
use serde::Serialize;

use crate::error::ApiResult;
use crate::http::back_office::pages::companies::{company_path, refused};
use crate::http::back_office::pages::company_page::CompanyPage;
use crate::http::back_office::pages::render::{Pages, see_other};
use crate::http::back_office::pages::session::{Notice, Session};
use crate::resources::webhooks::model::{WebhookDelivery, WebhookEndpoint};
use crate::services::Services;

/// Deliveries shown under each endpoint.
const SHOWN_DELIVERIES: usize = 20;

/// An endpoint and its latest deliveries, newest first.
#[derive(Debug, Serialize)]
struct EndpointStanding {
    endpoint: WebhookEndpoint,
    deliveries: Vec<WebhookDelivery>,
}

/// The path of the Company's webhooks page.
fn webhooks_path(slug: &str) -> String {
    format!("{}/webhooks", company_path(slug))
}

/// `GET /companies/{slug}/webhooks`.
#[handler]
pub async fn show(request: &Request, page: CompanyPage<'_>) -> Response {
    let read = async {
        let mut endpoints = Vec::new();
        for endpoint in page.services.webhook_endpoints(&page.slug).await? {
            let deliveries = page
                .services
                .webhook_deliveries(&page.slug, &endpoint.id, SHOWN_DELIVERIES)
                .await?;
            endpoints.push(EndpointStanding {
                endpoint,
                deliveries,
            });
        }
        ApiResult::Ok(context! { slug => page.slug, endpoints, shown => SHOWN_DELIVERIES })
    }
    .await;
    page.show(request, "webhooks.html", read)
}

/// `POST /companies/{slug}/webhooks/{id}/test`: sends the endpoint a
/// `webhook.test` event.
#[handler]
pub async fn send_test(
    Path((slug, id)): Path<(String, String)>,
    Data(services): Data<&Services>,
    Data(pages): Data<&Pages>,
    Data(session): Data<&Session>,
) -> Response {
    let notice = match services.send_test_webhook(&slug, &id).await {
        Ok(sent) => Notice::ok(format!(
            "Test event {} sent to endpoint {id}.",
            sent.event_id
        )),
        Err(error) => refused(&error),
    };
    pages.sessions().tell(session, notice);
    see_other(&webhooks_path(&slug))
}

/// `POST /companies/{slug}/webhooks/{id}/deliveries/{event}/resend`: sends
/// the delivery of `event` to the endpoint again.
#[handler]
pub async fn resend(
    Path((slug, id, event)): Path<(String, String, String)>,
    Data(services): Data<&Services>,
    Data(pages): Data<&Pages>,
    Data(session): Data<&Session>,
) -> Response {
    let notice = match services.resend_webhook_delivery(&slug, &id, &event).await {
        Ok(_) => Notice::ok(format!("Event {event} is sent to endpoint {id} again.")),
        Err(error) => refused(&error),
    };
    pages.sessions().tell(session, notice);
    see_other(&webhooks_path(&slug))
}
