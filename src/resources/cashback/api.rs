//! Cashback: GET /cashbacks and GET /cashback_thresholds, read from the
//! Company's `cashback.yaml`.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::params::location;

#[derive(Tags)]
enum CashbackTags {
    /// Points-to-wallet conversion by location.
    Cashback,
}

/// A points-to-wallet exchange.
#[derive(Debug, Object)]
pub struct CashbackBody {
    /// The location asked about (absent when listing every exchange).
    #[oai(skip_serializing_if_is_none)]
    pub location_code: Option<String>,
    /// The exchange that applies there: the location's own, or `default`.
    pub exchange_location: String,
    /// Points converted ...
    pub points: i64,
    /// ... into this much wallet money (cents).
    pub amount: i64,
    /// With a Customer: their id.
    #[oai(skip_serializing_if_is_none)]
    pub customer_id: Option<String>,
    /// With a Customer: their points balance.
    #[oai(skip_serializing_if_is_none)]
    pub balance: Option<i64>,
    /// With a Customer: the points that may convert now (thresholds applied).
    #[oai(skip_serializing_if_is_none)]
    pub convertible_points: Option<i64>,
    /// With a Customer: the wallet money those points give.
    #[oai(skip_serializing_if_is_none)]
    pub convertible_amount: Option<i64>,
}

/// Exchanges.
#[derive(Debug, Object)]
pub struct CashbackList {
    /// One per location asked about, or every exchange.
    pub cashbacks: Vec<CashbackBody>,
}

/// A cashback threshold.
#[derive(Debug, Object)]
pub struct ThresholdBody {
    /// The location it is for, or `default`.
    pub location: String,
    /// Smallest points balance that may convert.
    pub min_points: i64,
    /// Points convert in multiples of this.
    pub step: i64,
}

/// Thresholds.
#[derive(Debug, Object)]
pub struct ThresholdList {
    /// The threshold of the location asked about, or every one.
    pub cashback_thresholds: Vec<ThresholdBody>,
}

/// Cashback endpoints.
#[derive(Default)]
pub struct CashbacksApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for CashbacksApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /cashbacks",
            codes: &[
                ErrorCode::LocationNotFound,
                ErrorCode::CustomerNotFound,
                ErrorCode::ExchangeNotFound,
            ],
        },
        OperationErrors {
            operation: "GET /cashback_thresholds",
            codes: &[ErrorCode::LocationNotFound, ErrorCode::ExchangeNotFound],
        },
    ];
}

#[OpenApi(tag = "CashbackTags::Cashback")]
impl CashbacksApi {
    /// Cashback conversion by location.
    ///
    /// With `location_code` (or `location_id`, the same code): the exchange
    /// that applies there, or 404 `exchange_not_found`. Without: every
    /// exchange. With `customer_id` or `customer_code`: what the Customer's
    /// points balance converts into now.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/cashbacks", method = "get")]
    async fn cashbacks(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] location_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] location_code: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
    ) -> Result<Json<CashbackList>, ErrorResponse> {
        let location = location(
            &caller.services.master_data.company(&caller.company),
            location_id.0,
            location_code.0,
        )?;
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        let quotes = caller
            .services
            .cashbacks(&caller.company, location.as_deref(), customer)
            .await?;
        Ok(Json(CashbackList {
            cashbacks: quotes
                .into_iter()
                .map(|quote| {
                    let customer = quote.customer;
                    CashbackBody {
                        location_code: quote.location,
                        exchange_location: quote.exchange.location,
                        points: quote.exchange.points,
                        amount: quote.exchange.amount,
                        customer_id: customer.as_ref().map(|c| c.0.clone()),
                        balance: customer.as_ref().map(|c| c.1),
                        convertible_points: customer.as_ref().map(|c| c.2),
                        convertible_amount: customer.as_ref().map(|c| c.3),
                    }
                })
                .collect(),
        }))
    }

    /// Cashback thresholds.
    ///
    /// With `location_code` (or `location_id`): the threshold that applies
    /// there (empty when none; 404 `exchange_not_found` when the location has
    /// no exchange). Without: every threshold.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/cashback_thresholds", method = "get")]
    async fn thresholds(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] location_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] location_code: Query<Option<String>>,
    ) -> Result<Json<ThresholdList>, ErrorResponse> {
        let location = location(
            &caller.services.master_data.company(&caller.company),
            location_id.0,
            location_code.0,
        )?;
        let thresholds = caller
            .services
            .cashback_thresholds(&caller.company, location.as_deref())?;
        Ok(Json(ThresholdList {
            cashback_thresholds: thresholds
                .into_iter()
                .map(|t| ThresholdBody {
                    location: t.location,
                    min_points: t.min_points,
                    step: t.step,
                })
                .collect(),
        }))
    }
}
