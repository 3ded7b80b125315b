//! The back-office: operator-only management of Companies and API keys.
//!
//! The interface says keys are managed by operators, not through the integrator
//! endpoints. SurrealKV locks its directory, so while the server runs no other
//! process can open the store; the server therefore exposes this small API on a
//! loopback listener, guarded by an operator token, and the `loyalty keys` and
//! `loyalty companies` commands call it ([`crate::cli::back_office_client`]). When no server answers,
//! the commands open the store themselves and run the same use-cases.

use poem::middleware::Tracing;
use poem::{Endpoint, EndpointExt, Route};
use poem_openapi::OpenApiService;

use crate::http::errors::JsonErrors;
use crate::http::request_bounds::BodyLimit;
use crate::http::spec;
use crate::http::spec::errors::{Surface, declared_by};
use crate::services::Services;

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
);

/// Largest back-office request body: a catalogue import's whole file
/// (100,000 Products are about 15 MB of CSV). The listener is the
/// operator's, on loopback unless configured otherwise.
const MAX_BODY_BYTES: usize = 128 * 1024 * 1024;

/// The back-office application over `services`, accepting `token`.
pub fn app(services: Services, token: OperatorToken) -> impl Endpoint + 'static {
    let service = OpenApiService::new(
        BackOfficeGroups::default(),
        "loyalty back-office",
        env!("CARGO_PKG_VERSION"),
    );
    let spec_json = spec::finish(
        &service.spec(),
        Surface::BackOffice,
        &declared_by::<BackOfficeGroups>(),
    );
    let errors = JsonErrors::of_spec(&spec_json, services.undeclared_errors());
    Route::new()
        .at(
            "/openapi.json",
            poem::endpoint::make_sync(move |_| {
                poem::Response::builder()
                    .content_type(crate::error::JSON_CONTENT_TYPE)
                    .body(spec_json.clone())
            }),
        )
        .nest("/", service)
        .with(BodyLimit::new(MAX_BODY_BYTES))
        .with(errors)
        .with(Tracing)
        .data(services)
        .data(token)
}
