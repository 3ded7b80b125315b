//! Points campaigns: POST /points, GET /points, GET /points/{value} and
//! PATCH /points/{value}.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::points_campaigns::service::PointsCampaigns;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::http::idempotency::answer::answers_with;
use crate::http::languages::language;
use crate::http::services;
use crate::resources::points_campaigns::model::PointsCampaign;
use crate::resources::points_campaigns::model::PointsCampaignSpec;

#[derive(Tags)]
enum PointsCampaignTags {
    /// Points and wallet campaigns, from campaign files and created through the API.
    PointsCampaigns,
}

/// Points campaigns.
#[derive(Debug, Object)]
pub struct PointsCampaignList {
    /// By ascending id.
    pub points: Vec<PointsCampaign>,
}

/// Points campaign endpoints.
#[derive(Default)]
pub struct PointsCampaignsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for PointsCampaignsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /points",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /points",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /points/{value}",
            codes: &[ErrorCode::PointsCampaignNotFound],
        },
        OperationErrors {
            operation: "PATCH /points/{value}",
            codes: &[
                ErrorCode::ForbiddenRequest,
                ErrorCode::PointsCampaignNotFound,
            ],
        },
    ];
}

#[OpenApi(tag = "PointsCampaignTags::PointsCampaigns")]
impl PointsCampaignsApi {
    /// Create a points campaign.
    ///
    /// The body has the fields of a campaign file of kind `points` (see the
    /// campaign file reference); it is checked by the same compiler, stored,
    /// and applies from the next event on. Its id is assigned from 1000000 up,
    /// a range campaign files may not use.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/points", method = "post")]
    async fn create(
        &self,
        caller: Tier3,
        request: &poem::Request,
        body: Json<PointsCampaignSpec>,
    ) -> Result<Json<PointsCampaign>, ErrorResponse> {
        answers_with(request, PointsCampaign::clone);
        Ok(Json(
            services(request)?
                .create_resource_campaign::<PointsCampaigns>(
                    &caller.0.company,
                    body.0,
                    language(request)?,
                )
                .await?,
        ))
    }

    /// List available points/wallet campaigns (campaign files and API).
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/points", method = "get")]
    async fn list(
        &self,
        caller: Tier2,
        request: &poem::Request,
    ) -> Result<Json<PointsCampaignList>, ErrorResponse> {
        Ok(Json(PointsCampaignList {
            points: services(request)?
                .resource_campaigns::<PointsCampaigns>(&caller.0.company, language(request)?),
        }))
    }

    /// Get a points campaign by ID.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/points/:value", method = "get")]
    async fn get(
        &self,
        caller: Tier2,
        request: &poem::Request,
        value: Path<String>,
    ) -> Result<Json<PointsCampaign>, ErrorResponse> {
        Ok(Json(
            services(request)?.resource_campaign::<PointsCampaigns>(
                &caller.0.company,
                &value.0,
                language(request)?,
            )?,
        ))
    }

    /// Update a points/wallet campaign created through the API.
    ///
    /// The fields sent replace the stored ones; the result is checked like a
    /// new campaign. Campaigns from files are changed in their files (403
    /// `forbidden_request`).
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/points/:value", method = "patch")]
    async fn update(
        &self,
        caller: Tier3,
        request: &poem::Request,
        value: Path<String>,
        body: Json<PointsCampaignSpec>,
    ) -> Result<Json<PointsCampaign>, ErrorResponse> {
        answers_with(request, PointsCampaign::clone);
        Ok(Json(
            services(request)?
                .update_resource_campaign::<PointsCampaigns>(
                    &caller.0.company,
                    &value.0,
                    body.0,
                    language(request)?,
                )
                .await?,
        ))
    }
}
