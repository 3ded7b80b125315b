//! Points and wallet: the balances a Customer holds, each fed by its own
//! entries of the append-only ledger.

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// Largest amount one operation may move, and one campaign give for one
/// event: with it every balance stays an exact integer in any client.
pub const MAX_POINTS: i64 = 1_000_000_000;

/// Which balance an entry moves: loyalty points, or wallet money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", oai(rename_all = "lowercase"))]
pub enum PointsKind {
    /// Loyalty points.
    #[default]
    Points,
    /// Wallet money, in the Company's currency (in cents).
    Wallet,
}

/// How points earned per amount are rounded to whole points, applied to the
/// exact amount times the rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", oai(rename_all = "lowercase"))]
pub enum PointsRounding {
    /// Down to the whole point below (12.99 → 12); the default.
    #[default]
    Floor,
    /// To the nearest whole point, halves away from zero (12.5 → 13).
    Nearest,
    /// Up to the whole point above (12.01 → 13).
    Ceil,
}

/// What `per_amount` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", oai(rename_all = "lowercase"))]
pub enum PerAmountOf {
    /// The cart's total, before any discount; the default.
    #[default]
    Total,
    /// What the Customer pays: the total less what this cart's discounts
    /// and Vouchers took off.
    Paid,
}

impl PointsKind {
    /// The kind's name in requests, responses and storage.
    pub fn name(self) -> &'static str {
        match self {
            PointsKind::Points => "points",
            PointsKind::Wallet => "wallet",
        }
    }
}

/// One ledger entry as GET /points/transactions returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct PointsTransaction {
    /// Entry identifier.
    pub id: String,
    /// The Customer credited (positive) or debited (negative).
    pub customer_id: String,
    /// The balance moved.
    pub kind: PointsKind,
    /// Amount: points, or wallet cents.
    pub points: i64,
    /// Why: `cart` (earned on a cart), `custom_event`, `trigger:TYPE`,
    /// `instant_win` (a prize), `redemption`, `transfer`, `adjustment`,
    /// `expiry`, `cancellation`, `merge`, `unmerge`, `reward` (a Reward redeemed,
    /// or the points it gave), `reward_rollback`.
    pub reason: String,
    /// The campaign that earned them.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    pub rule_id: Option<i64>,
    /// The cart that earned or redeemed them.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    pub cart_id: Option<String>,
    /// The Instant Win draw whose prize they are.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    pub draw_id: Option<String>,
    /// Redemptions and transfers: the operation both of its entries share.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    pub operation_id: Option<String>,
    /// Transfers: the other Customer.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    pub counterpart_id: Option<String>,
    /// Who asked for it (the `X-Author-Email` header), when given.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    pub author_email: Option<String>,
    /// A note from the caller.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    pub description: Option<String>,
    /// Credits: when what is left of them expires.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    pub expires_at: Option<Timestamp>,
    /// When.
    pub created_at: Timestamp,
}
