//! How the `{id}` of a Product and the `{value}` of a Location are read.

use poem_openapi::Enum;
use serde::{Deserialize, Serialize};

/// Which identifier the `{id}` of a Product or the `{value}` of a Location is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum MasterSearchBy {
    /// The service id (`prd_...`, `loc_...`).
    #[default]
    Id,
    /// The Company's code (for Products, also any of their aliases).
    Code,
}
