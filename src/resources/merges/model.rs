//! Merges: one Customer folded into another, recorded so it can be undone.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;
use crate::resources::challenges::merges::MovedChallenge;
use crate::resources::customers::model::Card;
use crate::resources::instant_wins::merges::MovedGameParticipations;
use crate::resources::vouchers::merges::MovedVoucher;

/// What a merge moved from the merged Customer to the target, kept until the
/// merge is undone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct MergeRecord {
    /// The Customer that was merged (now inactive, `merged_into` the target).
    pub merged_customer_id: String,
    /// The Customer that received the data.
    pub target_customer_id: String,
    /// Whether the target was created by the merge (POST /customers/transfer-new).
    pub target_created: bool,
    /// When the merge happened.
    pub merged_at: Timestamp,
    /// Whether the merged Customer was active before the merge.
    pub merged_was_active: bool,
    /// Cards moved to the target.
    pub cards: Vec<Card>,
    /// Identifiers moved to the target (transfer-new moves code, e-mail and phone).
    pub identifiers: Vec<MovedIdentifier>,
    /// The merged Customer's associations: moved to the target, or set aside
    /// when the target was that associate or already linked to it.
    pub associations: Vec<MovedAssociation>,
    /// Ids of the carts moved to the target.
    #[serde(default)]
    pub carts: Vec<String>,
    /// Points moved to the target's balance.
    #[serde(default)]
    pub points: i64,
    /// Wallet money moved to the target's wallet.
    #[serde(default)]
    pub wallet: i64,
    /// What the kinds with a part in merges moved.
    #[oai(flatten)]
    #[serde(flatten)]
    pub holdings: MovedHoldings,
}

/// What a merge moved of what Customers hold, a field for each kind with
/// a part in merges, named by its `MergePart` (a test checks each has
/// one here).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Object)]
pub struct MovedHoldings {
    /// Ids of the Reward transactions moved to the target.
    #[serde(default)]
    pub rewards: Vec<String>,
    /// Game participations moved to the target.
    #[serde(default)]
    pub game_participations: Vec<MovedGameParticipations>,
    /// Vouchers moved to the target (one the target already had a Voucher
    /// of the same campaign for stays with the merged Customer).
    #[serde(default)]
    pub vouchers: Vec<MovedVoucher>,
    /// The merged Customer's Challenge progress, folded into the target's.
    #[serde(default)]
    pub challenges: Vec<MovedChallenge>,
}

/// A code, e-mail or phone moved by a merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct MovedIdentifier {
    /// `code`, `email` or `phone`.
    pub kind: String,
    /// The identifier.
    pub value: String,
}

/// An association of the merged Customer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct MovedAssociation {
    /// The other Customer of the link.
    pub associate_id: String,
    /// Kind of link.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    /// When the original link was made.
    pub created_at: Timestamp,
    /// True when the link now joins the target; false when it was set aside.
    pub moved: bool,
}

/// Something a merge moved that could not be given back on unmerge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct NotRestored {
    /// `card`, `code`, `email`, `phone`, `association`, `cart`, `points`,
    /// `reward`, `game_participations` or `voucher`.
    pub kind: String,
    /// The card number, identifier or associate id.
    pub value: String,
    /// Why it stays where it is.
    pub reason: String,
}
