//! Effects: what a campaign that applied gives, one variant per campaign kind
//! that returns effects. Each serialises to its kind's documented shape
//! (`type` names the kind; the fields every effect carried before kinds had
//! their own shapes are kept, zero or empty, so integrators' parsers hold).

use std::sync::Arc;

use rust_decimal::Decimal;
use serde::Serialize;

use crate::common::amount::Amount;
use crate::error::ErrorCode;
use crate::resources::challenges::evaluate::ChallengeEffect;
use crate::resources::challenges::evaluate::ChallengeStep;
use crate::resources::instant_wins::rules::draws::InstantWinEffect;
use crate::resources::vouchers::model::CouponInfo;
use crate::resources::vouchers::model::Voucher;

/// One effect of one campaign, as event responses return it.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Money off the cart or one of its lines.
    Discount(DiscountEffect),
    /// Points earned.
    Points(PointsEffect),
    /// An Instant Win draw, won or not. Boxed: a draw carries several texts,
    /// and a cart discount shared over many lines makes many small effects
    /// that should not each be the size of a draw.
    InstantWin(Box<InstantWinDrawEffect>),
    /// A Voucher's discount on one cart line.
    Voucher(Box<VoucherEffect>),
    /// A Voucher the cart named that could not be used.
    VoucherRejected(Box<VoucherRejection>),
    /// A Voucher issued to the Customer by a `voucher` campaign.
    VoucherIssued(Box<VoucherIssuedEffect>),
    /// Progress in a Challenge, and on completion what it gave.
    Challenge(Box<ChallengeEffect>),
}

/// How a discount's value was reckoned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscountType {
    /// A percentage of what it applies to.
    Percent,
    /// A fixed amount.
    Amount,
}

impl DiscountType {
    /// `percent` or `amount`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiscountType::Percent => "percent",
            DiscountType::Amount => "amount",
        }
    }
}

/// What a discount was given on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// The cart: each effect is one line's share of the campaign's discount.
    Cart,
    /// Each line it matched, on its own worth.
    Line,
}

/// A discount effect.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscountEffect {
    /// The campaign's id.
    pub rule_id: i64,
    /// The campaign's name in the response language, shared by the effects
    /// of one cart discount's line shares.
    pub rule_name: Arc<str>,
    /// The 1-based cart line it applies to; 0 for a cart discount not yet
    /// shared out over the lines.
    pub line: i64,
    /// Money taken off, exact, in whole minor units.
    pub value: Decimal,
    /// How the value was reckoned.
    pub effect_type: DiscountType,
    /// What it was given on.
    pub distribution: Distribution,
}

impl DiscountEffect {
    /// `cart` for a share of a cart discount, `line` for a line discount.
    pub fn distribution_type(&self) -> &'static str {
        match self.distribution {
            Distribution::Cart => "cart",
            Distribution::Line => "line",
        }
    }
}

/// A points effect.
#[derive(Debug, Clone, PartialEq)]
pub struct PointsEffect {
    /// The campaign's id.
    pub rule_id: i64,
    /// The campaign's name in the response language.
    pub rule_name: String,
    /// Points earned.
    pub points: i64,
}

/// An Instant Win effect: the campaign and its draw.
#[derive(Debug, Clone, PartialEq)]
pub struct InstantWinDrawEffect {
    /// The campaign's id.
    pub rule_id: i64,
    /// The campaign's name in the response language.
    pub rule_name: String,
    /// The draw's fields.
    pub draw: InstantWinEffect,
}

/// A Voucher's share of its discount on one cart line.
#[derive(Debug, Clone, PartialEq)]
pub struct VoucherEffect {
    /// The Coupon's id.
    pub rule_id: i64,
    /// The Coupon's name in the response language, shared by the Voucher's
    /// line shares.
    pub rule_name: Arc<str>,
    /// The 1-based cart line it applies to.
    pub line: i64,
    /// Money taken off the line, exact, in whole minor units.
    pub value: Decimal,
    /// How the Voucher's value was reckoned.
    pub effect_type: DiscountType,
    /// The Voucher and its Coupon, shared by its line shares.
    pub coupon_info: Arc<CouponInfo>,
}

/// A Voucher named by a cart that was not used, and why; the sale goes on
/// without it.
#[derive(Debug, Clone, PartialEq)]
pub struct VoucherRejection {
    /// The Coupon's id (0 when no Voucher has the code).
    pub rule_id: i64,
    /// The Coupon's name in the response language (empty when unknown).
    pub rule_name: String,
    /// The code as the cart named it.
    pub voucher_code: String,
    /// The interface's refusal code.
    pub code: ErrorCode,
    /// What it means here.
    pub error: String,
}

/// A Voucher a `voucher` campaign issued to the event's Customer.
#[derive(Debug, Clone, PartialEq)]
pub struct VoucherIssuedEffect {
    /// The `voucher` campaign's id.
    pub rule_id: i64,
    /// The campaign's name in the response language.
    pub rule_name: String,
    /// The Voucher issued (written with the event).
    pub voucher: Voucher,
    /// Its Coupon's cap of Vouchers per Customer, checked when written.
    pub issues_per_customer: Option<u32>,
}

impl VoucherIssuedEffect {
    /// The Voucher and its Coupon, as effects name them.
    pub fn coupon_info(&self) -> CouponInfo {
        CouponInfo {
            voucher_id: self.voucher.id.clone(),
            voucher_code: self.voucher.code.clone(),
            coupon_id: self.voucher.coupon_id,
            coupon_name: self.voucher.coupon_name.clone(),
            static_code: String::new(),
        }
    }
}

impl Effect {
    /// The `type` it is answered with.
    pub fn kind(&self) -> &'static str {
        match self {
            Effect::Discount(_) => "discount",
            Effect::Points(_) => "points",
            Effect::InstantWin(_) => "instant_win",
            Effect::Voucher(_) => "voucher",
            Effect::VoucherRejected(_) => "voucher_rejected",
            Effect::VoucherIssued(_) => "voucher_issued",
            Effect::Challenge(_) => "challenge",
        }
    }

    /// The id of the campaign that gave it.
    pub fn rule_id(&self) -> i64 {
        match self {
            Effect::Discount(effect) => effect.rule_id,
            Effect::Points(effect) => effect.rule_id,
            Effect::InstantWin(effect) => effect.rule_id,
            Effect::Voucher(effect) => effect.rule_id,
            Effect::VoucherRejected(effect) => effect.rule_id,
            Effect::VoucherIssued(effect) => effect.rule_id,
            Effect::Challenge(effect) => effect.rule_id,
        }
    }

    /// The 1-based cart line it applies to; 0 for the whole cart or event.
    pub fn line(&self) -> i64 {
        match self {
            Effect::Discount(effect) => effect.line,
            Effect::Voucher(effect) => effect.line,
            _ => 0,
        }
    }

    /// The money it takes off (0 unless a discount).
    pub fn discount_value(&self) -> Decimal {
        match self {
            Effect::Discount(effect) => effect.value,
            Effect::Voucher(effect) => effect.value,
            _ => Decimal::ZERO,
        }
    }

    /// The points it earns, when it is a points effect.
    pub fn points(&self) -> Option<i64> {
        match self {
            Effect::Points(effect) => Some(effect.points),
            _ => None,
        }
    }
}

/// The shape an effect is serialised in.
#[derive(Serialize)]
struct Wire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    rule_id: i64,
    rule_name: &'a str,
    line: i64,
    value: Amount,
    effect_type: &'static str,
    distribution_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    points: Option<i64>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    instant_win: Option<&'a InstantWinEffect>,
    #[serde(skip_serializing_if = "Option::is_none")]
    coupon_info: Option<&'a CouponInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    voucher: Option<&'a Voucher>,
    #[serde(skip_serializing_if = "Option::is_none")]
    voucher_code: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    challenge: Option<&'a ChallengeStep>,
}

impl Serialize for Effect {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (rule_name, line, effect_type, distribution_type, instant_win) = match self {
            Effect::Discount(effect) => (
                &*effect.rule_name,
                effect.line,
                effect.effect_type.as_str(),
                effect.distribution_type(),
                None,
            ),
            Effect::Points(effect) => (effect.rule_name.as_str(), 0, "", "", None),
            Effect::InstantWin(effect) => {
                (effect.rule_name.as_str(), 0, "", "", Some(&effect.draw))
            }
            Effect::Voucher(effect) => (
                &*effect.rule_name,
                effect.line,
                effect.effect_type.as_str(),
                "cart",
                None,
            ),
            Effect::VoucherRejected(effect) => (effect.rule_name.as_str(), 0, "", "", None),
            Effect::VoucherIssued(effect) => (effect.rule_name.as_str(), 0, "", "", None),
            Effect::Challenge(effect) => (effect.rule_name.as_str(), 0, "", "", None),
        };
        let issued = match self {
            Effect::VoucherIssued(effect) => Some((effect.coupon_info(), &effect.voucher)),
            _ => None,
        };
        let (coupon_info, voucher_code, code, error) = match self {
            Effect::Voucher(effect) => (
                Some(&*effect.coupon_info),
                Some(effect.coupon_info.voucher_code.as_str()),
                None,
                None,
            ),
            Effect::VoucherRejected(effect) => (
                None,
                Some(effect.voucher_code.as_str()),
                Some(effect.code.code()),
                Some(effect.error.as_str()),
            ),
            Effect::VoucherIssued(effect) => (
                issued.as_ref().map(|(info, _)| info),
                Some(effect.voucher.code.as_str()),
                None,
                None,
            ),
            _ => (None, None, None, None),
        };
        Wire {
            kind: self.kind(),
            rule_id: self.rule_id(),
            rule_name,
            line,
            value: Amount(self.discount_value()),
            effect_type,
            distribution_type,
            points: self.points(),
            instant_win,
            coupon_info,
            voucher: issued.as_ref().map(|(_, voucher)| *voucher),
            voucher_code,
            code,
            error,
            challenge: match self {
                Effect::Challenge(effect) => Some(&effect.step),
                _ => None,
            },
        }
        .serialize(serializer)
    }
}
