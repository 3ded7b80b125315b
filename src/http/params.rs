//! Request parameters several resource groups share: a Customer named by id
//! or by code, and a store named by id or by code.

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::service::CustomerRef;

/// The Customer named by `{prefix}_id` or `{prefix}_code` (at most one);
/// `None` when neither is given.
pub(crate) fn optional_customer<'a>(
    id: &'a Option<String>,
    code: &'a Option<String>,
    prefix: &str,
) -> ApiResult<Option<CustomerRef<'a>>> {
    match (id, code) {
        (Some(_), Some(_)) => Err(ApiError::invalid(format!(
            "name the Customer with {prefix}_id or {prefix}_code, not both"
        ))),
        (Some(id), None) => Ok(Some(CustomerRef::id(id))),
        (None, Some(code)) => Ok(Some(CustomerRef {
            value: code,
            search_by: SearchBy::Code,
        })),
        (None, None) => Ok(None),
    }
}

/// The Customer named by exactly one of `{prefix}_id` and `{prefix}_code`.
pub(crate) fn required_customer<'a>(
    id: &'a Option<String>,
    code: &'a Option<String>,
    prefix: &str,
) -> ApiResult<CustomerRef<'a>> {
    optional_customer(id, code, prefix)?.ok_or_else(|| {
        ApiError::invalid(format!(
            "name the Customer with exactly one of {prefix}_id and {prefix}_code"
        ))
    })
}

/// The store named by `location_id` or `location_code` (at most one). Until
/// Locations are master data, both name a store by its code.
pub(crate) fn location(id: Option<String>, code: Option<String>) -> ApiResult<Option<String>> {
    match (id, code) {
        (Some(_), Some(_)) => Err(ApiError::invalid(
            "name the store with location_id or location_code, not both",
        )),
        (id, code) => Ok(id.or(code)),
    }
}
