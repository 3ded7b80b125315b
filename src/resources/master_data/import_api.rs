//! The back-office operations on the catalogue: `loyalty catalog import`,
//! and the taxonomies and features `loyalty campaigns check` checks
//! campaign files against.

use poem::Request;
use poem_openapi::OpenApi;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::{Json, PlainText};

use crate::error::ErrorCode;
use crate::http::errors::ErrorResponse;
use crate::http::services;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::companies::api::OperatorAuth;
use crate::resources::master_data::import::rows::ImportFormat;
use crate::resources::master_data::import::{CatalogKind, ImportReport};
use crate::resources::master_data::references::FeatureCatalogue;

/// Operator-only imports of the catalogue.
#[derive(Debug, Default)]
pub struct CatalogImports;

#[OpenApi]
impl CatalogImports {
    /// Import Products or Locations from a file (the body, as text): CSV
    /// with a header row (`code,name,price,aliases,features,...`) or JSON
    /// lines (each line a POST /products or POST /locations body). Every
    /// line is checked as its POST would be; one problem anywhere imports
    /// nothing and is answered with every problem at its line. A record
    /// whose code is a stored one's replaces it.
    #[oai(path = "/companies/:slug/catalog/import", method = "post")]
    async fn import(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
        /// `products` or `locations`.
        kind: Query<CatalogKind>,
        /// `csv` or `json_lines`.
        format: Query<ImportFormat>,
        body: PlainText<String>,
    ) -> Result<Json<ImportReport>, ErrorResponse> {
        let report = services(request)?
            .import_catalog(&slug.0, kind.0, format.0, &body.0)
            .await?;
        Ok(Json(report))
    }

    /// The Company's taxonomies and their features, of Products and of
    /// Locations: what campaign conditions may name.
    #[oai(path = "/companies/:slug/catalog/features", method = "get")]
    async fn features(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
    ) -> Result<Json<FeatureCatalogue>, ErrorResponse> {
        Ok(Json(services(request)?.feature_catalogue(&slug.0).await?))
    }
}

/// The error codes of its own each operation answers.
impl DeclaredErrors for CatalogImports {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /companies/{slug}/catalog/import",
            codes: &[
                ErrorCode::CompanyNotFound,
                ErrorCode::ConcurrentModification,
            ],
        },
        OperationErrors {
            operation: "GET /companies/{slug}/catalog/features",
            codes: &[ErrorCode::CompanyNotFound],
        },
    ];
}
