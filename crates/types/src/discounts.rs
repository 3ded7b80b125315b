//! What a discount's percentage is taken of, as a campaign file's
//! `stacking` section writes it and the API takes and answers it.

use serde::Deserialize;
use serde::Serialize;

/// What a percentage is taken of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[cfg_attr(feature = "openapi", oai(rename_all = "snake_case"))]
#[serde(rename_all = "snake_case")]
pub enum DiscountBase {
    /// The price on the shelf, whatever was taken off before (still never
    /// more than is left). The default of discount campaigns.
    Original,
    /// What is left to pay after the offers before it. The default of
    /// Coupons, whose Vouchers are presented at the end of a sale.
    Discounted,
}
