//! Finding Customers in bulk: by lists of ids or phones, and by any field.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::pagination::Page;
use crate::common::pagination::PageRequest;
use crate::common::validate::validate_slug;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::customers::model::Customer;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::model::normalise_card;
use crate::resources::customers::model::normalise_code;
use crate::resources::customers::model::normalise_country;
use crate::resources::customers::model::normalise_email;
use crate::resources::customers::model::normalise_phone;
use crate::resources::customers::search_store::SearchFilter;
use crate::services::Services;

/// Search fields of free text, matched trimmed; each has an index.
const TEXT_FIELDS: [&str; 6] = [
    "first_name",
    "last_name",
    "gender",
    "language",
    "postal_code",
    "birth_date",
];

/// Search fields taking true or false; each has an index.
const FLAG_FIELDS: [&str; 2] = ["active", "loyalty_member"];

/// Most ids or phones one list request may name.
pub const MAX_LIST_VALUES: usize = 20;

impl Services {
    /// The Customers with the given ids or phones (at most
    /// [`MAX_LIST_VALUES`] of each), in id order.
    pub async fn list_customers(
        &self,
        company: &str,
        ids: Vec<String>,
        phones: Vec<String>,
    ) -> ApiResult<Vec<Customer>> {
        if ids.len() > MAX_LIST_VALUES || phones.len() > MAX_LIST_VALUES {
            return Err(ApiError::invalid(format!(
                "at most {MAX_LIST_VALUES} ids and {MAX_LIST_VALUES} phones per request"
            )));
        }
        let mut wanted: Vec<String> = ids.into_iter().map(|id| id.trim().to_string()).collect();
        for phone in phones {
            let phone = normalise_phone(&phone)?;
            if let Some(id) = self
                .store
                .customer_id_by(company, SearchBy::Phone, &phone)
                .await?
            {
                wanted.push(id);
            }
        }
        wanted.sort();
        wanted.dedup();
        self.store.customers_by_ids(company, &wanted).await
    }

    /// Customers whose fields equal every filter, one page at a time, each
    /// filter read from an index (`schema.surql`).
    ///
    /// Filter names: `id`, `code`, `email`, `phone`, `card`, `first_name`,
    /// `last_name`, `birth_date`, `gender`, `language`, `country`,
    /// `postal_code`, `active`, `loyalty_member`, and `attributes.NAME`.
    pub async fn search_customers(
        &self,
        company: &str,
        filters: BTreeMap<String, Value>,
        page: PageRequest,
    ) -> ApiResult<Page<Customer>> {
        let Some(conditions) = self.search_conditions(company, filters).await? else {
            return Ok(Page {
                items: Vec::new(),
                next_token_starts_after: None,
            });
        };
        let fetched = self
            .store
            .search_customers(
                company,
                &conditions,
                page.starting_after.as_deref(),
                page.fetch_limit(),
            )
            .await?;
        Ok(Page::from_fetched(fetched, &page, |c| c.id.clone()))
    }

    /// How the store plans the search by `filters` (its `EXPLAIN`); `None`
    /// when an identifier filter names no Customer (nothing is read).
    pub async fn explain_customer_search(
        &self,
        company: &str,
        filters: BTreeMap<String, Value>,
    ) -> ApiResult<Option<Value>> {
        match self.search_conditions(company, filters).await? {
            Some(conditions) => self
                .store
                .explain_customer_search(company, &conditions)
                .await
                .map(Some),
            None => Ok(None),
        }
    }

    /// The store's conditions for `filters`; `None` when one names an
    /// identifier no Customer holds (nothing can match).
    async fn search_conditions(
        &self,
        company: &str,
        filters: BTreeMap<String, Value>,
    ) -> ApiResult<Option<Vec<SearchFilter>>> {
        let mut conditions = Vec::new();
        for (name, value) in filters {
            match self.search_condition(company, &name, value).await? {
                Some(condition) => conditions.push(condition),
                None => return Ok(None),
            }
        }
        Ok(Some(conditions))
    }

    /// Turns one search filter into a stored field and value; `None` when the
    /// filter names an identifier no Customer holds. Identifiers are found
    /// through their claims, so a search by one reads one Customer.
    async fn search_condition(
        &self,
        company: &str,
        name: &str,
        value: Value,
    ) -> ApiResult<Option<SearchFilter>> {
        let text = |value: &Value| -> ApiResult<String> {
            value
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| ApiError::invalid(format!("filter `{name}` takes a string")))
        };
        let identifier = match name {
            "card" => Some((SearchBy::Card, normalise_card(&text(&value)?)?)),
            "code" => Some((SearchBy::Code, normalise_code(&text(&value)?)?)),
            "email" => Some((SearchBy::Email, normalise_email(&text(&value)?)?)),
            "phone" => Some((SearchBy::Phone, normalise_phone(&text(&value)?)?)),
            _ => None,
        };
        if let Some((kind, value)) = identifier {
            return Ok(self
                .store
                .customer_id_by(company, kind, &value)
                .await?
                .map(|id| SearchFilter::Field("cid", Value::String(id))));
        }
        let field = |field: &'static str, value: Value| Ok(Some(SearchFilter::Field(field, value)));
        if let Some(text_field) = TEXT_FIELDS.iter().find(|field| **field == name) {
            // Trimmed as in paths and `?ids=`.
            return field(text_field, Value::String(text(&value)?.trim().to_string()));
        }
        if let Some(flag_field) = FLAG_FIELDS.iter().find(|field| **field == name) {
            let flag = value
                .as_bool()
                .ok_or_else(|| ApiError::invalid(format!("filter `{name}` takes true or false")))?;
            return field(flag_field, Value::Bool(flag));
        }
        match name {
            "id" => field("cid", Value::String(text(&value)?.trim().to_string())),
            "country" => field("country", Value::String(normalise_country(&text(&value)?)?)),
            other => {
                let Some(attribute) = other.strip_prefix("attributes.") else {
                    return Err(ApiError::invalid(format!(
                        "cannot search by `{other}`; see the search endpoint's description for the fields"
                    )));
                };
                validate_slug("attribute name", attribute)?;
                if value.is_object() || value.is_array() {
                    return Err(ApiError::invalid(format!(
                        "filter `{other}` takes a string, number or boolean"
                    )));
                }
                Ok(Some(SearchFilter::Attribute(attribute.to_string(), value)))
            }
        }
    }
}
