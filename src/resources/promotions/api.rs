//! Legacy Promotions: POST /promotions, GET /promotions,
//! GET, PATCH and DELETE /promotions/{id}.

use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::promotions::model::DeletedPromotion;
use crate::resources::promotions::model::Promotion;
use crate::resources::promotions::model::PromotionList;
use crate::resources::promotions::model::PromotionSpec;

#[derive(Tags)]
enum PromotionTags {
    /// Legacy Promotions: the older, API-managed form of a discount,
    /// evaluated as a discount campaign.
    Promotions,
}

/// Legacy Promotion endpoints.
#[derive(Debug, Default)]
pub struct PromotionsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for PromotionsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /promotions",
            codes: &[ErrorCode::UnknownFeature],
        },
        OperationErrors {
            operation: "GET /promotions",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /promotions/{id}",
            codes: &[ErrorCode::PromotionNotFound],
        },
        OperationErrors {
            operation: "PATCH /promotions/{id}",
            codes: &[ErrorCode::PromotionNotFound, ErrorCode::UnknownFeature],
        },
        OperationErrors {
            operation: "DELETE /promotions/{id}",
            codes: &[ErrorCode::PromotionNotFound],
        },
    ];
}

#[OpenApi(tag = "PromotionTags::Promotions")]
impl PromotionsApi {
    /// Create a legacy Promotion.
    ///
    /// It takes `percent` or `amount` off each cart line of its `products`
    /// (codes or aliases) or carrying its `features` (and those under them),
    /// or off the whole cart when it names neither, between `valid_from` and
    /// `valid_to` while `active`. It is compiled into a discount campaign:
    /// its cart effects are `discount` effects with its id as `rule_id`, it
    /// takes its place in the stacking order of discounts and Vouchers by
    /// `priority` and `exclusive`, and it is listed by GET /discounts. A
    /// feature the Company lacks is 422 `unknown_feature`.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/promotions", method = "post")]
    async fn create(
        &self,
        caller: Tier3<'_>,
        body: Json<PromotionSpec>,
    ) -> Result<Json<Promotion>, ErrorResponse> {
        caller.answers_with(Promotion::clone);
        Ok(Json(
            caller
                .services
                .create_promotion(&caller.company, body.0)
                .await?,
        ))
    }

    /// List the legacy Promotions.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/promotions", method = "get")]
    async fn list(&self, caller: Tier2<'_>) -> Result<Json<PromotionList>, ErrorResponse> {
        Ok(Json(PromotionList {
            promotions: caller.services.promotions(&caller.company).await?,
        }))
    }

    /// Get a legacy Promotion.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/promotions/:id", method = "get")]
    async fn get(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(max_length = 128))] id: Path<String>,
    ) -> Result<Json<Promotion>, ErrorResponse> {
        Ok(Json(
            caller.services.promotion(&caller.company, &id.0).await?,
        ))
    }

    /// Update a legacy Promotion.
    ///
    /// The fields sent replace the stored ones (`percent` replaces `amount`
    /// and the other way round); the result is checked like a new one and
    /// applies from the next cart on.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/promotions/:id", method = "patch")]
    async fn update(
        &self,
        caller: Tier3<'_>,
        #[oai(validator(max_length = 128))] id: Path<String>,
        body: Json<PromotionSpec>,
    ) -> Result<Json<Promotion>, ErrorResponse> {
        caller.answers_with(Promotion::clone);
        Ok(Json(
            caller
                .services
                .update_promotion(&caller.company, &id.0, body.0)
                .await?,
        ))
    }

    /// Delete a legacy Promotion.
    ///
    /// It applies to no cart from then on; the discounts it gave stay in
    /// the Customers' discount transactions.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/promotions/:id", method = "delete")]
    async fn delete(
        &self,
        caller: Tier3<'_>,
        #[oai(validator(max_length = 128))] id: Path<String>,
    ) -> Result<Json<DeletedPromotion>, ErrorResponse> {
        let id = caller
            .services
            .delete_promotion(&caller.company, &id.0)
            .await?;
        Ok(Json(DeletedPromotion {
            id,
            result: "deleted".into(),
        }))
    }
}
