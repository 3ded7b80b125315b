//! Customers: POST/GET /customers, POST /customers/search,
//! GET/PATCH/DELETE /customers/{value}, POST /customers/{id}/cards.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use std::collections::BTreeMap;

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::resources::customers::model::Customer;
use crate::resources::customers::model::CustomerPatch;
use crate::resources::customers::model::NewCard;
use crate::resources::customers::model::NewCustomer;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::service::CustomerRef;
use crate::resources::customers::service::DeleteMode;

#[derive(Tags)]
enum CustomerTags {
    /// Customers and their identifiers.
    Customers,
}

/// A list of Customers.
#[derive(Debug, Object)]
pub struct CustomerList {
    /// The Customers, in id (creation) order.
    pub customers: Vec<Customer>,
    /// Pass as `starting_after` to get the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}

/// Body of POST /customers/search. A field beside `filters`, `per_page`
/// and `starting_after` is refused: `{"email": ...}` at the top level
/// would otherwise search nothing and answer every Customer.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CustomerSearch {
    /// Field → value; a Customer matches when every field equals its value.
    /// Fields: `id`, `code`, `email`, `phone`, `card`, `first_name`, `last_name`,
    /// `birth_date`, `gender`, `language`, `country`, `postal_code`, `active`,
    /// `loyalty_member`, and `attributes.NAME` for custom attributes.
    #[oai(default)]
    #[oai(validator(max_properties = 50))]
    pub filters: BTreeMap<String, serde_json::Value>,
    /// Page size (default 25, maximum 100).
    #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))]
    pub per_page: Option<u32>,
    /// The previous page's `next_token_starts_after`.
    #[oai(validator(max_length = 128))]
    pub starting_after: Option<String>,
}

/// How DELETE removes the Customer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum DeleteModeParam {
    /// Erase personal data irreversibly; the record, its ledger and carts stay for accounting.
    #[default]
    Anonymize,
    /// Remove the Customer and its identifiers outright.
    Delete,
}

/// Answer of DELETE /customers/{value}.
#[derive(Debug, Object)]
pub struct DeletedCustomer {
    /// The Customer's id.
    pub id: String,
    /// `anonymized` or `deleted`.
    pub result: String,
}

/// Customer endpoints.
#[derive(Debug, Default)]
pub struct CustomersApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for CustomersApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /customers",
            codes: &[ErrorCode::CustomerAlreadyExists],
        },
        OperationErrors {
            operation: "GET /customers",
            codes: &[],
        },
        OperationErrors {
            operation: "POST /customers/search",
            codes: &[],
        },
        OperationErrors {
            operation: "GET /customers/{value}",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "PATCH /customers/{value}",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::IdentifierInUse,
            ],
        },
        OperationErrors {
            operation: "DELETE /customers/{value}",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::DeleteNotAllowed],
        },
        OperationErrors {
            operation: "POST /customers/{id}/cards",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::IdentifierInUse,
            ],
        },
    ];
}

/// Splits repeated and comma-separated query values.
fn split_values(values: Vec<String>) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .collect()
}

#[OpenApi(tag = "CustomerTags::Customers")]
impl CustomersApi {
    /// Create or enroll a Customer.
    ///
    /// Identifiers (`code`, `email`, `phone`, card numbers) are unique within the
    /// Company: if another Customer holds one, the answer is 409
    /// `customer_already_exists` naming it, and nothing is created. They are
    /// compared as kept: trimmed, in Unicode's composed form (NFC: `é` sent
    /// decomposed by a till is the `é` an app sent), e-mails in lower case,
    /// phones without separators; a `code` or `email` with an invisible
    /// formatting character (zero-width space or joiner, byte order mark,
    /// word joiner, soft hyphen, direction mark) is refused with 400.
    /// `enroll` (default true) makes the Customer a loyalty member.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/customers", method = "post")]
    async fn create(
        &self,
        caller: Tier1<'_>,
        body: Json<NewCustomer>,
    ) -> Result<Json<Customer>, ErrorResponse> {
        caller.answers_with(Customer::clone);
        let customer = caller
            .services
            .create_customer(&caller.company, body.0)
            .await?;
        Ok(Json(customer))
    }

    /// List Customers by ids or phones.
    ///
    /// `ids` and `phones` take up to 100 values each, repeated
    /// (`ids=a&ids=b`) or comma-separated (`ids=a,b`). Unknown values are skipped;
    /// with neither, the list is empty.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/customers", method = "get")]
    async fn list(
        &self,
        caller: Tier1<'_>,
        #[oai(validator(max_items = 20))] ids: Query<Vec<String>>,
        #[oai(validator(max_items = 20))] phones: Query<Vec<String>>,
    ) -> Result<Json<CustomerList>, ErrorResponse> {
        let customers = caller
            .services
            .list_customers(&caller.company, split_values(ids.0), split_values(phones.0))
            .await?;
        Ok(Json(CustomerList {
            customers,
            next_token_starts_after: None,
        }))
    }

    /// Search Customers by any field, one page at a time.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/search", method = "post")]
    async fn search(
        &self,
        caller: Tier2<'_>,
        body: Json<CustomerSearch>,
    ) -> Result<Json<CustomerList>, ErrorResponse> {
        let page = PageRequest::new(body.0.per_page, body.0.starting_after)?;
        let page = caller
            .services
            .search_customers(&caller.company, body.0.filters, page)
            .await?;
        Ok(Json(CustomerList {
            customers: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }

    /// Get a Customer.
    ///
    /// `value` is the Customer id, or the identifier named by `search_by`
    /// (`id` by default, `code`, `email`, `phone` or `card`).
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/customers/:value", method = "get")]
    async fn get(
        &self,
        caller: Tier1<'_>,
        value: Path<String>,
        search_by: Query<Option<SearchBy>>,
    ) -> Result<Json<Customer>, ErrorResponse> {
        let stored = caller
            .services
            .find_customer(&caller.company, CustomerRef::by(&value.0, search_by.0))
            .await?;
        Ok(Json(stored.customer))
    }

    /// Update a Customer.
    ///
    /// Absent fields are kept; `null` clears a field. `attributes` are merged
    /// (a `null` attribute is removed). Anonymized or merged Customers refuse
    /// with `customer_inactive`; a taken identifier with `identifier_in_use`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:value", method = "patch")]
    async fn update(
        &self,
        caller: Tier2<'_>,
        value: Path<String>,
        search_by: Query<Option<SearchBy>>,
        body: Json<CustomerPatch>,
    ) -> Result<Json<Customer>, ErrorResponse> {
        caller.answers_with(Customer::clone);
        let customer = caller
            .services
            .update_customer(
                &caller.company,
                CustomerRef::by(&value.0, search_by.0),
                body.0,
            )
            .await?;
        Ok(Json(customer))
    }

    /// Delete or anonymize a Customer.
    ///
    /// By default (`mode=anonymize`) personal data is erased irreversibly: the
    /// Customer can no longer be found by its former code, e-mail, phone or
    /// cards, while its id, ledger and carts stay for the Company's accounting.
    /// `mode=delete` removes the record and its identifiers outright.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/customers/:value", method = "delete")]
    async fn delete(
        &self,
        caller: Tier3<'_>,
        value: Path<String>,
        search_by: Query<Option<SearchBy>>,
        mode: Query<Option<DeleteModeParam>>,
    ) -> Result<Json<DeletedCustomer>, ErrorResponse> {
        let (mode, result) = match mode.0.unwrap_or_default() {
            DeleteModeParam::Anonymize => (DeleteMode::Anonymize, "anonymized"),
            DeleteModeParam::Delete => (DeleteMode::Delete, "deleted"),
        };
        let customer = caller
            .services
            .delete_customer(
                &caller.company,
                CustomerRef::by(&value.0, search_by.0),
                mode,
            )
            .await?;
        Ok(Json(DeletedCustomer {
            id: customer.id,
            result: result.to_string(),
        }))
    }

    /// Create a card associated to a Customer.
    ///
    /// A card number identifies at most one Customer per Company: a number held
    /// by anyone else refuses with `identifier_in_use`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:id/cards", method = "post")]
    async fn add_card(
        &self,
        caller: Tier2<'_>,
        id: Path<String>,
        body: Json<NewCard>,
    ) -> Result<Json<Customer>, ErrorResponse> {
        caller.answers_with(Customer::clone);
        let customer = caller
            .services
            .add_card(&caller.company, CustomerRef::id(&id.0), body.0)
            .await?;
        Ok(Json(customer))
    }
}
