//! Reading Customers in bulk: by lists of ids, and by search filters, each
//! answered from an index (`schema.surql`), never by reading every Customer
//! of the Company.

use serde_json::Value;

use crate::error::ApiResult;
use crate::resources::customers::model::Customer;
use crate::resources::customers::store::from_document;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::page_query::PageQuery;
use crate::storage::store_error;

/// One condition of a Customer search.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchFilter {
    /// A field of the stored document (`cid`, `first_name`, ...), named by
    /// the service's whitelist, never by raw input.
    Field(&'static str, Value),
    /// An attribute of the Company's own, by name.
    Attribute(String, Value),
}

/// A search's statement: its text (`{after}` and `{limit}` not yet
/// applied) and values.
enum SearchPlan {
    /// Through the index of a document field (or the Company's, with no
    /// field filter), other filters checked on each Customer it reads.
    Fields(PageQuery),
    /// Through the attribute index, for a search by attributes only.
    Attribute {
        name: String,
        value: Value,
        others: Vec<(String, Value)>,
    },
}

impl SearchPlan {
    fn of(filters: &[SearchFilter]) -> SearchPlan {
        let only_attributes = !filters.is_empty()
            && filters
                .iter()
                .all(|filter| matches!(filter, SearchFilter::Attribute(..)));
        if only_attributes && let Some(SearchFilter::Attribute(name, value)) = filters.first() {
            return SearchPlan::Attribute {
                name: name.clone(),
                value: value.clone(),
                others: filters[1..].iter().map(condition).collect(),
            };
        }
        let mut query = PageQuery::new("SELECT * OMIT id FROM customer", "cid");
        for (index, (field, value)) in filters.iter().map(condition).enumerate() {
            query = query.filter(&format!("{field} = $f{index}"), &format!("f{index}"), value);
        }
        SearchPlan::Fields(query)
    }
}

/// The stored field a filter reads, and its value.
fn condition(filter: &SearchFilter) -> (String, Value) {
    match filter {
        SearchFilter::Field(field, value) => (field.to_string(), value.clone()),
        SearchFilter::Attribute(name, value) => (format!("attributes.`{name}`"), value.clone()),
    }
}

impl Store {
    /// Customers of `company` matching every filter, in id order, after
    /// `starting_after`, at most `limit`.
    pub async fn search_customers(
        &self,
        company: &str,
        filters: &[SearchFilter],
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<Customer>> {
        let documents: Vec<Value> = match SearchPlan::of(filters) {
            SearchPlan::Fields(query) => query.fetch(self, company, starting_after, limit).await?,
            plan => {
                let mut response = self
                    .attribute_search(company, plan, starting_after, limit, "")
                    .await?;
                response.take(0).map_err(store_error)?
            }
        };
        documents
            .into_iter()
            .map(|d| from_document(d).map(|s| s.customer))
            .collect()
    }

    /// How the store plans [`Store::search_customers`] (its `EXPLAIN`), for
    /// the test that every search field reads an index.
    pub async fn explain_customer_search(
        &self,
        company: &str,
        filters: &[SearchFilter],
    ) -> ApiResult<Value> {
        match SearchPlan::of(filters) {
            SearchPlan::Fields(query) => query.explain(self, company, Some(""), 10).await,
            plan => {
                let mut response = self
                    .attribute_search(company, plan, Some(""), 10, " EXPLAIN")
                    .await?;
                let plan: Option<Value> = response.take(0).map_err(store_error)?;
                Ok(plan.unwrap_or(Value::Null))
            }
        }
    }

    /// The Customers of an attribute search: a page of the attribute index,
    /// read a page at a time; with more attributes, each Customer of the
    /// first one's index entries is checked for the others.
    async fn attribute_search(
        &self,
        company: &str,
        plan: SearchPlan,
        starting_after: Option<&str>,
        limit: usize,
        suffix: &str,
    ) -> ApiResult<surrealdb::IndexedResults> {
        let SearchPlan::Attribute {
            name,
            value,
            others,
        } = plan
        else {
            return Err(crate::error::ApiError::internal("not an attribute search"));
        };
        let after = if starting_after.is_some() {
            " AND cid > $after"
        } else {
            ""
        };
        let checks: Vec<String> = others
            .iter()
            .enumerate()
            .map(|(index, (field, _))| format!("{field} = $f{index}"))
            .collect();
        // With nothing else to check, the index's page is the answer's.
        let (inner_limit, outer) = if checks.is_empty() {
            (" LIMIT $limit", String::new())
        } else {
            ("", format!(" WHERE {} LIMIT $limit", checks.join(" AND ")))
        };
        let text = format!(
            "SELECT * OMIT id FROM (SELECT VALUE type::record('customer', cid) FROM customer_attribute \
             WHERE company = $company AND name = $name AND value = $value{after} ORDER BY cid{inner_limit}){outer}{suffix}"
        );
        let mut request = self
            .db
            .query(text)
            .bind(("company", company.to_string()))
            .bind(("name", name))
            .bind(("value", value))
            .bind(("after", starting_after.unwrap_or_default().to_string()))
            .bind(("limit", limit as i64));
        for (index, (_, value)) in others.into_iter().enumerate() {
            request = request.bind((format!("f{index}"), value));
        }
        request.await.and_then(|r| r.check()).map_err(store_error)
    }

    /// The Customers of `company` among `ids`, in id order; unknown ids are skipped.
    pub async fn customers_by_ids(
        &self,
        company: &str,
        ids: &[String],
    ) -> ApiResult<Vec<Customer>> {
        // Point reads of the records: the planner answers `cid IN $ids` by
        // scanning every Customer of the Company and filtering.
        let documents: Vec<Value> = first(self
            .db
            .query(
                "SELECT * OMIT id FROM $ids.map(|$id| type::record('customer', $id)) WHERE company = $company ORDER BY cid",
            )
            .bind(("company", company.to_string()))
            .bind(("ids", ids.to_vec()))).await?;
        documents
            .into_iter()
            .map(|d| from_document(d).map(|s| s.customer))
            .collect()
    }
}
