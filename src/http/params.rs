//! Request parameters several resource groups share: a store named by id or
//! by code. (A Customer named by id or by code is
//! [`crate::resources::customers::service::CustomerRef`].)

use crate::error::ApiError;
use crate::error::ApiResult;

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
