//! The integrator HTTP API: routes, authentication, error bodies and the spec.
//!
//! Each resource folder's `api.rs` is a poem-openapi `#[OpenApi]` struct,
//! joined here in [`ApiGroups`]. Handlers parse, call the use-cases on
//! [`crate::services::Services`], and map the result; they never touch the
//! store (checked by `src/layer_rules.rs`).
//!
//! Requests the HTTP parser itself refuses (a bare CR in a header, a URL or
//! headers too large) get the same error body through [`wire_errors`].
//! Every request passes, outermost first: its id, span, log line and
//! metrics ([`crate::telemetry::requests`]), JSON error bodies, the
//! request timeout, the body limit, admission ([`admission`]), the store's
//! reachability ([`store_gate`]), authentication ([`crate::http::auth::Authenticate`]),
//! Idempotency-Keys ([`idempotency`]), the response language, the
//! rate-limit headers, and the request-shape check ([`shape`]: every JSON
//! body against its schema in the spec); each handler's `Tier1`/`Tier2`/`Tier3` argument checks
//! the credentials' outcome and charges the Company's quota.

pub mod admission;
pub mod auth;
pub mod author;
pub mod back_office;
pub mod errors;
pub mod gate;
pub mod idempotency;
pub mod languages;
pub mod params;

pub mod rate_limits;
pub mod request_bounds;
pub mod shape;
pub mod spec;
pub mod store_gate;
pub mod wire_errors;

use poem::{Endpoint, EndpointExt, Route};
use poem_openapi::{ExtraHeader, OpenApiService};

use crate::error::ApiError;
use crate::services::Services;

/// The use-cases attached to every request by [`app`].
pub(crate) fn services(
    request: &poem::Request,
) -> Result<&Services, crate::http::errors::ErrorResponse> {
    request
        .data::<Services>()
        .ok_or_else(|| ApiError::internal("services are not attached to the request").into())
}

/// Every resource group of the API, by area of the interface. Tuples
/// implement `Default` up to 12 members, so the groups are nested: a new
/// resource joins its area's tuple (at most 12 each), and a new area starts as
/// a single group here and becomes a tuple when its second group arrives.
pub type ApiGroups = (
    CustomerApis,
    EventApis,
    CampaignApis,
    WalletApis,
    EngagementApis,
    (
        MasterDataApis,
        crate::resources::utilities::api::UtilitiesApi,
        crate::resources::messages::api::MessagesApi,
    ),
);

/// Master data: the catalogue campaigns reason about.
pub type MasterDataApis = (
    crate::resources::products::api::ProductsApi,
    crate::resources::locations::api::LocationsApi,
    crate::resources::taxonomies::api::TaxonomiesApi,
    crate::resources::taxonomies::api::LocationTaxonomiesApi,
    crate::resources::promotions::api::PromotionsApi,
);

/// Customers and what hangs off them.
pub type CustomerApis = (
    crate::resources::customers::api::CustomersApi,
    crate::resources::associations::api::AssociationsApi,
    crate::resources::merges::api::MergesApi,
    crate::resources::segments::api::SegmentsApi,
    crate::resources::exports::api::CustomerExportApi,
);

/// What the campaigns are evaluated against.
pub type EventApis = (
    crate::resources::carts::api::CartsApi,
    crate::resources::events::api::EventsApi,
);

/// Campaigns and what they give.
pub type CampaignApis = (
    crate::resources::instant_wins::api::InstantWinsApi,
    crate::resources::points_campaigns::api::PointsCampaignsApi,
    VoucherApis,
);

/// Coupons, their Vouchers and the discounts they give.
pub type VoucherApis = (
    crate::resources::coupons::api::CouponsApi,
    crate::resources::vouchers::api::VouchersApi,
    crate::resources::vouchers::selection_api::VoucherSelectionApi,
    (
        crate::resources::vouchers::freeze_api::VoucherFreezeApi,
        crate::resources::vouchers::print_api::VoucherPrintApi,
        crate::resources::discounts::api::DiscountsApi,
        crate::resources::discounts::campaign_api::DiscountCampaignsApi,
    ),
);

/// Points, cashback and the wallet.
pub type WalletApis = (
    crate::resources::points::api::PointsApi,
    crate::resources::cashback::api::CashbacksApi,
);

/// Rewards, games and challenges: what a Customer earns and spends.
pub type EngagementApis = (
    crate::resources::rewards::api::RewardsApi,
    crate::resources::games::api::GamesApi,
    crate::resources::challenges::api::ChallengesApi,
);

/// Settings of the HTTP layer.
#[derive(Debug, Clone, Copy)]
pub struct ApiOptions {
    /// Largest accepted request body in bytes.
    pub max_body_bytes: usize,
    /// Longest a request may run.
    pub request_timeout: std::time::Duration,
    /// Requests served at once ([`admission`]).
    pub max_in_flight: usize,
    /// Requests waiting for a turn; more are answered 503 `server_busy` at once.
    pub max_queued: usize,
}

impl Default for ApiOptions {
    fn default() -> Self {
        ApiOptions {
            max_body_bytes: 1024 * 1024,
            request_timeout: std::time::Duration::from_secs(30),
            max_in_flight: crate::http::admission::DEFAULT_IN_FLIGHT,
            max_queued: crate::http::admission::DEFAULT_QUEUED,
        }
    }
}

/// The poem-openapi service describing every group.
pub fn openapi_service() -> OpenApiService<ApiGroups, ()> {
    OpenApiService::new(ApiGroups::default(), "loyalty", env!("CARGO_PKG_VERSION"))
        .extra_request_header::<Option<String>, _>(ExtraHeader::new("Idempotency-Key").description(
            "POST, PATCH and PUT only: a retry with the same key and request gets the first answer \
         again (24 hours, per Company). Refused on GET and DELETE.",
        ))
        .extra_request_header::<Option<String>, _>(ExtraHeader::new("Accept-Language").description(
            "Language of translatable content; the Company default when it lacks the language.",
        ))
        .extra_response_header::<Option<String>, _>(
            ExtraHeader::new("RateLimit-Policy")
                .description("The endpoint's tier and its quota, e.g. `\"tier1\";q=60;w=1`."),
        )
        .extra_response_header::<Option<String>, _>(
            ExtraHeader::new("RateLimit").description(
                "Requests left in the tier's current window, e.g. `\"tier1\";r=59;t=1`.",
            ),
        )
        .extra_response_header::<Option<String>, _>(
            ExtraHeader::new("Content-Language")
                .description("The language translatable content is in."),
        )
}

/// The complete integrator application over `services`.
pub fn app(services: Services, options: ApiOptions) -> impl Endpoint + 'static {
    let documents = crate::http::spec::render(openapi_service());
    let shapes = crate::http::shape::RequestShapes::of_spec(&documents.json);
    Route::new()
        .at(
            "/openapi.json",
            crate::http::spec::json_endpoint(&documents),
        )
        .at("/docs", crate::http::spec::ui_endpoint(&documents))
        .nest("/", openapi_service())
        .with(crate::http::shape::RequestShape::new(shapes))
        .with(crate::http::rate_limits::RateLimitHeaders)
        .with(crate::http::languages::Localize)
        .with(crate::http::idempotency::Idempotency)
        .with(crate::http::auth::Authenticate)
        .with(crate::http::store_gate::StoreGate)
        .with(crate::http::admission::AdmissionGate::new(
            options.max_in_flight,
            options.max_queued,
        ))
        .with(crate::http::request_bounds::BodyLimit::new(
            options.max_body_bytes,
        ))
        .with(crate::http::request_bounds::Timeout::new(
            options.request_timeout,
        ))
        .with(crate::http::errors::JsonErrors::of_spec(
            &documents.json,
            services.undeclared_errors(),
        ))
        .with(crate::telemetry::requests::Observe::new(
            "api",
            services.metrics.clone(),
            crate::telemetry::requests::Operations::of_spec(&documents.json, "", "other"),
        ))
        .data(services)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::errors::{coverage, declared_by};

    fn covered(spec: &str, declared: &[crate::http::spec::errors::OperationErrors]) {
        let document: serde_json::Value = serde_json::from_str(spec).expect("the spec is JSON");
        let (missing, unknown) = coverage(&document, declared);
        assert!(
            missing.is_empty(),
            "operations with no entry in their api.rs `ERRORS`: {missing:?}"
        );
        assert!(
            unknown.is_empty(),
            "`ERRORS` entries naming no operation: {unknown:?}"
        );
    }

    #[test]
    fn every_operation_states_its_error_codes() {
        let spec = crate::http::spec::render(openapi_service()).json;
        covered(&spec, &declared_by::<ApiGroups>());
        let back_office = OpenApiService::new(
            crate::http::back_office::BackOfficeGroups::default(),
            "back-office",
            "1",
        )
        .spec();
        covered(
            &back_office,
            &declared_by::<crate::http::back_office::BackOfficeGroups>(),
        );
    }
}
