//! The points a campaign's effects earn, as ledger entries: what the points
//! campaign kind contributes to the event pipeline's write.

use crate::engine::effect::Effect;
use crate::engine::effect::PointsEffect;
use crate::engine::kinds::CampaignKind;
use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::EntryContext;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;

/// Points campaigns' part of the pipeline.
pub(crate) struct PointsCampaigns;

impl Contribution for PointsCampaigns {
    fn earned_entries(&self, effect: &Effect, context: &EntryContext<'_>) -> Vec<LedgerEntry> {
        match effect {
            Effect::Points(points) => vec![points_entry(points, context)],
            _ => Vec::new(),
        }
    }
}

/// The ledger entry crediting the points of `effect`, in the balance and
/// with the expiry its campaign sets.
fn points_entry(effect: &PointsEffect, context: &EntryContext<'_>) -> LedgerEntry {
    let accrual = context.campaigns.iter().find_map(|c| match &c.kind {
        CampaignKind::Points(accrual) if c.id == effect.rule_id => Some(accrual),
        _ => None,
    });
    LedgerEntry {
        rule_id: Some(effect.rule_id),
        cart_id: context.cart_id.map(str::to_string),
        expires_at: accrual
            .and_then(|a| a.expiry)
            .map(|e| e.of(context.at, context.locale)),
        ..LedgerEntry::new(
            context.customer_id,
            accrual.map_or(PointsKind::Points, |a| a.kind),
            effect.points,
            context.reason,
            context.at,
        )
    }
}
