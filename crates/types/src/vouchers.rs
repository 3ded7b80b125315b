//! Vouchers: one issued code each, of a Coupon (or of a targeted Instant
//! Win's coupon, for its Targeted Delivery), held by one Customer.

use serde::{Deserialize, Serialize};

use crate::amount::Amount;
use crate::time::Timestamp;

/// Where a Voucher stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[cfg_attr(feature = "openapi", oai(rename_all = "lowercase"))]
#[serde(rename_all = "lowercase")]
pub enum VoucherState {
    /// It can be used (within its Coupon's dates, places and hours).
    Active,
    /// Reserved by a checkout until its freeze ends.
    Frozen,
    /// All its uses are spent.
    Redeemed,
    /// Its Coupon's validity has ended.
    Expired,
    /// Its Coupon is inactive.
    Inactive,
    /// Its Coupon was deleted.
    Deleted,
}

/// A Voucher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct Voucher {
    /// Voucher identifier.
    pub id: String,
    /// The code the Customer presents (in `coupons_desired`), as issued.
    pub code: String,
    /// The Coupon it was issued from.
    pub coupon_id: i64,
    /// The Coupon's name, in the Company's default language when issued.
    pub coupon_name: String,
    /// The Coupon's shared code, when it has one.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_code: Option<String>,
    /// The Customer holding it.
    pub customer_id: String,
    /// Where it stands.
    pub state: VoucherState,
    /// Uses left.
    pub uses_left: i64,
    /// What issued it: `trigger` (POST /discounts/trigger), `campaign` (a
    /// `voucher` campaign), `targeted_delivery` (a targeted Instant Win's
    /// assignment), `bulk` (an operator's bulk issue).
    pub source: String,
    /// Targeted Delivery only: the Instant Win it gives access to.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<i64>,
    /// Targeted Delivery only: the send that issued it.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign_history_id: Option<String>,
    /// Targeted Delivery only: the assignment of the campaign to this Customer.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loyalty_rule_history_id: Option<String>,
    /// When it was issued.
    pub created_at: Timestamp,
    /// Until when it can be used, when its Coupon gives each Voucher a
    /// number of days from its issue (`valid_days`); after it the Voucher
    /// is `expired` and a cart presenting it is answered `voucher_expired`.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<Timestamp>,
    /// When it was last printed, if it was.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_at: Option<Timestamp>,
    /// When its holder selected it (clipped it to their wallet), if they did.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_at: Option<Timestamp>,
    /// Uses held by checkouts (POST /vouchers/{code}/freeze), each until its
    /// freeze ends; kept by the store, shown as the state `frozen` when they
    /// hold every use left.
    #[cfg_attr(feature = "openapi", oai(skip))]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reservations: Vec<Reservation>,
}

/// One use of a Voucher held by a checkout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct Reservation {
    /// What a redemption names to use the held use.
    pub reservation_id: String,
    /// When the hold ends by itself.
    pub until: Timestamp,
}

/// What every new Voucher is issued with; the rest starts empty.
#[derive(Debug, Clone)]
pub struct NewVoucher {
    /// The code.
    pub code: String,
    /// The Coupon.
    pub coupon_id: i64,
    /// The Coupon's name.
    pub coupon_name: String,
    /// The holder (empty: a bearer Voucher).
    pub customer_id: String,
    /// Its uses.
    pub uses_left: i64,
    /// What issues it (see [`Voucher::source`]).
    pub source: &'static str,
    /// When.
    pub created_at: Timestamp,
    /// Until when it can be used, when its Coupon says ([`Voucher::valid_until`]).
    pub valid_until: Option<Timestamp>,
}

impl Voucher {
    /// A new active Voucher with the new id `id`, never printed, selected or held.
    pub fn issued(id: String, new: NewVoucher) -> Voucher {
        Voucher {
            id,
            code: new.code,
            coupon_id: new.coupon_id,
            coupon_name: new.coupon_name,
            static_code: None,
            customer_id: new.customer_id,
            state: VoucherState::Active,
            uses_left: new.uses_left,
            source: new.source.to_string(),
            rule_id: None,
            campaign_history_id: None,
            loyalty_rule_history_id: None,
            created_at: new.created_at,
            valid_until: new.valid_until,
            printed_at: None,
            selected_at: None,
            reservations: Vec::new(),
        }
    }

    /// The holds still running at `at`.
    pub fn holds_at(&self, at: Timestamp) -> impl Iterator<Item = &Reservation> {
        self.reservations.iter().filter(move |r| r.until > at)
    }
}

/// The `coupon_info` of a targeted Instant Win effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct CouponInfo {
    /// Voucher identifier.
    pub voucher_id: String,
    /// The Voucher's code.
    pub voucher_code: String,
    /// The coupon it was issued from.
    pub coupon_id: i64,
    /// The coupon's name, in the response language.
    pub coupon_name: String,
    /// The coupon's shared code.
    pub static_code: String,
}

/// A Voucher as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct PrintedVoucher {
    /// The Voucher, with its `printed_at`.
    pub voucher: Voucher,
    /// The text to print, in the response language: the Coupon's name, what
    /// it takes off, the code, and until when it can be used.
    pub text: String,
}

/// A hold on one use of a Voucher.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct FrozenVoucher {
    /// Name it in POST /vouchers/redeem to use the held use.
    pub reservation_id: String,
    /// When the hold ends by itself.
    pub expires_at: Timestamp,
    /// The Voucher.
    pub voucher: Voucher,
}

/// One use of a Voucher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct VoucherRedemption {
    /// VoucherRedemption identifier (to roll it back by).
    pub redemption_id: String,
    /// The Voucher's code.
    pub voucher_code: String,
    /// The Voucher.
    pub voucher_id: String,
    /// Its Coupon.
    pub coupon_id: i64,
    /// The Customer who used it.
    pub customer_id: String,
    /// The store it was used at, when named.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_code: Option<String>,
    /// The cart it was used for, when named.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cart_code: Option<String>,
    /// Money it took off its cart (a cart's redemption only).
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Amount>,
    /// The hold (POST /vouchers/{code}/freeze) it used, if any.
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation_id: Option<String>,
    /// When it was used.
    pub redeemed_at: Timestamp,
    /// When it was rolled back (the use returned to the Voucher).
    #[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back_at: Option<Timestamp>,
}

/// A Voucher to issue, and why: one Voucher is issued per issue key.
#[derive(Debug, Clone)]
pub struct VoucherIssue {
    /// The Voucher.
    pub voucher: Voucher,
    /// What it is issued for (`targeted_delivery:{rule}:{customer}`, ...).
    pub issue_key: String,
    /// Its Coupon's cap of Vouchers per Customer, if any.
    pub issues_per_customer: Option<u32>,
}
