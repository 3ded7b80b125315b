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
use crate::services::Services;

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

    /// Customers whose fields equal every filter, one page at a time.
    ///
    /// Filter names: `code`, `email`, `phone`, `card`, `first_name`,
    /// `last_name`, `birth_date`, `gender`, `language`, `country`,
    /// `postal_code`, `active`, `loyalty_member`, and `attributes.NAME`.
    pub async fn search_customers(
        &self,
        company: &str,
        filters: BTreeMap<String, Value>,
        page: PageRequest,
    ) -> ApiResult<Page<Customer>> {
        let mut conditions = Vec::new();
        for (name, value) in filters {
            match self.search_condition(company, &name, value).await? {
                Some(condition) => conditions.push(condition),
                // An identifier nobody holds: nothing can match.
                None => {
                    return Ok(Page {
                        items: Vec::new(),
                        next_token_starts_after: None,
                    });
                }
            }
        }
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

    /// Turns one search filter into a stored field and value; `None` when the
    /// filter names an identifier no Customer holds.
    async fn search_condition(
        &self,
        company: &str,
        name: &str,
        value: Value,
    ) -> ApiResult<Option<(String, Value)>> {
        let text = |value: &Value| -> ApiResult<String> {
            value
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| ApiError::invalid(format!("filter `{name}` takes a string")))
        };
        let condition = match name {
            "card" => {
                let number = normalise_card(&text(&value)?)?;
                return Ok(self
                    .store
                    .customer_id_by(company, SearchBy::Card, &number)
                    .await?
                    .map(|id| ("cid".to_string(), Value::String(id))));
            }
            // Trimmed as in paths and `?ids=`.
            "id" => (
                "cid".to_string(),
                Value::String(text(&value)?.trim().to_string()),
            ),
            "code" => (
                name.to_string(),
                Value::String(normalise_code(&text(&value)?)?),
            ),
            "email" => (
                name.to_string(),
                Value::String(normalise_email(&text(&value)?)?),
            ),
            "phone" => (
                name.to_string(),
                Value::String(normalise_phone(&text(&value)?)?),
            ),
            "country" => (
                name.to_string(),
                Value::String(normalise_country(&text(&value)?)?),
            ),
            "first_name" | "last_name" | "gender" | "language" | "postal_code" | "birth_date" => (
                name.to_string(),
                Value::String(text(&value)?.trim().to_string()),
            ),
            "active" | "loyalty_member" => {
                let flag = value.as_bool().ok_or_else(|| {
                    ApiError::invalid(format!("filter `{name}` takes true or false"))
                })?;
                (name.to_string(), Value::Bool(flag))
            }
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
                (format!("attributes.`{attribute}`"), value)
            }
        };
        Ok(Some(condition))
    }
}
