//! One keyset-paginated list query: every list endpoint (carts, Custom
//! Events, ledger entries, Customer search) reads a page the same way.

use serde_json::{Map, Value};

use crate::error::ApiResult;
use crate::storage::Store;
use crate::storage::store_error;

/// `SELECT … FROM … WHERE company = $company AND <filters> AND <key after
/// the cursor> ORDER BY <key> LIMIT $limit`, with every value bound, never
/// spliced into the text.
#[derive(Debug)]
pub(crate) struct PageQuery {
    select: &'static str,
    key: &'static str,
    newest_first: bool,
    conditions: Vec<String>,
    bindings: Map<String, Value>,
}

impl PageQuery {
    /// Rows of `select` (`SELECT … FROM table`) in ascending `key` order.
    pub fn new(select: &'static str, key: &'static str) -> Self {
        PageQuery {
            select,
            key,
            newest_first: false,
            conditions: vec!["company = $company".to_string()],
            bindings: Map::new(),
        }
    }

    /// In descending `key` order instead.
    pub fn newest_first(mut self) -> Self {
        self.newest_first = true;
        self
    }

    /// Only rows where `condition` holds; it reads `$name`, bound to `value`.
    pub fn filter(mut self, condition: &str, name: &str, value: impl Into<Value>) -> Self {
        self.conditions.push(condition.to_string());
        self.bindings.insert(name.to_string(), value.into());
        self
    }

    /// [`PageQuery::filter`] when `value` is given.
    pub fn filter_if<T: Into<Value>>(self, condition: &str, name: &str, value: Option<T>) -> Self {
        match value {
            Some(value) => self.filter(condition, name, value),
            None => self,
        }
    }

    /// At most `limit` rows of `company` after the row keyed `starting_after`.
    pub async fn fetch(
        self,
        store: &Store,
        company: &str,
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<Value>> {
        let mut response = self.send(store, company, starting_after, limit, "").await?;
        response.take(0).map_err(store_error)
    }

    /// How the store plans [`PageQuery::fetch`]: its `EXPLAIN` (for tests that
    /// a list reads an index).
    pub async fn explain(
        self,
        store: &Store,
        company: &str,
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Value> {
        let mut response = self
            .send(store, company, starting_after, limit, " EXPLAIN")
            .await?;
        let plan: Option<Value> = response.take(0).map_err(store_error)?;
        Ok(plan.unwrap_or(Value::Null))
    }

    async fn send(
        self,
        store: &Store,
        company: &str,
        starting_after: Option<&str>,
        limit: usize,
        suffix: &str,
    ) -> ApiResult<surrealdb::IndexedResults> {
        let cursor = if self.newest_first {
            format!("{} < $after", self.key)
        } else {
            format!("{} > $after", self.key)
        };
        let query = self.filter_if(&cursor, "after", starting_after);
        let text = format!(
            "{} WHERE {} ORDER BY {}{} LIMIT $limit{suffix}",
            query.select,
            query.conditions.join(" AND "),
            query.key,
            if query.newest_first { " DESC" } else { "" }
        );
        let mut request = store
            .db
            .query(text)
            .bind(("company", company.to_string()))
            .bind(("limit", limit as i64));
        for (name, value) in query.bindings {
            request = request.bind((name, value));
        }
        request.await.and_then(|r| r.check()).map_err(store_error)
    }
}

impl Store {
    /// Up to `limit` records of `table` (keyed `[company, key]`) of
    /// `company` after the one keyed `after` (from the first when `None`),
    /// in key order: a range of record ids, read without an index however
    /// many records the Company has (an export's pages).
    pub(crate) async fn records_after(
        &self,
        table: &'static str,
        company: &str,
        after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<Value>> {
        // No key is empty: starting after "" starts at the first.
        let text =
            format!("SELECT * FROM {table}:[$company, $after]>..[$company, {{}}] LIMIT $limit");
        crate::storage::first(
            self.db
                .query(text)
                .bind(("company", company.to_string()))
                .bind(("after", after.unwrap_or_default().to_string()))
                .bind(("limit", limit as i64)),
        )
        .await
    }
}
