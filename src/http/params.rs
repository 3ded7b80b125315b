//! Request parameters several resource groups share: a store named by id or
//! by code. (A Customer named by id or by code is
//! [`crate::resources::customers::service::CustomerRef`].)

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;

/// The store named by `location_id`, `location_code` or both. Until
/// Locations are master data, both name a store by its code, so two that
/// differ name no store: `location_not_found`.
pub(crate) fn location(id: Option<String>, code: Option<String>) -> ApiResult<Option<String>> {
    match (id, code) {
        (Some(id), Some(code)) if id != code => Err(ApiError::new(
            ErrorCode::LocationNotFound,
            format!("no store has location_id `{id}` and location_code `{code}`"),
        )),
        (id, code) => Ok(id.or(code)),
    }
}
