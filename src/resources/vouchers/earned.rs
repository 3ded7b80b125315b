//! Vouchers earned: a `voucher` campaign issues its Customer a Voucher of a
//! Coupon when a cart, Custom Event or trigger meets its condition, in the
//! event's own transaction (a review earns a Voucher a later cart uses).
//!
//! ```yaml
//! id: 60
//! kind: voucher
//! name: A thank-you for a review
//! on: { custom_event: review_posted }
//! when: event.data.stars >= 4
//! voucher:
//!   coupon: 31          # the Coupon (file or API) whose Voucher is issued
//! ```
//!
//! The code is drawn from the Coupon's pattern when the campaign is
//! evaluated, so the event's answer names it; a Coupon's
//! `issues_per_customer` is read before the evaluation and checked again
//! when the Voucher is written (`coupon_issue_limit_reached`, or a code
//! drawn twice, evaluates the event again on fresh counts).

use serde::Deserialize;

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::effect::Effect;
use crate::engine::effect::VoucherIssuedEffect;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::engine::problems::Problems;
use crate::engine::text::Text;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::coupons::service::find_coupon;
use crate::resources::instant_wins::draws::MAX_DRAW_ATTEMPTS;
use crate::resources::vouchers::issue_store::VoucherIssue;
use crate::resources::vouchers::model::NewVoucher;
use crate::resources::vouchers::model::Voucher;
use crate::services::Services;

/// The `voucher:` section of a `voucher` campaign.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoucherFile {
    /// The Coupon whose Voucher is issued.
    coupon: i64,
}

/// A compiled `voucher` campaign: which Coupon's Voucher it issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EarnedVoucher {
    /// The Coupon's id.
    pub coupon_id: i64,
}

impl VoucherFile {
    /// The section compiled; a Coupon id that cannot be one is a problem.
    pub(crate) fn compile(self, problems: &mut Problems<'_>) -> Option<EarnedVoucher> {
        if self.coupon <= 0 {
            problems.at_key("voucher", "`voucher.coupon` is the id of a Coupon");
            return None;
        }
        Some(EarnedVoucher {
            coupon_id: self.coupon,
        })
    }
}

/// The Voucher `campaign` issues for the event of `facts`, as an effect;
/// why not, when its Coupon cannot issue one now or the Customer holds as
/// many as it issues to one.
pub(crate) fn earned_voucher(
    campaign: &Campaign,
    earned: EarnedVoucher,
    campaigns: &[Campaign],
    facts: &Facts,
    render: &dyn Fn(&Text) -> String,
) -> Result<Vec<Effect>, String> {
    voucher_of_coupon(campaign, earned.coupon_id, campaigns, facts, render)
        .map(|issued| vec![Effect::VoucherIssued(Box::new(issued))])
}

/// A Voucher of Coupon `coupon_id` that `campaign` (a `voucher` campaign,
/// or a Challenge completed) issues to the Customer of `facts`; why not,
/// when the Coupon cannot issue one now or the Customer holds as many as it
/// issues to one.
pub(crate) fn voucher_of_coupon(
    campaign: &Campaign,
    coupon_id: i64,
    campaigns: &[Campaign],
    facts: &Facts,
    render: &dyn Fn(&Text) -> String,
) -> Result<VoucherIssuedEffect, String> {
    let (coupon_campaign, coupon) =
        find_coupon(campaigns, coupon_id).map_err(|error| error.message)?;
    if !coupon_campaign.active {
        return Err(format!("Coupon {coupon_id} is inactive"));
    }
    let now = Timestamp::from(facts.now);
    if let Some(to) = coupon_campaign
        .available_to
        .map(|t| t.instant(&facts.locale))
        && now > to
    {
        return Err(format!(
            "Coupon {coupon_id} can no longer be used (since {to})"
        ));
    }
    let CouponCodes::Generated(pattern) = &coupon.codes else {
        return Err(format!(
            "Coupon {coupon_id} has one static code for everyone: there is no Voucher to issue"
        ));
    };
    if let Some(cap) = coupon.issues_per_customer {
        let held = facts.voucher_issues.get(&coupon_id).copied().unwrap_or(0);
        if held >= cap {
            return Err(format!(
                "the Customer holds the {cap} Vouchers of Coupon {coupon_id} it issues to one Customer"
            ));
        }
    }
    let customer_id = facts.customer["id"].as_str().unwrap_or_default();
    // `rule_id` names the Instant Win of a targeted Voucher; the campaign
    // that issued this one is in its issue key.
    let voucher = Voucher::issued(NewVoucher {
        code: pattern.generate(&mut rand::rng()),
        coupon_id,
        coupon_name: render(&coupon_campaign.name),
        customer_id: customer_id.to_string(),
        uses_left: i64::from(coupon.uses_per_voucher),
        source: "campaign",
        created_at: now,
        valid_until: coupon.valid_until(now),
    });
    Ok(VoucherIssuedEffect {
        rule_id: campaign.id,
        rule_name: render(&campaign.name),
        voucher,
        issues_per_customer: coupon.issues_per_customer,
    })
}

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

/// Whether `written` failed because a Voucher it issues took a code taken
/// meanwhile or passed its Coupon's cap per Customer, and the event may be
/// evaluated again.
pub(crate) fn issue_contended<T>(written: &ApiResult<T>, attempt: u32) -> bool {
    matches!(written, Err(error) if matches!(
        error.code,
        ErrorCode::VoucherCodeTaken | ErrorCode::CouponIssueLimitReached
    )) && attempt < MAX_DRAW_ATTEMPTS
}

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
        company: &str,
        rules: &CompanyRules,
        event: &Listens,
        customer_id: &str,
        facts: &mut Facts,
    ) -> ApiResult<()> {
        let coupons = capped_coupons(rules, event);
        if coupons.is_empty() {
            return Ok(());
        }
        facts.voucher_issues = self
            .store
            .voucher_issue_counts(company, customer_id, &coupons)
            .await?;
        Ok(())
    }
}
