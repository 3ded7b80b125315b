//! Discount campaigns: POST /discounts, GET /discounts,
//! GET /discounts/{value} and PATCH /discounts/{value}.

use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::http::idempotency::answer::answers_with;
use crate::http::languages::language;
use crate::http::services;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::discounts::campaigns::DiscountCampaigns;
use crate::resources::discounts::model::DiscountCampaign;
use crate::resources::discounts::model::DiscountCampaignList;
use crate::resources::discounts::model::DiscountCampaignSpec;

#[derive(Tags)]
enum DiscountCampaignTags {
    /// Discount campaigns, from campaign files (`kind: discount`) and
    /// created through the API.
    DiscountCampaigns,
}

/// Discount campaign endpoints.
#[derive(Debug, Default)]
pub struct DiscountCampaignsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for DiscountCampaignsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /discounts",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /discounts",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /discounts/{value}",
            codes: &[ErrorCode::DiscountNotFound],
        },
        OperationErrors {
            operation: "PATCH /discounts/{value}",
            codes: &[ErrorCode::ForbiddenRequest, ErrorCode::DiscountNotFound],
        },
    ];
}

#[OpenApi(tag = "DiscountCampaignTags::DiscountCampaigns")]
impl DiscountCampaignsApi {
    /// Create a discount campaign.
    ///
    /// The body has the fields of a campaign file of kind `discount` (see
    /// the campaign file reference): it listens to carts and takes
    /// `discount.percent` or `discount.amount` off the whole cart
    /// (`applies_to: cart`, shared out over the lines) or off each line the
    /// rhai condition `discount.lines` matches (`applies_to: lines`), at
    /// most `discount.max_amount`, when `when` holds. It is checked by the
    /// same compiler as a file, stored, and applies from the next cart on.
    /// Its id is assigned from 1000000 up.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/discounts", method = "post")]
    async fn create(
        &self,
        caller: Tier3,
        request: &poem::Request,
        body: Json<DiscountCampaignSpec>,
    ) -> Result<Json<DiscountCampaign>, ErrorResponse> {
        answers_with(request, DiscountCampaign::clone);
        Ok(Json(
            services(request)?
                .create_resource_campaign::<DiscountCampaigns>(
                    &caller.0.company,
                    body.0,
                    language(request)?,
                )
                .await?,
        ))
    }

    /// List available discount campaigns (campaign files and API).
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/discounts", method = "get")]
    async fn list(
        &self,
        caller: Tier2,
        request: &poem::Request,
    ) -> Result<Json<DiscountCampaignList>, ErrorResponse> {
        Ok(Json(DiscountCampaignList {
            discounts: services(request)?
                .resource_campaigns::<DiscountCampaigns>(&caller.0.company, language(request)?),
        }))
    }

    /// Get a discount campaign by ID.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/discounts/:value", method = "get")]
    async fn get(
        &self,
        caller: Tier2,
        request: &poem::Request,
        #[oai(validator(max_length = 128))] value: Path<String>,
    ) -> Result<Json<DiscountCampaign>, ErrorResponse> {
        Ok(Json(
            services(request)?.resource_campaign::<DiscountCampaigns>(
                &caller.0.company,
                &value.0,
                language(request)?,
            )?,
        ))
    }

    /// Update a discount campaign created through the API.
    ///
    /// The fields sent replace the stored ones (`discount.percent` replaces
    /// `discount.amount` and the other way round; `applies_to: cart` drops
    /// `lines`); the result is checked like a new campaign. Campaigns from
    /// files are changed in their files (403 `forbidden_request`).
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/discounts/:value", method = "patch")]
    async fn update(
        &self,
        caller: Tier3,
        request: &poem::Request,
        #[oai(validator(max_length = 128))] value: Path<String>,
        body: Json<DiscountCampaignSpec>,
    ) -> Result<Json<DiscountCampaign>, ErrorResponse> {
        answers_with(request, DiscountCampaign::clone);
        Ok(Json(
            services(request)?
                .update_resource_campaign::<DiscountCampaigns>(
                    &caller.0.company,
                    &value.0,
                    body.0,
                    language(request)?,
                )
                .await?,
        ))
    }
}
