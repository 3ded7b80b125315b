//! Coupons as the API takes and answers them.

use poem_openapi::{Enum, Object};
use serde::{Deserialize, Serialize};

use crate::common::amount::SentAmount;
use crate::common::time::Timestamp;
use crate::resources::campaign_header::campaign_spec;
use crate::resources::discounts::stacking_rules::StackingRules;
use crate::resources::limits::OfferLimitRules;
use crate::resources::optional_fields::optional_fields;

optional_fields! {
    /// What a Coupon's Vouchers take off the lines they apply to: exactly one of
    /// `percent` and `amount`, and optionally a cap.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
    #[oai(deny_unknown_fields)]
    pub struct VoucherDiscount {
        /// This percentage of the eligible lines (0.01 to 100); or
        #[oai(validator(minimum(value = "0.01"), maximum(value = "100")))]
        pub percent: Option<f64>,
        /// This amount, shared over the eligible lines in proportion to their
        /// worth: more than 0, in the currency's decimals.
        pub amount: Option<SentAmount>,
        /// Most one Voucher takes off one cart: more than 0, in the currency's
        /// decimals.
        pub max_amount: Option<SentAmount>,
    }
}

/// A day of the week.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Enum)]
#[oai(rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    /// Monday.
    Monday,
    /// Tuesday.
    Tuesday,
    /// Wednesday.
    Wednesday,
    /// Thursday.
    Thursday,
    /// Friday.
    Friday,
    /// Saturday.
    Saturday,
    /// Sunday.
    Sunday,
}

impl From<chrono::Weekday> for Weekday {
    fn from(day: chrono::Weekday) -> Weekday {
        match day {
            chrono::Weekday::Mon => Weekday::Monday,
            chrono::Weekday::Tue => Weekday::Tuesday,
            chrono::Weekday::Wed => Weekday::Wednesday,
            chrono::Weekday::Thu => Weekday::Thursday,
            chrono::Weekday::Fri => Weekday::Friday,
            chrono::Weekday::Sat => Weekday::Saturday,
            chrono::Weekday::Sun => Weekday::Sunday,
        }
    }
}

/// Hours of the day, on the Company's clocks: from (included) to
/// (excluded), within one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct UsableHours {
    /// `HH:MM`.
    #[oai(validator(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"))]
    pub from: String,
    /// `HH:MM`, after `from`.
    #[oai(validator(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"))]
    pub to: String,
}

campaign_spec! {
    /// A Coupon as written to POST /coupons (where `name` and `discount` are
    /// required) and PATCH /coupons/{id} (where the fields sent replace the
    /// stored ones).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
    #[oai(deny_unknown_fields)]
    pub struct CouponSpec {
        /// What its Vouchers take off.
        pub discount: Option<VoucherDiscount>,
        /// One code every Customer presents (`SUMMER10`): 1 to 64 letters,
        /// digits, spaces or dashes; not with `code_pattern` or `charset`.
        /// Without it, each Voucher gets a unique code from `code_pattern`.
        #[oai(validator(pattern = r"^[A-Za-z0-9-]([A-Za-z0-9 -]{0,62}[A-Za-z0-9-])?$"))]
        pub static_code: Option<String>,
        /// The pattern of unique codes: `#` is a character drawn from `charset`,
        /// anything else is kept (default `LOY-####-####`).
        #[oai(validator(pattern = r"^[A-Za-z0-9#-]*#[A-Za-z0-9#-]*$", max_length = 64))]
        pub code_pattern: Option<String>,
        /// The characters `#` draws from (default: digits and capitals without
        /// 0, O, 1, I and L); no two that read the same.
        #[oai(validator(pattern = r"^[A-Za-z0-9]{2,62}$"))]
        pub charset: Option<String>,
        /// From when its Vouchers can be used.
        pub valid_from: Option<Timestamp>,
        /// Until when its Vouchers can be used (after `valid_from`).
        pub valid_to: Option<Timestamp>,
        /// Location codes its Vouchers can be used at; absent or empty: everywhere.
        #[oai(validator(max_items = 1000, pattern = r"\S", max_length = 128))]
        pub locations: Option<Vec<String>>,
        /// Product codes never discounted.
        #[oai(validator(max_items = 1000, pattern = r"\S", max_length = 128))]
        pub excluded_products: Option<Vec<String>>,
        /// Product categories (cart line taxonomies) never discounted.
        #[oai(validator(max_items = 1000, pattern = r"\S", max_length = 128))]
        pub excluded_categories: Option<Vec<String>>,
        /// Uses of one Voucher (of a static code: of each Customer); default 1.
        #[oai(validator(minimum(value = "1"), maximum(value = "1000000")))]
        pub uses_per_voucher: Option<u32>,
        /// Most Vouchers of it one Customer is issued (by POST
        /// /discounts/trigger, campaign effects and bulk issues); absent: no
        /// limit. A static code's one Voucher per Customer counts once.
        #[oai(validator(minimum(value = "1"), maximum(value = "1000000")))]
        pub issues_per_customer: Option<u32>,
        /// Days each Voucher can be used from its issue, to the second (1 to
        /// 3650): a Voucher issued on the 1st at 10:00 with 7 days is answered
        /// `voucher_expired` from the 8th at 10:00. Not with `static_code`
        /// (never issued); absent: as long as the Coupon.
        #[oai(validator(minimum(value = "1"), maximum(value = "3650")))]
        pub valid_days: Option<u32>,
        /// Days of the week its Vouchers can be used; absent or empty: every day.
        #[oai(validator(max_items = 7, unique_items))]
        pub weekdays: Option<Vec<Weekday>>,
        /// Hours of the day its Vouchers can be used; absent: all day.
        pub hours: Option<UsableHours>,
    }
    with when, stacking, limits
}

/// A Coupon as the API answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Object)]
pub struct Coupon {
    /// Its id (`coupon_id` of its Vouchers); from 1000000 when created
    /// through the API.
    pub id: i64,
    /// `file` or `api`.
    pub source: String,
    /// Name, in the response language.
    pub name: String,
    /// Description, in the response language.
    #[oai(skip_serializing_if_is_none)]
    pub description: Option<String>,
    /// Whether its Vouchers can be used.
    pub active: bool,
    /// What its Vouchers take off.
    pub discount: VoucherDiscount,
    /// Its one shared code, when it has one.
    #[oai(skip_serializing_if_is_none)]
    pub static_code: Option<String>,
    /// The pattern of its unique codes, when it has no static code.
    #[oai(skip_serializing_if_is_none)]
    pub code_pattern: Option<String>,
    /// From when its Vouchers can be used.
    #[oai(skip_serializing_if_is_none)]
    pub valid_from: Option<Timestamp>,
    /// Until when its Vouchers can be used.
    #[oai(skip_serializing_if_is_none)]
    pub valid_to: Option<Timestamp>,
    /// Location codes it can be used at; empty: everywhere.
    pub locations: Vec<String>,
    /// Product codes never discounted.
    pub excluded_products: Vec<String>,
    /// Product categories never discounted.
    pub excluded_categories: Vec<String>,
    /// Uses of one Voucher.
    pub uses_per_voucher: u32,
    /// Most Vouchers of it one Customer is issued.
    #[oai(skip_serializing_if_is_none)]
    pub issues_per_customer: Option<u32>,
    /// Days each Voucher can be used from its issue.
    #[oai(skip_serializing_if_is_none)]
    pub valid_days: Option<u32>,
    /// Days of the week it can be used; empty: every day.
    pub weekdays: Vec<Weekday>,
    /// Hours of the day it can be used.
    #[oai(skip_serializing_if_is_none)]
    pub hours: Option<UsableHours>,
    /// Who may use it.
    #[oai(skip_serializing_if_is_none)]
    pub when: Option<String>,
    /// How its Vouchers share a cart.
    pub stacking: StackingRules,
    /// Its budgets and caps.
    pub limits: Vec<OfferLimitRules>,
}

/// Coupons.
#[derive(Debug, Object)]
pub struct CouponList {
    /// By ascending id.
    pub coupons: Vec<Coupon>,
}

/// The answer of DELETE /coupons/{id}.
#[derive(Debug, Object)]
pub struct DeletedCoupon {
    /// The Coupon's id.
    pub id: i64,
    /// `deleted`: its Vouchers are refused from now on (`voucher_deleted`).
    pub result: String,
}
