//! What giving a Reward writes, however it is given (redeemed with points,
//! won in a draw or a game, earned by a Challenge): the points it credits,
//! the game participation or the Voucher it gives, and what the reward
//! transaction shows of it.

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::text::Text;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::coupons::rules::find_coupon;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::rewards::model::RewardGiven;
use crate::resources::rewards::rules::Reward;
use crate::resources::rewards::rules::RewardGift;
use crate::resources::vouchers::model::NewVoucher;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherIssue;

/// What one giving of a Reward writes, in the transaction that records it.
#[derive(Debug, Clone, Default)]
pub struct GiftWrite {
    /// What the reward transaction shows it gave.
    pub given: RewardGiven,
    /// The points it credits (none for other gifts).
    pub ledger: Vec<LedgerEntry>,
    /// The game it gives a participation in.
    pub game_id: Option<i64>,
    /// The Voucher it issues, with a new code.
    pub voucher: Option<VoucherIssue>,
}

/// Who receives a Reward, and in which transaction.
pub struct Recipient<'a> {
    /// The Customer.
    pub customer_id: &'a str,
    /// The reward transaction recording it (the ledger entries' operation).
    pub transaction_id: &'a str,
    /// Puts the Voucher's Coupon name in the language it is written in.
    pub render: &'a dyn Fn(&Text) -> String,
    /// When.
    pub now: Timestamp,
}

/// What giving Reward `campaign` (`reward`) to `to` writes; a Voucher of a
/// Coupon with one static code cannot be given (`reward_not_available`).
pub fn gift_write(
    campaigns: &[Campaign],
    campaign: &Campaign,
    reward: &Reward,
    to: &Recipient<'_>,
) -> ApiResult<GiftWrite> {
    let mut gift = GiftWrite {
        given: given_view(&reward.gives),
        ..GiftWrite::default()
    };
    match &reward.gives {
        RewardGift::Item(_) => {}
        RewardGift::Points { points, kind } => gift.ledger.push(LedgerEntry {
            operation_id: Some(to.transaction_id.to_string()),
            rule_id: Some(campaign.id),
            ..LedgerEntry::new(to.customer_id, *kind, *points, "reward", to.now)
        }),
        RewardGift::Game { game_id } => gift.game_id = Some(*game_id),
        RewardGift::Voucher { coupon_id } => {
            let (coupon_campaign, coupon) = find_coupon(campaigns, *coupon_id)?;
            let CouponCodes::Generated(pattern) = &coupon.codes else {
                return Err(ApiError::new(
                    ErrorCode::RewardNotAvailable,
                    format!(
                        "Coupon {coupon_id} has one static code for everyone: Reward {} has no Voucher of its own to give",
                        campaign.id
                    ),
                ));
            };
            let issued = Voucher::issued(
                crate::common::ids::time_ordered_id("vch"),
                NewVoucher {
                    code: pattern.generate(&mut rand::rng()),
                    coupon_id: *coupon_id,
                    coupon_name: (to.render)(&coupon_campaign.name),
                    customer_id: to.customer_id.to_string(),
                    uses_left: i64::from(coupon.uses_per_voucher),
                    source: "reward",
                    created_at: to.now,
                    valid_until: coupon.valid_until(to.now),
                },
            );
            gift.given.voucher_code = Some(issued.code.clone());
            gift.given.voucher_id = Some(issued.id.clone());
            gift.voucher = Some(VoucherIssue {
                voucher: issued,
                issue_key: format!("reward:{}", to.transaction_id),
                issues_per_customer: coupon.issues_per_customer,
            });
        }
    }
    Ok(gift)
}

/// What `gift` gives, as the catalogue shows it.
pub fn given_view(gift: &RewardGift) -> RewardGiven {
    let mut view = RewardGiven {
        kind: gift.name().to_string(),
        ..RewardGiven::default()
    };
    match gift {
        RewardGift::Item(item) => view.item = item.clone(),
        RewardGift::Voucher { coupon_id } => view.coupon_id = Some(*coupon_id),
        RewardGift::Points { points, kind } => {
            view.points = Some(*points);
            view.balance = Some(*kind);
        }
        RewardGift::Game { game_id } => view.game_id = Some(*game_id),
    }
    view
}
