//! Points and wallet: the balances a Customer holds, each fed by its own
//! entries of the append-only ledger.

use poem_openapi::{Enum, Object};
use serde::{Deserialize, Serialize};

use super::Timestamp;

/// Which balance an entry moves: loyalty points, or wallet money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, Enum)]
#[serde(rename_all = "lowercase")]
#[oai(rename_all = "lowercase")]
pub enum PointsKind {
    /// Loyalty points.
    #[default]
    Points,
    /// Wallet money, in the Company's currency (in cents).
    Wallet,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
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
    /// `expiry`, `cancellation`, `merge`, `unmerge`.
    pub reason: String,
    /// The campaign that earned them.
    #[oai(skip_serializing_if_is_none)]
    pub rule_id: Option<i64>,
    /// The cart that earned or redeemed them.
    #[oai(skip_serializing_if_is_none)]
    pub cart_id: Option<String>,
    /// The Instant Win draw whose prize they are.
    #[oai(skip_serializing_if_is_none)]
    pub draw_id: Option<String>,
    /// Redemptions and transfers: the operation both of its entries share.
    #[oai(skip_serializing_if_is_none)]
    pub operation_id: Option<String>,
    /// Transfers: the other Customer.
    #[oai(skip_serializing_if_is_none)]
    pub counterpart_id: Option<String>,
    /// Who asked for it (the `X-Author-Email` header), when given.
    #[oai(skip_serializing_if_is_none)]
    pub author_email: Option<String>,
    /// A note from the caller.
    #[oai(skip_serializing_if_is_none)]
    pub description: Option<String>,
    /// Credits: when what is left of them expires.
    #[oai(skip_serializing_if_is_none)]
    pub expires_at: Option<Timestamp>,
    /// When.
    pub created_at: Timestamp,
}
