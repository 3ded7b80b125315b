//! Coupons as rules: the `coupon:` section of a campaign file, what a
//! campaign of kind `coupon` compiles to, and the shorter reference a
//! targeted Instant Win names for its Vouchers.
//!
//! ```yaml
//! id: 600
//! kind: coupon
//! name: { en: 10% off, es: 10% de descuento }
//! available_from: 2026-06-01T00:00:00Z   # when its Vouchers can be used
//! available_to: 2026-08-31T23:59:59Z
//! locations: [S1, S2]                     # where (all when absent)
//! when: customer.loyalty_member           # who may use it
//! coupon:
//!   discount: { percent: 10, max_amount: 20 }   # or { amount: 5 }
//!   static_code: SUMMER10                 # one shared code, or
//!   code_pattern: SUM-####-####           # unique codes (charset: ...)
//!   excluded_products: [GIFTCARD]
//!   excluded_categories: [tobacco]
//!   uses_per_voucher: 1
//!   issues_per_customer: 3                # most Vouchers one Customer is issued
//!   valid_days: 30                        # each Voucher usable 30 days from its issue
//!   weekdays: [saturday, sunday]
//!   hours: { from: "09:00", to: "13:00" }
//! ```

use chrono::NaiveTime;
use chrono::Weekday;
use rust_decimal::Decimal;
use serde::Deserialize;

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::engine::problems::Problems;
use crate::engine::reach::parse_day;
use crate::engine::text::Text;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::resources::vouchers::codes::CodePattern;
use crate::resources::vouchers::codes::DEFAULT_PATTERN;
use crate::resources::vouchers::codes::check_code;

/// Most uses one Voucher may have.
pub const MAX_USES_PER_VOUCHER: u32 = 1_000_000;

/// Most days a Voucher may be valid from its issue (ten years).
pub const MAX_VALID_DAYS: u32 = 3_650;

/// Most products or categories a Coupon may exclude.
pub const MAX_EXCLUSIONS: usize = 1_000;

/// The `coupon:` section as written. A Coupon campaign writes what its
/// Vouchers take off and where; a targeted Instant Win writes only `id`,
/// `name` and `static_code`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CouponFile {
    #[serde(default)]
    pub id: Option<i64>,
    #[serde(default)]
    pub name: Option<Text>,
    #[serde(default)]
    pub static_code: Option<String>,
    #[serde(default)]
    discount: Option<DiscountFile>,
    #[serde(default)]
    code_pattern: Option<String>,
    #[serde(default)]
    charset: Option<String>,
    #[serde(default)]
    excluded_products: Vec<String>,
    #[serde(default)]
    excluded_categories: Vec<String>,
    #[serde(default)]
    uses_per_voucher: Option<u32>,
    #[serde(default)]
    issues_per_customer: Option<u32>,
    #[serde(default)]
    valid_days: Option<u32>,
    #[serde(default)]
    weekdays: Vec<String>,
    #[serde(default)]
    hours: Option<HoursFile>,
}

/// `discount:` of a Coupon.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscountFile {
    #[serde(default)]
    percent: Option<Decimal>,
    #[serde(default)]
    amount: Option<Decimal>,
    #[serde(default)]
    max_amount: Option<Decimal>,
}

/// `hours:` of a Coupon.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoursFile {
    from: String,
    to: String,
}

/// What a Voucher takes off the lines it applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CouponValue {
    /// This percentage of them (0 < percent ≤ 100).
    Percent(Decimal),
    /// This amount, shared over them.
    Amount(Decimal),
}

/// Where a Coupon's codes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CouponCodes {
    /// One code every Customer presents.
    Static(String),
    /// A unique code per Voucher, drawn from a pattern.
    Generated(CodePattern),
}

/// The hours of the day a Voucher can be used, on the Company's clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hours {
    /// From (included).
    pub from: NaiveTime,
    /// To (excluded).
    pub to: NaiveTime,
}

/// A compiled Coupon: the template its Vouchers are issued from.
#[derive(Debug, Clone, PartialEq)]
pub struct Coupon {
    /// What its Vouchers take off.
    pub value: CouponValue,
    /// Most one Voucher takes off one cart.
    pub max_amount: Option<Decimal>,
    /// Its codes.
    pub codes: CouponCodes,
    /// Location codes it can be used at; empty: everywhere.
    pub locations: Vec<String>,
    /// Products it never discounts.
    pub excluded_products: Vec<String>,
    /// Product categories (taxonomies) it never discounts.
    pub excluded_categories: Vec<String>,
    /// Uses of one Voucher (of a static code: of each Customer).
    pub uses_per_voucher: u32,
    /// Most Vouchers of it one Customer is issued; `None`: no limit.
    pub issues_per_customer: Option<u32>,
    /// Days each Voucher can be used from its issue (to the second);
    /// `None`: as long as the Coupon.
    pub valid_days: Option<u32>,
    /// Days of the week it can be used; empty: every day.
    pub weekdays: Vec<Weekday>,
    /// Hours of the day it can be used; `None`: all day.
    pub hours: Option<Hours>,
}

impl Coupon {
    /// Until when a Voucher issued at `issued` can be used, when each of
    /// its Vouchers has `valid_days` of its own.
    pub fn valid_until(&self, issued: Timestamp) -> Option<Timestamp> {
        self.valid_days.map(|days| {
            Timestamp::from(issued.as_datetime() + chrono::Duration::days(i64::from(days)))
        })
    }
}

/// The Coupon a targeted Instant Win's Vouchers belong to.
#[derive(Debug, Clone, PartialEq)]
pub struct CouponReference {
    /// Coupon identifier.
    pub id: i64,
    /// Coupon name, translatable.
    pub name: Text,
    /// Shared code printed on every Voucher of the coupon.
    pub static_code: String,
    /// Draws each Voucher gives, one used by each draw it takes part in;
    /// `None`: the Voucher is not used up (draws are limited by
    /// `once_limit` alone).
    pub uses_per_voucher: Option<u32>,
}

impl CouponFile {
    /// The fields written beyond a reference's `id`, `name`,
    /// `static_code` and `uses_per_voucher`, first one first.
    fn beyond_reference(&self) -> Option<&'static str> {
        [
            (self.discount.is_some(), "discount"),
            (self.code_pattern.is_some(), "code_pattern"),
            (self.charset.is_some(), "charset"),
            (!self.excluded_products.is_empty(), "excluded_products"),
            (!self.excluded_categories.is_empty(), "excluded_categories"),
            (self.issues_per_customer.is_some(), "issues_per_customer"),
            (self.valid_days.is_some(), "valid_days"),
            (!self.weekdays.is_empty(), "weekdays"),
            (self.hours.is_some(), "hours"),
        ]
        .into_iter()
        .find_map(|(written, key)| written.then_some(key))
    }

    /// The reference a targeted Instant Win writes: `id`, `name`,
    /// `static_code` and optionally `uses_per_voucher`, nothing else.
    pub fn reference(self, problems: &mut Problems<'_>) -> Option<CouponReference> {
        if let Some(key) = self.beyond_reference() {
            problems.at_key(
                key,
                format!(
                    "an Instant Win's coupon has `id`, `name`, `static_code` and `uses_per_voucher` only, not `{key}`"
                ),
            );
        }
        let static_code = self.static_code.unwrap_or_default();
        if static_code.trim().is_empty() {
            problems.at_key("static_code", "static_code is not empty");
        }
        if self.uses_per_voucher == Some(0) {
            problems.at_key("uses_per_voucher", "uses_per_voucher is at least 1");
        }
        match (self.id, self.name) {
            (Some(id), Some(name)) => Some(CouponReference {
                id,
                name,
                static_code,
                uses_per_voucher: self.uses_per_voucher,
            }),
            _ => {
                problems.at_key("coupon", "an Instant Win's coupon needs `id` and `name`");
                None
            }
        }
    }

    /// The Coupon of a campaign of kind `coupon`, usable at `locations`;
    /// every problem goes to `problems`.
    pub fn compile(self, locations: Vec<String>, problems: &mut Problems<'_>) -> Option<Coupon> {
        let before = problems.errors.len();
        if self.id.is_some() || self.name.is_some() {
            problems.at_key(
                if self.id.is_some() { "id" } else { "name" },
                "a Coupon's id and name are its campaign's: write them at the top of the file",
            );
        }
        let (value, max_amount) = match self.discount {
            Some(discount) => compile_value(discount, problems),
            None => {
                problems.at_key(
                    "coupon",
                    "a Coupon says what its Vouchers take off: `discount: { percent: N }` or `{ amount: X }`",
                );
                (None, None)
            }
        };
        let codes = match (self.static_code, self.code_pattern) {
            (Some(_), Some(_)) => {
                problems.at_key(
                    "code_pattern",
                    "a Coupon has one `static_code` or unique codes from `code_pattern`, not both",
                );
                None
            }
            (Some(code), None) => match check_code(&code) {
                Ok(()) if self.charset.is_none() => Some(CouponCodes::Static(code)),
                Ok(()) => {
                    problems.at_key("charset", "`charset` is for `code_pattern` only");
                    None
                }
                Err(why) => {
                    problems.at_key("static_code", why);
                    None
                }
            },
            (None, pattern) => {
                let pattern = pattern.as_deref().unwrap_or(DEFAULT_PATTERN);
                match CodePattern::new(pattern, self.charset.as_deref()) {
                    Ok(pattern) => Some(CouponCodes::Generated(pattern)),
                    Err(why) => {
                        let key = if why.starts_with("charset") {
                            "charset"
                        } else {
                            "code_pattern"
                        };
                        problems.at_key(key, why);
                        None
                    }
                }
            }
        };
        let uses_per_voucher = self.uses_per_voucher.unwrap_or(1);
        if !(1..=MAX_USES_PER_VOUCHER).contains(&uses_per_voucher) {
            problems.at_key(
                "uses_per_voucher",
                format!("uses_per_voucher is 1 to {MAX_USES_PER_VOUCHER}"),
            );
        }
        if self
            .issues_per_customer
            .is_some_and(|most| !(1..=MAX_USES_PER_VOUCHER).contains(&most))
        {
            problems.at_key(
                "issues_per_customer",
                format!("issues_per_customer is 1 to {MAX_USES_PER_VOUCHER}"),
            );
        }
        if self
            .valid_days
            .is_some_and(|days| !(1..=MAX_VALID_DAYS).contains(&days))
        {
            problems.at_key("valid_days", format!("valid_days is 1 to {MAX_VALID_DAYS}"));
        }
        if self.valid_days.is_some() && matches!(codes, Some(CouponCodes::Static(_))) {
            problems.at_key(
                "valid_days",
                "valid_days counts from each Voucher's issue, and a static code is never issued: use available_to",
            );
        }
        for (key, list) in [
            ("excluded_products", &self.excluded_products),
            ("excluded_categories", &self.excluded_categories),
            ("locations", &locations),
        ] {
            if list.len() > MAX_EXCLUSIONS {
                problems.at_key(key, format!("{key} lists at most {MAX_EXCLUSIONS}"));
            }
            if let Some(blank) = list
                .iter()
                .find(|item| item.trim().is_empty() || item.len() > 128)
            {
                problems.at_key(
                    key,
                    format!("{key} holds codes of 1 to 128 characters, not `{blank}`"),
                );
            }
        }
        let mut weekdays = Vec::new();
        for name in &self.weekdays {
            match parse_day(name) {
                Some(day) if !weekdays.contains(&day) => weekdays.push(day),
                Some(_) => problems.at_key("weekdays", format!("weekday `{name}` is listed twice")),
                None => problems.at_key("weekdays", format!("`{name}` is not a day of the week")),
            }
        }
        let hours = self.hours.and_then(|hours| compile_hours(hours, problems));
        let (Some(value), Some(codes)) = (value, codes) else {
            return None;
        };
        (problems.errors.len() == before).then_some(Coupon {
            value,
            max_amount,
            codes,
            locations,
            excluded_products: self.excluded_products,
            excluded_categories: self.excluded_categories,
            uses_per_voucher,
            issues_per_customer: self.issues_per_customer,
            valid_days: self.valid_days,
            weekdays,
            hours,
        })
    }
}

fn compile_value(
    discount: DiscountFile,
    problems: &mut Problems<'_>,
) -> (Option<CouponValue>, Option<Decimal>) {
    let limit = Decimal::from(crate::common::amount::MAX_AMOUNT);
    let value = match (discount.percent, discount.amount) {
        (Some(p), None) if p > Decimal::ZERO && p <= Decimal::ONE_HUNDRED => {
            Some(CouponValue::Percent(p))
        }
        (None, Some(a)) if a > Decimal::ZERO && a <= limit => Some(CouponValue::Amount(a)),
        (Some(_), None) => {
            problems.at_key("percent", "percent is more than 0 and at most 100");
            None
        }
        (None, Some(_)) => {
            problems.at_key(
                "amount",
                format!("amount is more than 0 and at most {limit}"),
            );
            None
        }
        _ => {
            problems.at_key(
                "discount",
                "a discount has exactly one of `percent` and `amount`",
            );
            None
        }
    };
    if discount
        .max_amount
        .is_some_and(|m| m <= Decimal::ZERO || m > limit)
    {
        problems.at_key(
            "max_amount",
            format!("max_amount is more than 0 and at most {limit}"),
        );
    }
    (value, discount.max_amount)
}

fn compile_hours(hours: HoursFile, problems: &mut Problems<'_>) -> Option<Hours> {
    let parse = |text: &str| NaiveTime::parse_from_str(text.trim(), "%H:%M").ok();
    match (parse(&hours.from), parse(&hours.to)) {
        (Some(from), Some(to)) if from < to => Some(Hours { from, to }),
        (Some(_), Some(_)) => {
            problems.at_key(
                "hours",
                "hours: `from` is before `to` (a window within one day)",
            );
            None
        }
        _ => {
            problems.at_key("hours", "hours are `{ from: \"HH:MM\", to: \"HH:MM\" }`");
            None
        }
    }
}

/// The Coupon of `campaign`, when it is one.
pub fn coupon_of(campaign: &Campaign) -> Option<&Coupon> {
    match &campaign.kind {
        CampaignKind::Coupon(coupon) => Some(coupon),
        _ => None,
    }
}

/// The Coupon `coupon_id` among `campaigns`, with its campaign;
/// `coupon_not_found` when there is none.
pub fn find_coupon(campaigns: &[Campaign], coupon_id: i64) -> ApiResult<(&Campaign, &Coupon)> {
    campaigns
        .iter()
        .find_map(|campaign| {
            coupon_of(campaign)
                .filter(|_| campaign.id == coupon_id)
                .map(|coupon| (campaign, coupon))
        })
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::CouponNotFound,
                format!("no Coupon `{coupon_id}`"),
            )
        })
}

#[cfg(test)]
mod tests;
