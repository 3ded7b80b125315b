//! What an event's conditions know about its Customer, read in one round
//! trip: associations, purchase history, purchase totals and points balance,
//! and with them the state of the event's Instant Win draws
//! ([`crate::resources::instant_wins::store::draw_state`]). The till waits on this for every cart, so it is
//! one query of a few statements rather than one query each.

use chrono::{DateTime, Utc};
use serde_json::Value;

use surrealdb::IndexedResults;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::associations::model::Association;
use crate::resources::associations::store::from_document;
use crate::resources::carts::model::PurchaseTotals;
use crate::resources::carts::store::purchases_from_rows;
use crate::resources::carts::store::totals_from_row;
use crate::resources::instant_wins::store::draw_state::DrawState;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::storage::Store;
use crate::storage::store_error;

/// The stored facts of one Customer.
#[derive(Debug, Clone, Default)]
pub struct CustomerFacts {
    /// Associations the Customer takes part in, oldest first.
    pub associations: Vec<Association>,
    /// Purchases (date, total) since the requested instant, oldest first;
    /// empty when no history was requested.
    pub purchases: Vec<(DateTime<Utc>, f64)>,
    /// Lifetime totals.
    pub totals: PurchaseTotals,
    /// Points balance.
    pub points_balance: i64,
}

/// The statements reading a Customer's facts; they read `$company`,
/// `$customer` and `$since` (purchases are read when it is set). Two
/// single-index selects rather than one `OR` for associations: the planner
/// fuses indexes for an `OR`, which costs more than both reads.
const FACT_STATEMENTS: &str = "
    SELECT * OMIT id, company FROM association WHERE company = $company AND customer_id = $customer;
    SELECT * OMIT id, company FROM association WHERE company = $company AND associate_id = $customer;
    IF $since { SELECT date, total FROM cart WHERE company = $company AND customer_id = $customer AND date >= $since ORDER BY date } ELSE { [] };
    SELECT * FROM ONLY type::record('customer_stats', [$company, $customer]);
    SELECT VALUE balance FROM ONLY type::record('points_balance', [$company, $customer, 'points']);";

/// How many statements [`FACT_STATEMENTS`] holds.
const FACT_STATEMENT_COUNT: usize = 5;

/// The facts, from the results of [`FACT_STATEMENTS`] (statements 0 to 4).
fn facts_from(response: &mut IndexedResults) -> ApiResult<CustomerFacts> {
    let mut links: Vec<Value> = response.take(0).map_err(store_error)?;
    let reverse: Vec<Value> = response.take(1).map_err(store_error)?;
    links.extend(reverse);
    let purchases: Vec<Value> = response.take(2).map_err(store_error)?;
    let totals: Option<Value> = response.take(3).map_err(store_error)?;
    let balance: Option<i64> = response.take(4).map_err(store_error)?;
    let mut associations = links
        .into_iter()
        .map(from_document)
        .collect::<ApiResult<Vec<_>>>()?;
    associations.sort_by(|a, b| {
        (a.created_at, &a.customer_id, &a.associate_id).cmp(&(
            b.created_at,
            &b.customer_id,
            &b.associate_id,
        ))
    });
    Ok(CustomerFacts {
        associations,
        purchases: purchases_from_rows(&purchases),
        totals: totals_from_row(totals.as_ref()),
        points_balance: balance.unwrap_or(0),
    })
}

impl Store {
    /// The facts of `customer_id`, with purchases since `history_since` when given.
    pub async fn customer_facts(
        &self,
        company: &str,
        customer_id: &str,
        history_since: Option<Timestamp>,
    ) -> ApiResult<CustomerFacts> {
        let mut response = self
            .db
            .query(FACT_STATEMENTS)
            .bind(("company", company.to_string()))
            .bind(("customer", customer_id.to_string()))
            .bind(("since", history_since.map(|t| t.to_string())))
            .await
            .and_then(|r| r.check())
            .map_err(store_error)?;
        facts_from(&mut response)
    }

    /// The facts of `customer_id` and the state of the Instant Wins of
    /// `queries`, in one round trip.
    pub async fn customer_facts_and_states(
        &self,
        company: &str,
        customer_id: &str,
        history_since: Option<Timestamp>,
        queries: &[StateQuery],
    ) -> ApiResult<(CustomerFacts, DrawState)> {
        if queries.is_empty() {
            let facts = self
                .customer_facts(company, customer_id, history_since)
                .await?;
            return Ok((facts, DrawState::default()));
        }
        let read = self.plan_state_read(company, queries);
        let query = self
            .db
            .query(format!("{FACT_STATEMENTS}{}", read.statements()))
            .bind(("company", company.to_string()))
            .bind(("customer", customer_id.to_string()))
            .bind(("since", history_since.map(|t| t.to_string())));
        let mut response = read
            .bind(query)
            .await
            .and_then(|r| r.check())
            .map_err(store_error)?;
        let facts = facts_from(&mut response)?;
        let state = read.read(self, &mut response, FACT_STATEMENT_COUNT)?;
        Ok((facts, state))
    }
}
