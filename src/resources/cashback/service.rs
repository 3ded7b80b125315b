//! Cashback as integrators read it: the points-to-wallet exchange of a store,
//! its threshold, and what a Customer's balance would convert into.

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::cashback::rules::Exchange;
use crate::resources::cashback::rules::Threshold;
use crate::resources::customers::service::CustomerRef;
use crate::resources::points::model::PointsKind;
use crate::services::Services;

/// An exchange, and for a Customer what their balance converts into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CashbackQuote {
    /// The exchange that applies (the location's own, or `default`).
    pub exchange: Exchange,
    /// The location asked about, when one was.
    pub location: Option<String>,
    /// With a Customer: (id, points balance, points convertible now, wallet money they give).
    pub customer: Option<(String, i64, i64, i64)>,
}

fn not_found(location: &str) -> ApiError {
    ApiError::new(
        ErrorCode::ExchangeNotFound,
        format!("no points exchange for location `{location}`"),
    )
}

impl Services {
    /// The exchange of `location` (`exchange_not_found` when it has none), or
    /// every exchange; with a Customer, what their balance converts into.
    pub async fn cashbacks(
        &self,
        company: &str,
        location: Option<&str>,
        customer: Option<CustomerRef<'_>>,
    ) -> ApiResult<Vec<CashbackQuote>> {
        let rules = self.catalog.company(company);
        let cashback = &rules.cashback;
        let exchanges: Vec<(Exchange, String)> = match location {
            Some(location) => {
                let exchange = cashback
                    .exchange(location)
                    .ok_or_else(|| not_found(location))?;
                vec![(exchange.clone(), location.to_string())]
            }
            None => cashback
                .exchanges
                .iter()
                .map(|e| (e.clone(), e.location.clone()))
                .collect(),
        };
        let holder = match customer {
            Some(reference) => {
                let customer = self.find_customer(company, reference).await?.customer;
                let balance = self
                    .store
                    .balance(company, &customer.id, PointsKind::Points)
                    .await?;
                Some((customer.id, balance))
            }
            None => None,
        };
        Ok(exchanges
            .into_iter()
            .map(|(exchange, at)| CashbackQuote {
                customer: holder.as_ref().map(|(id, balance)| {
                    let (points, amount) = cashback.convertible(&at, *balance).unwrap_or((0, 0));
                    (id.clone(), *balance, points, amount)
                }),
                location: location.map(str::to_string),
                exchange,
            })
            .collect())
    }

    /// The threshold of `location` (its own or the default; `exchange_not_found`
    /// when the location has no exchange), or every threshold.
    pub fn cashback_thresholds(
        &self,
        company: &str,
        location: Option<&str>,
    ) -> ApiResult<Vec<Threshold>> {
        let rules = self.catalog.company(company);
        let cashback = &rules.cashback;
        match location {
            Some(location) => {
                cashback
                    .exchange(location)
                    .ok_or_else(|| not_found(location))?;
                Ok(cashback.threshold(location).cloned().into_iter().collect())
            }
            None => Ok(cashback.thresholds.clone()),
        }
    }
}
