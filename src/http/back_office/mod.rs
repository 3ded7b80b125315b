//! The back-office: operator-only management of Companies, API keys and
//! campaigns, on its own listener (loopback by default).
//!
//! The interface says keys are managed by operators in "the back-office
//! application", not through the integrator endpoints. This listener serves
//! it twice: as a page for a browser at `/` ([`pages`], signed in with the
//! operator token), and as a JSON API under `/api` (`Authorization: Bearer`
//! with the token; its spec at `/openapi.json`), which the `loyalty keys`
//! and `loyalty companies` commands call ([`crate::cli::back_office_client`]).
//! SurrealKV locks its directory, so while the server runs no other process
//! can open the store; when no server answers, the commands open the store
//! themselves and run the same use-cases. `GET /metrics` ([`metrics`])
//! serves Prometheus with the same token.

pub mod metrics;
pub mod pages;

use poem::{Endpoint, EndpointExt, Route};
use poem_openapi::OpenApiService;

use crate::error::ApiResult;
use crate::http::errors::JsonErrors;
use crate::http::request_bounds::BodyLimit;
use crate::http::spec;
use crate::http::spec::errors::{Surface, declared_by};
use crate::services::Services;
use crate::telemetry::requests::{Observe, Operations};

/// The operator token the back-office accepts, attached to every request.
#[derive(Clone)]
pub struct OperatorToken(pub String);

impl std::fmt::Debug for OperatorToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OperatorToken(..)")
    }
}

/// Every group of the back-office.
pub type BackOfficeGroups = (
    crate::resources::companies::api::BackOfficeApi,
    crate::resources::companies::api::InstantWinAssignments,
    crate::resources::vouchers::bulk_api::VoucherBulkIssues,
    crate::resources::master_data::import_api::CatalogImports,
    crate::resources::companies::campaigns_api::CampaignFiles,
    (
        crate::resources::webhooks::api::WebhookEndpoints,
        crate::resources::exports::api::Exports,
    ),
);

/// Largest back-office request body: a catalogue import's whole file
/// (100,000 Products are about 15 MB of CSV). The listener is the
/// operator's, on loopback unless configured otherwise.
const MAX_BODY_BYTES: usize = 128 * 1024 * 1024;

/// Where the JSON API is mounted on the back-office listener.
pub const API_PREFIX: &str = "/api";

/// The back-office application over `services`, accepting `token`.
pub fn app(services: Services, token: OperatorToken) -> ApiResult<impl Endpoint + 'static> {
    let service = OpenApiService::new(
        BackOfficeGroups::default(),
        "loyalty back-office",
        env!("CARGO_PKG_VERSION"),
    )
    .server(API_PREFIX);
    let spec_json = spec::finish(
        &service.spec(),
        Surface::BackOffice,
        &declared_by::<BackOfficeGroups>(),
    );
    let errors = JsonErrors::of_spec(&spec_json, services.undeclared_errors());
    let operations_spec = spec_json.clone();
    let api = service.with(BodyLimit::new(MAX_BODY_BYTES)).with(errors);
    Ok(Route::new()
        .at(
            "/openapi.json",
            poem::endpoint::make_sync(move |_| {
                poem::Response::builder()
                    .content_type(crate::error::JSON_CONTENT_TYPE)
                    .body(spec_json.clone())
            }),
        )
        .at("/metrics", poem::get(metrics::scrape))
        .nest(API_PREFIX, api)
        .nest("/", pages::app()?)
        .with(Observe::new(
            "back_office",
            services.metrics.clone(),
            Operations::of_spec(&operations_spec, API_PREFIX, "page"),
        ))
        .data(services)
        .data(token))
}
