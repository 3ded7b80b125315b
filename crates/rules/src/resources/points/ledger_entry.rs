//! One entry of the points ledger: the record every credit and debit is,
//! made by the rules (a campaign's points, a prize, a Reward) and by the
//! use-cases alike, and written by the ledger's store
//! (the service's `resources::points::store::ledger`).

use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;
use crate::resources::points::model::PointsKind;

/// One append-only entry of the points ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// The Customer credited (positive) or debited (negative).
    pub customer_id: String,
    /// The balance it moves.
    #[serde(default)]
    pub kind: PointsKind,
    /// Amount.
    pub points: i64,
    /// Why: `cart`, `custom_event`, `trigger:TYPE`, `instant_win`,
    /// `redemption`, `transfer`, `cancellation`, `merge`, `unmerge`, `reward` or
    /// `reward_rollback`.
    pub reason: String,
    /// The campaign that earned them.
    pub rule_id: Option<i64>,
    /// The cart that earned or redeemed them.
    pub cart_id: Option<String>,
    /// The Instant Win draw whose prize they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_id: Option<String>,
    /// The redemption or transfer the entry belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// Transfers: the other Customer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterpart_id: Option<String>,
    /// Who asked for it (`X-Author-Email`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_email: Option<String>,
    /// A note from the caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Credits: when what is left of them expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
    /// When.
    pub created_at: Timestamp,
}

impl LedgerEntry {
    /// An entry of `points` of `kind` for `customer_id`, with no references.
    pub fn new(
        customer_id: &str,
        kind: PointsKind,
        points: i64,
        reason: &str,
        created_at: Timestamp,
    ) -> Self {
        LedgerEntry {
            customer_id: customer_id.to_string(),
            kind,
            points,
            reason: reason.to_string(),
            rule_id: None,
            cart_id: None,
            draw_id: None,
            operation_id: None,
            counterpart_id: None,
            author_email: None,
            description: None,
            expires_at: None,
            created_at,
        }
    }

    /// The entry crediting `customer_id` with the points prize of draw
    /// `draw_id`: `points` of `kind` from the points campaign `promotion_id`.
    pub fn instant_win_prize(
        customer_id: &str,
        draw_id: &str,
        promotion_id: i64,
        kind: PointsKind,
        points: i64,
        expires_at: Option<Timestamp>,
        at: Timestamp,
    ) -> Self {
        LedgerEntry {
            rule_id: Some(promotion_id),
            draw_id: Some(draw_id.to_string()),
            expires_at,
            ..LedgerEntry::new(customer_id, kind, points, "instant_win", at)
        }
    }
}
