//! GET /customers/{id}/attributes, /tiers, /audiences and /audience_validation.

use crate::common::amount::Amount;
use crate::common::money::decimal_from_f64;
use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::segments::service::SegmentKind;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::resources::customers::service::CustomerRef;
use crate::resources::segments::service::SegmentStanding;

#[derive(Tags)]
enum SegmentTags {
    /// Calculated attributes, tiers and audiences, defined in the Company's `segments.yaml`.
    Segments,
}

/// Answer of GET /customers/{id}/attributes.
#[derive(Debug, Object)]
pub struct AttributesBody {
    /// The Customer.
    pub customer_id: String,
    /// Sum of the Customer's purchases, exact.
    pub lifetime_spend: Amount,
    /// Number of purchases.
    pub cart_count: i64,
    /// Date of the latest purchase (YYYY-MM-DD).
    pub last_purchase_date: Option<String>,
    /// Current points balance.
    pub points_balance: i64,
    /// The Company's own calculated attributes (`attributes:` in `segments.yaml`); `null` when one failed.
    pub custom: std::collections::BTreeMap<String, serde_json::Value>,
}

/// A tier or audience.
#[derive(Debug, Object)]
pub struct SegmentBody {
    /// Identifier.
    pub id: String,
    /// Display name, in the response language (Accept-Language).
    pub name: String,
    /// Description, in the response language.
    pub description: Option<String>,
    /// Whether the Customer belongs to it (for a tier: reached it).
    pub member: bool,
    /// Why its condition could not be evaluated (file, line and message), if so.
    #[oai(skip_serializing_if_is_none)]
    pub error: Option<String>,
}

impl From<SegmentStanding> for SegmentBody {
    fn from(standing: SegmentStanding) -> Self {
        SegmentBody {
            id: standing.id,
            name: standing.name,
            description: standing.description,
            member: standing.member,
            error: standing.error,
        }
    }
}

/// Answer of GET /customers/{id}/tiers.
#[derive(Debug, Object)]
pub struct TiersBody {
    /// The Customer.
    pub customer_id: String,
    /// The highest tier reached; absent when none is.
    #[oai(skip_serializing_if_is_none)]
    pub current_tier: Option<String>,
    /// Every tier, lowest first.
    pub tiers: Vec<SegmentBody>,
}

/// Answer of GET /customers/{id}/audiences.
#[derive(Debug, Object)]
pub struct AudiencesBody {
    /// The Customer.
    pub customer_id: String,
    /// The audiences the Customer belongs to.
    pub audiences: Vec<SegmentBody>,
}

/// Answer of GET /customers/{id}/audience_validation.
#[derive(Debug, Object)]
pub struct AudienceValidationBody {
    /// The Customer.
    pub customer_id: String,
    /// The audience checked.
    pub audience: SegmentBody,
    /// Whether the Customer belongs to it.
    pub member: bool,
}

/// Segment endpoints.
#[derive(Debug, Default)]
pub struct SegmentsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for SegmentsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /customers/{id}/attributes",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /customers/{id}/tiers",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /customers/{id}/audiences",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /customers/{id}/audience_validation",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::AudienceNotFound],
        },
    ];
}

#[OpenApi(tag = "SegmentTags::Segments")]
impl SegmentsApi {
    /// Calculated attributes of a Customer.
    ///
    /// Always: `lifetime_spend`, `cart_count`, `last_purchase_date` and
    /// `points_balance`; plus, under `custom`, every attribute the Company
    /// defines in `campaigns/<company>/segments.yaml`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:id/attributes", method = "get")]
    async fn attributes(
        &self,
        caller: Tier2<'_>,
        id: Path<String>,
    ) -> Result<Json<AttributesBody>, ErrorResponse> {
        let calculated = caller
            .services
            .customer_attributes(&caller.company, CustomerRef::id(&id.0))
            .await?;
        Ok(Json(AttributesBody {
            customer_id: calculated.customer_id,
            lifetime_spend: Amount(decimal_from_f64(calculated.lifetime_spend).unwrap_or_default()),
            cart_count: calculated.cart_count,
            last_purchase_date: calculated.last_purchase_date,
            points_balance: calculated.points_balance,
            custom: calculated.custom.into_iter().collect(),
        }))
    }

    /// Loyalty tiers of a Customer: every tier with whether it is reached, and
    /// the highest one reached as `current_tier`.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/customers/:id/tiers", method = "get")]
    async fn tiers(
        &self,
        caller: Tier1<'_>,
        id: Path<String>,
    ) -> Result<Json<TiersBody>, ErrorResponse> {
        let (customer_id, tiers) = caller
            .services
            .customer_segments(
                &caller.company,
                CustomerRef::id(&id.0),
                SegmentKind::Tiers,
                caller.language()?,
            )
            .await?;
        let current_tier = tiers.iter().rev().find(|t| t.member).map(|t| t.id.clone());
        Ok(Json(TiersBody {
            customer_id,
            current_tier,
            tiers: tiers.into_iter().map(Into::into).collect(),
        }))
    }

    /// All Audiences of a Customer: those whose condition the Customer meets.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:id/audiences", method = "get")]
    async fn audiences(
        &self,
        caller: Tier2<'_>,
        id: Path<String>,
    ) -> Result<Json<AudiencesBody>, ErrorResponse> {
        let (customer_id, audiences) = caller
            .services
            .customer_segments(
                &caller.company,
                CustomerRef::id(&id.0),
                SegmentKind::Audiences,
                caller.language()?,
            )
            .await?;
        Ok(Json(AudiencesBody {
            customer_id,
            audiences: audiences
                .into_iter()
                .filter(|a| a.member)
                .map(Into::into)
                .collect(),
        }))
    }

    /// Check whether a Customer belongs to the Audience `audience`.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/customers/:id/audience_validation", method = "get")]
    async fn audience_validation(
        &self,
        caller: Tier1<'_>,
        id: Path<String>,
        #[oai(validator(min_length = 1, max_length = 128))] audience: Query<String>,
    ) -> Result<Json<AudienceValidationBody>, ErrorResponse> {
        let (customer_id, standing) = caller
            .services
            .audience_validation(
                &caller.company,
                CustomerRef::id(&id.0),
                &audience.0,
                caller.language()?,
            )
            .await?;
        Ok(Json(AudienceValidationBody {
            customer_id,
            member: standing.member,
            audience: standing.into(),
        }))
    }
}
