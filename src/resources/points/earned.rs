//! The points a campaign's effects earn, as ledger entries: what the points
//! campaign kind contributes to the event pipeline's write.

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::resources::points::model::PointsKind;
use crate::resources::points::store::ledger::LedgerEntry;

/// The ledger entries crediting `customer_id` with the points of `effects`,
/// in the balance and with the expiry their campaign (in `campaigns`) sets.
pub(crate) fn earned_points(
    effects: &[Effect],
    campaigns: &[Campaign],
    customer_id: &str,
    reason: &str,
    cart_id: Option<&str>,
    at: Timestamp,
) -> Vec<LedgerEntry> {
    effects
        .iter()
        .filter_map(|effect| {
            let points = effect.points()?;
            let rule_id = effect.rule_id();
            let accrual = campaigns.iter().find_map(|c| match &c.kind {
                CampaignKind::Points(accrual) if c.id == rule_id => Some(accrual),
                _ => None,
            });
            Some(LedgerEntry {
                rule_id: Some(rule_id),
                cart_id: cart_id.map(str::to_string),
                expires_at: accrual.and_then(|a| a.expiry).map(|e| e.of(at)),
                ..LedgerEntry::new(
                    customer_id,
                    accrual.map_or(PointsKind::Points, |a| a.kind),
                    points,
                    reason,
                    at,
                )
            })
        })
        .collect()
}
