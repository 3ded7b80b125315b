//! `GET /metrics`: every metric in Prometheus' text format, for a scraper
//! holding the operator token (`Authorization: Bearer TOKEN`, which is how
//! Prometheus scrapes a protected target).

use poem::http::{StatusCode, header};
use poem::web::Data;
use poem::{Request, Response, handler};

use crate::http::back_office::OperatorToken;
use crate::secrets::constant_time_eq;
use crate::services::Services;
use crate::telemetry::metrics::CONTENT_TYPE;

/// `GET /metrics`.
#[handler]
pub async fn scrape(
    request: &Request,
    Data(services): Data<&Services>,
    Data(expected): Data<&OperatorToken>,
) -> Response {
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    if !bearer.is_some_and(|token| constant_time_eq(&expected.0, token.trim())) {
        return Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .header(header::WWW_AUTHENTICATE, "Bearer")
            .content_type("text/plain; charset=utf-8")
            .body("the metrics need the operator token as `Authorization: Bearer TOKEN`\n");
    }
    Response::builder()
        .content_type(CONTENT_TYPE)
        .body(services.metrics_text().await)
}
