//! Request parameters several resource groups share: a store named by id or
//! by code, resolved through the catalogue. (A Customer named by id or by code is
//! [`crate::resources::customers::service::CustomerRef`].)

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::master_data::snapshot::MasterData;

/// The store named by `location_id`, `location_code` or both, as its code:
/// an id of a Location of the catalogue is its code; an id the catalogue
/// does not know is taken as a code (stores that are not master data are
/// named by their code either way). Two that name different stores name
/// no store: `location_not_found`.
pub(crate) fn location(
    catalogue: &MasterData,
    id: Option<String>,
    code: Option<String>,
) -> ApiResult<Option<String>> {
    let by_id = id.map(|id| {
        catalogue
            .location_by_id(&id)
            .and_then(|location| location.facts["code"].as_str().map(str::to_string))
            .unwrap_or(id)
    });
    match (by_id, code) {
        (Some(id_code), Some(code)) => {
            let same = id_code == code
                || catalogue.location(&code).is_some_and(|location| {
                    location.facts["code"].as_str() == Some(id_code.as_str())
                });
            if same {
                Ok(Some(id_code))
            } else {
                Err(ApiError::new(
                    ErrorCode::LocationNotFound,
                    format!("no store has location_id `{id_code}` and location_code `{code}`"),
                ))
            }
        }
        (id, code) => Ok(id.or(code)),
    }
}
