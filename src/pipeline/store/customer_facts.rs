//! A Customer's stored facts (associations, purchase days, totals, points
//! balance): the statements that read them in a Customer's first read, and
//! the facts made from their results.

use std::sync::Arc;

use serde_json::Value;
use surrealdb::IndexedResults;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::associations::model::Association;
use crate::resources::associations::store::ASSOCIATIONS_OF_CUSTOMER;
use crate::resources::associations::store::from_document;
use crate::resources::carts::purchase_days::PurchaseDays;
use crate::resources::carts::purchase_days::PurchaseTotals;
use crate::resources::carts::store::days_from_months;
use crate::resources::carts::store::totals_from_row;
use crate::storage::store_error;

/// The stored facts of one Customer.
#[derive(Debug, Clone, Default)]
pub struct CustomerFacts {
    /// Associations the Customer takes part in, oldest first.
    pub associations: Vec<Association>,
    /// Purchases by day, from the month of the requested instant on;
    /// empty when no history was requested. Shared, not copied, by the
    /// Customer kept in memory and each evaluation reading it.
    pub history: Arc<PurchaseDays>,
    /// Lifetime totals.
    pub totals: PurchaseTotals,
    /// Points balance.
    pub points_balance: i64,
}

/// The statements reading a Customer's facts after its associations
/// ([`ASSOCIATIONS_OF_CUSTOMER`], one statement); they read `$company`,
/// `$customer` and `$since_month` (the purchase days of the months from it
/// on are read when it is set: a range of ids, whatever the Customer
/// bought). The totals and the balance are fields of the Customer's state
/// ([`crate::resources::customers::state`]), read by id in an expression,
/// not a `SELECT`, which SurrealDB plans at five to eight times the read's
/// cost.
const FACT_STATEMENTS: &str = "
    IF $since_month { SELECT month, days FROM purchase_month:[$company, $customer, $since_month]..[$company, $customer, '~'] } ELSE { [] };
    type::record('customer_state', [$company, $customer]).{lifetime_spend, cart_count, last_purchase, points};";

/// The first month whose purchase days a read from `since` takes: the
/// month of the day before it, so that a day of any time zone that
/// `since` falls in is read whole.
pub(super) fn first_month(since: Timestamp) -> String {
    (since.as_datetime() - chrono::Duration::days(1))
        .format("%Y-%m")
        .to_string()
}

/// The statements reading a Customer's facts, appended to `text`: its
/// associations ([`ASSOCIATIONS_OF_CUSTOMER`]), then [`FACT_STATEMENTS`].
pub(super) fn push_fact_statements(text: &mut String) {
    text.push_str(ASSOCIATIONS_OF_CUSTOMER);
    text.push_str(FACT_STATEMENTS);
}

/// How many statements a Customer's facts are read by: those of
/// [`ASSOCIATIONS_OF_CUSTOMER`] and [`FACT_STATEMENTS`].
pub(super) const FACT_STATEMENT_COUNT: usize = 3;

/// The facts, from the results of [`ASSOCIATIONS_OF_CUSTOMER`] and
/// [`FACT_STATEMENTS`] (statements `first` to `first + 2`).
pub(super) fn facts_from(response: &mut IndexedResults, first: usize) -> ApiResult<CustomerFacts> {
    let links: Vec<Value> = response.take(first).map_err(store_error)?;
    let months: Vec<Value> = response.take(first + 1).map_err(store_error)?;
    let state: Option<Value> = response.take(first + 2).map_err(store_error)?;
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
        history: Arc::new(days_from_months(&months)),
        totals: totals_from_row(state.as_ref()),
        points_balance: state
            .as_ref()
            .and_then(|state| state["points"].as_i64())
            .unwrap_or(0),
    })
}
