//! Vouchers: the personal code through which a targeted campaign (for now a
//! targeted Instant Win) reaches one Customer (Targeted Delivery).

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;

/// A Voucher held by one Customer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct Voucher {
    /// Voucher identifier.
    pub id: String,
    /// The personal code the Customer presents (in `coupons_desired`).
    pub code: String,
    /// The Customer holding it.
    pub customer_id: String,
    /// The campaign it gives access to (the Instant Win's rule id).
    pub rule_id: i64,
    /// The coupon it was issued from.
    pub coupon_id: i64,
    /// The coupon's name, in the Company's default language.
    pub coupon_name: String,
    /// The coupon's shared code.
    pub static_code: String,
    /// The Targeted Delivery send that issued it.
    pub campaign_history_id: String,
    /// The assignment of the campaign to this Customer.
    pub loyalty_rule_history_id: String,
    /// When it was issued.
    pub created_at: Timestamp,
}

/// The `coupon_info` of a targeted Instant Win effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
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
