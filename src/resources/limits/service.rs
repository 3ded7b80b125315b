//! What the limited campaigns of an event may still give, read before it
//! is evaluated.

use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiResult;
use crate::pipeline::contribution::EventScope;
use crate::resources::limits::Headroom;
use crate::resources::limits::Redeeming;
use crate::services::Services;

impl Services {
    /// Fills `facts.limits` with the headroom of every limited campaign
    /// `event` may apply: discount and points campaigns listening
    /// to it and the Coupons of the Vouchers a cart presents, from one read
    /// of their counters; reads nothing when none is limited.
    pub(crate) async fn read_limits(
        &self,
        event: &EventScope<'_>,
        facts: &mut Facts,
    ) -> ApiResult<()> {
        let limited: Vec<_> = event
            .rules
            .campaigns
            .iter()
            .filter(|campaign| {
                !campaign.limits.is_empty()
                    && match campaign.kind {
                        CampaignKind::Discount(_) | CampaignKind::Points(_) => {
                            campaign.listens == *event.listens
                        }
                        CampaignKind::Coupon(_) => facts
                            .vouchers
                            .iter()
                            .any(|voucher| voucher.coupon_id == campaign.id),
                        _ => false,
                    }
            })
            .collect();
        if limited.is_empty() {
            return Ok(());
        }
        let redeeming = Redeeming::of_facts(facts);
        let keys: Vec<Vec<String>> = limited
            .iter()
            .flat_map(|campaign| {
                campaign
                    .limits
                    .iter()
                    .map(|limit| limit.counter_key(campaign.id, &redeeming))
            })
            .collect();
        let counted = self.store.limit_counters(event.company, &keys).await?;
        let headroom = limited
            .iter()
            .map(|campaign| {
                (
                    campaign.id,
                    Headroom::of(campaign.id, &campaign.limits, &redeeming, &counted),
                )
            })
            .collect();
        facts.limits = headroom;
        Ok(())
    }
}
