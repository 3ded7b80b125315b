//! Exports over HTTP: the back office's `GET /api/companies/{slug}/export`
//! (called by `loyalty export`), and a Customer's data-subject export,
//! `GET /customers/{value}/export`, on the API.

use poem::{Body, Request};
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::{Binary, Json};
use poem_openapi::{ApiResponse, OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::http::services;
use crate::http::spec::errors::api_with_errors;
use crate::resources::companies::api::OperatorAuth;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::service::CustomerRef;
use crate::resources::exports::model::{ExportWhat, Period};
use crate::resources::exports::stream::chunk_channel;
use crate::resources::exports::subject::CustomerExport;

api_with_errors! {
    /// Operator-only exports of a Company's records.
    Exports {
        "GET /companies/{slug}/export" => [ErrorCode::CompanyNotFound],
    }
}

api_with_errors! {
    /// A Customer's data-subject export.
    CustomerExportApi {
        "GET /customers/{value}/export" => [ErrorCode::CustomerNotFound],
    }
}

#[derive(Tags)]
enum ExportTags {
    /// Everything held about one Customer, for data-subject requests.
    Exports,
}

/// An export's body.
#[derive(ApiResponse)]
pub enum ExportLines {
    /// One JSON object per line (NDJSON), each in the shape the API answers
    /// it, in the order of their ids, sent while it is read. A body cut
    /// short (the connection closed before its last chunk) is an export
    /// that failed on the way: run it again.
    #[oai(status = 200, content_type = "application/x-ndjson")]
    Lines(Binary<Body>),
}

#[OpenApi]
impl Exports {
    /// Export the Company's Customers, carts, ledger entries or Custom
    /// Events of a period, one JSON object per line. `from` and `to` are
    /// days on the Company's clocks (`2026-11-01`; `to` includes its day)
    /// or instants (RFC 3339; `to` excluded), either omitted for an open
    /// end: Customers by when they were created, carts and Custom Events by
    /// their `date`, ledger entries by when they were written. Streamed a
    /// page at a time: a million rows take the memory of one page.
    #[oai(path = "/companies/:slug/export", method = "get")]
    async fn export(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        /// What to export.
        what: Query<ExportWhat>,
        /// The first day or instant.
        from: Query<Option<String>>,
        /// The last day, or the instant after the period.
        to: Query<Option<String>>,
    ) -> Result<ExportLines, ErrorResponse> {
        let services = services(request)?.clone();
        let company = services.company(&slug.0).await?;
        let period = Period::read(from.0.as_deref(), to.0.as_deref(), &company.locale())?;
        let (sink, reader) = chunk_channel();
        tokio::spawn(async move {
            let exported = services
                .export_records(&slug.0, what.0, period, &sink)
                .await;
            match exported {
                Ok(rows) => {
                    tracing::info!(company = %slug.0, what = what.0.as_str(), rows, "exported")
                }
                Err(error) => {
                    tracing::warn!(company = %slug.0, %error, "export cut short");
                    // The body fails, so the client knows it is not whole.
                    let failed = std::io::Error::other(error.message);
                    let _ = sink.send(Err(failed)).await;
                }
            }
        });
        Ok(ExportLines::Lines(Binary(Body::from_async_read(reader))))
    }
}

#[OpenApi(tag = "ExportTags::Exports")]
impl CustomerExportApi {
    /// Everything the service holds about one Customer, in one answer, for
    /// a data-subject (access or portability) request: the profile with its
    /// cards, consents and attributes, associations, balances, carts,
    /// ledger entries, Custom Events, Vouchers, reward transactions,
    /// Challenges, game participations, and the merges of the Customers
    /// merged into it (their carts and points are its own since). A merged
    /// or anonymized Customer answers what it still holds.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/customers/:value/export", method = "get")]
    async fn export_customer(
        &self,
        caller: Tier3<'_>,
        value: Path<String>,
        /// How `value` names the Customer (default: its id).
        search_by: Query<Option<SearchBy>>,
    ) -> Result<Json<CustomerExport>, ErrorResponse> {
        let reference = CustomerRef::by(&value.0, search_by.0);
        let exported = caller
            .services
            .export_customer(&caller.company, reference, caller.language()?)
            .await?;
        Ok(Json(exported))
    }
}
