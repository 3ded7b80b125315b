//! Whether a Voucher can be used now, by whom and where: one function every
//! use goes through (validation, redemption, carts), answering the
//! interface's refusal code when it cannot.

use chrono::Datelike;

use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::error::ErrorCode;
use crate::resources::coupons::rules::coupon_of;
use crate::resources::master_data::matching::location_listed;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherState;

/// Where and when a Voucher is presented.
#[derive(Debug, Clone, Copy)]
pub struct Presented<'a> {
    /// The Customer presenting it, when known.
    pub customer_id: Option<&'a str>,
    /// The store, when known (then a Coupon limited to stores must list it).
    pub location_code: Option<&'a str>,
    /// The catalogue's record of that store (`{}` when it has none), so a
    /// Coupon may list it by id, alias or feature.
    pub location: &'a serde_json::Value,
    /// Whether a Coupon limited to stores refuses a use at no named store
    /// (a redemption), or is only checked against a store when one is named
    /// (a validation).
    pub location_required: bool,
    /// The hold it is used under, if any (POST /vouchers/{code}/freeze).
    pub reservation_id: Option<&'a str>,
    /// When.
    pub at: Timestamp,
    /// The Company's currency and clocks.
    pub locale: &'a Locale,
}

impl<'a> Presented<'a> {
    /// Presented by `customer_id` at `at`, at no store in particular
    /// (selecting, holding or printing it): a Coupon limited to stores is
    /// not checked against one.
    pub fn anywhere(customer_id: &'a str, at: Timestamp, locale: &'a Locale) -> Self {
        Presented {
            customer_id: Some(customer_id),
            location_code: None,
            location: &serde_json::Value::Null,
            location_required: false,
            reservation_id: None,
            at,
            locale,
        }
    }
}

/// Why a Voucher cannot be used: the interface's code and what it means here.
pub type Refusal = (ErrorCode, String);

/// The campaign behind `voucher` among `campaigns`: its Coupon, or for a
/// targeted Instant Win's Voucher, the Instant Win.
pub fn campaign_of<'c>(voucher: &Voucher, campaigns: &'c [Campaign]) -> Option<&'c Campaign> {
    let id = voucher.rule_id.unwrap_or(voucher.coupon_id);
    campaigns.iter().find(|c| {
        c.id == id
            && match voucher.rule_id {
                Some(_) => c.kind.name() == "instant_win",
                None => coupon_of(c).is_some(),
            }
    })
}

/// The state `voucher` is in at `at`, its campaign (`None`: deleted)
/// considered.
pub fn state_of(
    voucher: &Voucher,
    campaign: Option<&Campaign>,
    at: Timestamp,
    locale: &Locale,
) -> VoucherState {
    let Some(campaign) = campaign else {
        return VoucherState::Deleted;
    };
    if !campaign.active {
        return VoucherState::Inactive;
    }
    if voucher.uses_left <= 0 || voucher.state == VoucherState::Redeemed {
        return VoucherState::Redeemed;
    }
    if voucher.holds_at(at).count() as i64 >= voucher.uses_left {
        return VoucherState::Frozen;
    }
    let past_its_days = voucher.valid_until.is_some_and(|until| at > until);
    if past_its_days
        || campaign
            .available_to
            .is_some_and(|to| at > to.instant(locale))
    {
        return VoucherState::Expired;
    }
    voucher.state
}

/// `None` when `voucher` can be used as `presented`; otherwise why not.
pub fn refusal(
    voucher: &Voucher,
    campaign: Option<&Campaign>,
    presented: &Presented<'_>,
) -> Option<Refusal> {
    // A Voucher with no owner (a bearer code of a bulk issue) is any
    // Customer's to present.
    if !voucher.customer_id.is_empty()
        && presented
            .customer_id
            .is_some_and(|customer| customer != voucher.customer_id)
    {
        return Some((
            ErrorCode::VoucherNotFound,
            format!("Voucher {} is not this Customer's", voucher.code),
        ));
    }
    let state = state_of(voucher, campaign, presented.at, presented.locale);
    let code = &voucher.code;
    match state {
        VoucherState::Deleted => {
            return Some((
                ErrorCode::VoucherDeleted,
                format!("the Coupon of {code} was deleted"),
            ));
        }
        VoucherState::Inactive => {
            return Some((
                ErrorCode::VoucherInactive,
                format!("the Coupon of {code} is inactive"),
            ));
        }
        VoucherState::Redeemed => {
            return Some((
                ErrorCode::VoucherRedeemed,
                format!("{code} has no uses left"),
            ));
        }
        VoucherState::Expired => {
            return Some((ErrorCode::VoucherExpired, format!("{code} expired")));
        }
        VoucherState::Frozen => {
            let held_for_this = presented.reservation_id.is_some_and(|id| {
                voucher
                    .holds_at(presented.at)
                    .any(|hold| hold.reservation_id == id)
            });
            if !held_for_this {
                let until = voucher.holds_at(presented.at).map(|h| h.until).min();
                return Some((
                    ErrorCode::VoucherFrozen,
                    match until {
                        Some(until) => format!("{code} is held by a checkout until {until}"),
                        None => format!("{code} is held by a checkout"),
                    },
                ));
            }
        }
        VoucherState::Active => {}
    }
    let campaign = campaign?;
    if let Some(from) = campaign.available_from.map(|t| t.instant(presented.locale))
        && presented.at < from
    {
        return Some((
            ErrorCode::VoucherOutDate,
            format!("{code} can be used from {from}"),
        ));
    }
    let coupon = coupon_of(campaign)?;
    let wall_clock = presented.locale.wall_clock(presented.at.as_datetime());
    if !coupon.weekdays.is_empty() && !coupon.weekdays.contains(&wall_clock.weekday()) {
        return Some((
            ErrorCode::VoucherOutDate,
            format!("{code} cannot be used on a {}", wall_clock.weekday()),
        ));
    }
    if let Some(hours) = coupon.hours
        && !(hours.from <= wall_clock.time() && wall_clock.time() < hours.to)
    {
        return Some((
            ErrorCode::VoucherOutDate,
            format!(
                "{code} can be used from {} to {}",
                hours.from.format("%H:%M"),
                hours.to.format("%H:%M")
            ),
        ));
    }
    if coupon.locations.is_empty() {
        return None;
    }
    match presented.location_code {
        Some(location) if !location_listed(&coupon.locations, location, presented.location) => {
            Some((
                ErrorCode::VoucherOutLocation,
                format!("{code} cannot be used at {location}"),
            ))
        }
        None if presented.location_required => Some((
            ErrorCode::VoucherOutLocation,
            format!(
                "{code} can be used at {} only: name the store (location_code)",
                coupon.locations.join(", ")
            ),
        )),
        _ => None,
    }
}
