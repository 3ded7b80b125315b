//! Vouchers earned: a `voucher` campaign ([`super::rules`]) issues its
//! Customer a Voucher of a Coupon when a cart, Custom Event or trigger meets
//! its condition, in the event's own transaction (a review earns a Voucher a
//! later cart uses).
//!
//! The code is drawn from the Coupon's pattern when the campaign is
//! evaluated, so the event's answer names it; a Coupon's
//! `issues_per_customer` is read before the evaluation and checked again
//! when the Voucher is written (`coupon_issue_limit_reached`, or a code
//! drawn twice, evaluates the event again on fresh counts).

use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::effect::Effect;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::contribution::EventScope;
use crate::resources::coupons::rules::find_coupon;
use crate::resources::vouchers::model::VoucherIssue;
use crate::services::Services;

/// The Vouchers `effects` issue, to be written with their event.
pub(crate) fn voucher_issues(effects: &[Effect]) -> Vec<VoucherIssue> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::VoucherIssued(issued) => Some(VoucherIssue {
                voucher: issued.voucher.clone(),
                issue_key: format!("campaign:{}:{}", issued.rule_id, issued.voucher.id),
                issues_per_customer: issued.issues_per_customer,
            }),
            _ => None,
        })
        .collect()
}

/// The refusals of an event's write for which it is evaluated again: a
/// Voucher it issues took a code taken meanwhile, or passed its Coupon's cap
/// per Customer.
pub(crate) const ISSUE_CONTENDED: &[ErrorCode] = &[
    ErrorCode::VoucherCodeTaken,
    ErrorCode::CouponIssueLimitReached,
];

/// The Coupons whose Vouchers the `voucher` campaigns listening to `event`
/// issue with a cap per Customer.
fn capped_coupons(rules: &CompanyRules, event: &Listens) -> Vec<i64> {
    let mut coupons: Vec<i64> = rules
        .campaigns
        .iter()
        .filter(|campaign| campaign.active && campaign.listens == *event)
        .filter_map(|campaign| match campaign.kind {
            CampaignKind::Voucher(earned) => find_coupon(&rules.campaigns, earned.coupon_id)
                .ok()
                .filter(|(_, coupon)| coupon.issues_per_customer.is_some())
                .map(|_| earned.coupon_id),
            _ => None,
        })
        .collect();
    coupons.sort_unstable();
    coupons.dedup();
    coupons
}

impl Services {
    /// Puts into `facts` how many Vouchers the Customer holds of each Coupon
    /// the `voucher` campaigns listening to `event` issue with a cap; reads
    /// nothing when none does.
    pub(crate) async fn read_voucher_issues(
        &self,
        event: &EventScope<'_>,
        facts: &mut Facts,
    ) -> ApiResult<()> {
        let coupons = capped_coupons(event.rules, event.listens);
        if coupons.is_empty() {
            return Ok(());
        }
        facts.voucher_issues = self
            .store
            .voucher_issue_counts(event.company, event.customer_id, &coupons)
            .await?;
        Ok(())
    }
}
