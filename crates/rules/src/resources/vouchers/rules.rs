//! The `voucher` kind as rules: its file section, what it compiles to, and
//! the Voucher its evaluation issues as an effect (the write is
//! the service's `vouchers::earned`'s).
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

use serde::Deserialize;

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::effect::Effect;
use crate::engine::effect::VoucherIssuedEffect;
use crate::engine::facts::Facts;
use crate::engine::problems::Problems;
use crate::engine::text::Text;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::coupons::rules::find_coupon;
use crate::resources::vouchers::model::NewVoucher;
use crate::resources::vouchers::model::Voucher;

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
    pub fn compile(self, problems: &mut Problems<'_>) -> Option<EarnedVoucher> {
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
pub fn earned_voucher(
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
pub fn voucher_of_coupon(
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
    let voucher = Voucher::issued(
        crate::common::ids::time_ordered_id("vch"),
        NewVoucher {
            code: pattern.generate(&mut rand::rng()),
            coupon_id,
            coupon_name: render(&coupon_campaign.name),
            customer_id: customer_id.to_string(),
            uses_left: i64::from(coupon.uses_per_voucher),
            source: "campaign",
            created_at: now,
            valid_until: coupon.valid_until(now),
        },
    );
    Ok(VoucherIssuedEffect {
        rule_id: campaign.id,
        rule_name: render(&campaign.name),
        voucher,
        issues_per_customer: coupon.issues_per_customer,
    })
}
