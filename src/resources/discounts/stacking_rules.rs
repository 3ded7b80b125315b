//! A campaign's `stacking` as the API takes and answers it (discount
//! campaigns and Coupons created through the API); the section's meaning
//! and how it is compiled are [`super::stacking`].

use poem_openapi::Object;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::resources::discounts::stacking::{DiscountBase, Stacking};
use crate::resources::optional_fields::optional_fields;

optional_fields! {
    /// How a discount campaign or Coupon shares a cart with the other offers,
    /// as the API takes and answers it (the `stacking:` section of a campaign
    /// file). Offers of higher `priority` are reckoned first and win conflicts;
    /// two offers share a cart only when each allows the other; among offers of
    /// one priority that do not combine, the choice worth most to the Customer
    /// wins, and the others say why in `explain` (a Voucher: a
    /// `voucher_rejected` effect with `voucher_not_combinable`).
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Object)]
    #[oai(deny_unknown_fields)]
    pub struct StackingRules {
        /// Higher first (default 0), -1000000 to 1000000.
        #[oai(validator(minimum(value = "-1000000"), maximum(value = "1000000")))]
        pub priority: Option<i64>,
        /// Its group, which other offers name in `combines_with`.
        #[oai(validator(pattern = r"\S", max_length = 64))]
        pub group: Option<String>,
        /// The groups it may share a cart with; absent: any offer that allows
        /// it.
        #[oai(validator(max_items = 100, pattern = r"\S", max_length = 64))]
        pub combines_with: Option<Vec<String>>,
        /// The groups it never shares a cart with, whatever `combines_with`
        /// allows (offers of no group, or of other groups, still may).
        #[oai(validator(max_items = 100, pattern = r"\S", max_length = 64))]
        pub excludes: Option<Vec<String>>,
        /// `true`: it shares a cart with no other offer (not with
        /// `combines_with`).
        pub exclusive: Option<bool>,
        /// What its percentage is taken of: `original` (discount campaigns'
        /// default) or `discounted` (Coupons' default).
        pub base: Option<DiscountBase>,
        /// Coupons: most of its Vouchers one cart uses (at least 1); absent: no
        /// limit.
        #[oai(validator(minimum(value = "1")))]
        pub max_per_cart: Option<u32>,
    }
}

impl StackingRules {
    /// Keeps a PATCH's `stacking` coherent once merged into the stored
    /// `merged` campaign: `exclusive: true` sent drops the stored
    /// `combines_with`, and `combines_with` sent drops the stored
    /// `exclusive`.
    pub fn settle_patch(sent: Option<&StackingRules>, merged: &mut Value) {
        let (Some(sent), Some(section)) = (
            sent,
            merged.get_mut("stacking").and_then(Value::as_object_mut),
        ) else {
            return;
        };
        if sent.exclusive == Some(true) && sent.combines_with.is_none() {
            section.remove("combines_with");
            if sent.excludes.is_none() {
                section.remove("excludes");
            }
        } else if sent.combines_with.is_some() && sent.exclusive.is_none() {
            section.remove("exclusive");
        }
    }
}

impl From<&Stacking> for StackingRules {
    /// As the API answers it.
    fn from(stacking: &Stacking) -> Self {
        StackingRules {
            priority: Some(stacking.priority),
            group: stacking.group.clone(),
            combines_with: stacking
                .combines_with
                .clone()
                .filter(|groups| !groups.is_empty()),
            excludes: Some(stacking.excludes.clone()).filter(|groups| !groups.is_empty()),
            exclusive: Some(stacking.exclusive()),
            base: Some(stacking.base),
            max_per_cart: stacking.max_per_cart,
        }
    }
}
