//! Challenges: GET /challenges, GET /challenges/{id},
//! GET /customers/{value}/challenges, GET /customers/{value}/challenges/{id},
//! POST /challenges/{id}/enroll.

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::challenges::model::ChallengeView;
use crate::resources::challenges::model::CustomerChallenge;
use crate::resources::challenges::model::EnrollRequest;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::service::CustomerRef;

#[derive(Tags)]
enum ChallengesTags {
    /// Goals Customers reach with the carts and events that count.
    Challenges,
}

/// Challenge campaigns.
#[derive(Debug, Object)]
pub struct ChallengeList {
    /// By ascending id.
    pub challenges: Vec<ChallengeView>,
}

/// A Customer's standing in every Challenge.
#[derive(Debug, Object)]
pub struct CustomerChallengeList {
    /// By ascending Challenge id.
    pub challenges: Vec<CustomerChallenge>,
}

/// Challenges endpoints.
#[derive(Default)]
pub struct ChallengesApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for ChallengesApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /challenges",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::CustomerInactive],
        },
        OperationErrors {
            operation: "GET /challenges/{id}",
            codes: &[
                ErrorCode::ChallengeNotFound,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
            ],
        },
        OperationErrors {
            operation: "GET /customers/{value}/challenges",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::CustomerInactive],
        },
        OperationErrors {
            operation: "GET /customers/{value}/challenges/{id}",
            codes: &[
                ErrorCode::ChallengeNotFound,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
            ],
        },
        OperationErrors {
            operation: "POST /challenges/{id}/enroll",
            codes: &[
                ErrorCode::ChallengeNotFound,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::ChallengeNotAvailable,
            ],
        },
    ];
}

#[OpenApi(tag = "ChallengesTags::Challenges")]
impl ChallengesApi {
    /// List Challenges.
    ///
    /// Every Challenge with its goal, period and reward; with `customer_id`
    /// or `customer_code`, where that Customer stands (`customer`: progress,
    /// target, enrolment, completions and the seconds left in the period).
    /// A Customer who is inactive (merged, anonymized or deactivated)
    /// answers 422 `customer_inactive`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/challenges", method = "get")]
    async fn challenges(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
    ) -> Result<Json<ChallengeList>, ErrorResponse> {
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        let challenges = caller
            .services
            .challenges(&caller.company, None, customer, caller.language()?)
            .await?;
        Ok(Json(ChallengeList { challenges }))
    }

    /// Get a Challenge by ID.
    ///
    /// As in the list.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/challenges/:id", method = "get")]
    async fn challenge(
        &self,
        caller: Tier2<'_>,
        /// The Challenge's id.
        id: Path<i64>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
    ) -> Result<Json<ChallengeView>, ErrorResponse> {
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        let mut found = caller
            .services
            .challenges(&caller.company, Some(id.0), customer, caller.language()?)
            .await?;
        found
            .pop()
            .map(Json)
            .ok_or_else(|| ApiError::new(ErrorCode::ChallengeNotFound, "no such Challenge").into())
    }

    /// A Customer's Challenges.
    ///
    /// The Customer's standing in every Challenge: `progress` of `target`,
    /// `completed`, `completions`, the events counted in the current period
    /// and the seconds left in it. `search_by` says what `value` is (`id` by
    /// default). An inactive Customer (merged, anonymized or deactivated)
    /// answers 422 `customer_inactive`: a merged one's progress is the
    /// target's.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:value/challenges", method = "get")]
    async fn customer_challenges(
        &self,
        caller: Tier2<'_>,
        value: Path<String>,
        search_by: Query<Option<SearchBy>>,
    ) -> Result<Json<CustomerChallengeList>, ErrorResponse> {
        let reference = CustomerRef::by(&value.0, search_by.0);
        let challenges = caller
            .services
            .customer_challenges(&caller.company, reference, None, caller.language()?)
            .await?;
        Ok(Json(CustomerChallengeList { challenges }))
    }

    /// A Customer's standing in one Challenge.
    ///
    /// As in the list, with `history`: every completion, what it gave and
    /// whether a return revoked it.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:value/challenges/:id", method = "get")]
    async fn customer_challenge(
        &self,
        caller: Tier2<'_>,
        value: Path<String>,
        /// The Challenge's id.
        id: Path<i64>,
        search_by: Query<Option<SearchBy>>,
    ) -> Result<Json<CustomerChallenge>, ErrorResponse> {
        let reference = CustomerRef::by(&value.0, search_by.0);
        let mut found = caller
            .services
            .customer_challenges(&caller.company, reference, Some(id.0), caller.language()?)
            .await?;
        found
            .pop()
            .map(Json)
            .ok_or_else(|| ApiError::new(ErrorCode::ChallengeNotFound, "no such Challenge").into())
    }

    /// Enrol a Customer in a Challenge.
    ///
    /// The Customer takes part from now: the events that count are counted
    /// from this instant (a Challenge with `enrollment: required` counts
    /// nothing before). Enrolling again changes nothing and answers the same
    /// standing. 422 `challenge_not_available` when the Challenge is
    /// inactive or has ended.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/challenges/:id/enroll", method = "post")]
    async fn enroll(
        &self,
        caller: Tier1<'_>,
        /// The Challenge's id.
        id: Path<i64>,
        body: Json<EnrollRequest>,
    ) -> Result<Json<CustomerChallenge>, ErrorResponse> {
        let customer =
            CustomerRef::required(&body.0.customer_id, &body.0.customer_code, "customer")?;
        caller.answers_with(CustomerChallenge::clone);
        let standing = caller
            .services
            .enroll(&caller.company, id.0, customer, caller.language()?)
            .await?;
        Ok(Json(standing))
    }
}
