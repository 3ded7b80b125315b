//! A campaign's `limits` as a campaign file writes them and the API takes
//! and answers them: one limit's counts, period and scope. What they mean
//! and how they are counted is the service's `resources::limits`.

use serde::Deserialize;
use serde::Serialize;

use crate::amount::SentAmount;

/// The period a limit counts over, on the Company's clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[cfg_attr(feature = "openapi", oai(rename_all = "snake_case"))]
#[serde(rename_all = "snake_case")]
pub enum LimitPeriod {
    /// A calendar day.
    Day,
    /// An ISO week, Monday to Sunday.
    Week,
    /// A calendar month.
    Month,
    /// A calendar year.
    Year,
}

/// Whom or where a limit counts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[cfg_attr(feature = "openapi", oai(rename_all = "snake_case"))]
#[serde(rename_all = "snake_case")]
pub enum LimitEach {
    /// Each Location (events with no Location count together).
    Location,
    /// Each Customer.
    Customer,
}

/// One limit as the API takes and answers it, and as a campaign file
/// writes it: at least one of `redemptions` and `amount` (a discount or
/// Coupon) or `points` (a points campaign); over `per` (absent: ever) and
/// for `each` Location or Customer (absent: the whole Company).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(deny_unknown_fields))]
#[serde(deny_unknown_fields)]
pub struct OfferLimitRules {
    /// Most redemptions (carts it took money off; Voucher uses; for a
    /// points campaign, events it credited), 1 to 1000000000.
    #[cfg_attr(
        feature = "openapi",
        oai(
            skip_serializing_if_is_none,
            validator(minimum(value = "1"), maximum(value = "1000000000"))
        )
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redemptions: Option<u64>,
    /// A discount or Coupon: most money it takes off in all, more than 0,
    /// in the currency's decimals.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<SentAmount>,
    /// A points campaign: most points it gives in all (wallet cents for a
    /// `balance: wallet` campaign), 1 to 1000000000.
    #[cfg_attr(
        feature = "openapi",
        oai(
            skip_serializing_if_is_none,
            validator(minimum(value = "1"), maximum(value = "1000000000"))
        )
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<u64>,
    /// The period it counts over; absent: ever.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<LimitPeriod>,
    /// `location` or `customer`: a counter for each; absent: one for the
    /// Company.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub each: Option<LimitEach>,
}

/// The amounts of `limits` with the field each is sent in
/// (`limits[0].amount`), to be checked against the Company's currency.
pub fn limit_amount_fields(limits: Option<&[OfferLimitRules]>) -> Vec<(String, &SentAmount)> {
    limits
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter_map(|(index, limit)| {
            limit
                .amount
                .as_ref()
                .map(|amount| (format!("limits[{index}].amount"), amount))
        })
        .collect()
}
