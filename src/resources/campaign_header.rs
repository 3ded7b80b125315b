//! What the API shows first of a campaign, whatever its kind: its id, its
//! name and description in the response language, and whether and when it
//! runs. Each kind's answer flattens it in before its own fields.

use poem_openapi::Object;
use serde::Serialize;

use crate::common::language::Language;
use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;

/// The fields every campaign's answer starts with.
#[derive(Debug, Clone, PartialEq, Serialize, Object)]
pub struct CampaignHeader {
    /// The campaign's id: `rule_id` of its effects (and of what they
    /// record); from 1000000 when created through the API.
    pub id: i64,
    /// Name, in the response language.
    pub name: String,
    /// Description, in the response language.
    #[oai(skip_serializing_if_is_none)]
    pub description: Option<String>,
    /// Whether it is active.
    pub active: bool,
    /// First instant it runs.
    #[oai(skip_serializing_if_is_none)]
    pub available_from: Option<Timestamp>,
    /// Last instant it runs.
    #[oai(skip_serializing_if_is_none)]
    pub available_to: Option<Timestamp>,
}

impl CampaignHeader {
    /// The header of `campaign`, its texts in `language` and its dates as
    /// instants on the clocks of `locale`.
    pub fn of(campaign: &Campaign, language: &Language, locale: &Locale) -> Self {
        let render =
            |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
        CampaignHeader {
            id: campaign.id,
            name: render(&campaign.name),
            description: campaign.description.as_ref().map(render),
            active: campaign.active,
            available_from: campaign.available_from.map(|t| t.instant(locale)),
            available_to: campaign.available_to.map(|t| t.instant(locale)),
        }
    }
}

/// Declares the body of a campaign written through the API (POST creates
/// it, PATCH replaces the fields sent), every field optional: the header
/// every such campaign has (`name`, `description`, `active`), its own
/// fields, then those of the shared sections it names after `with`, in
/// that order: `available` (`available_from`, `available_to`), `when`,
/// `stacking`, `limits`; each left out of what it writes when absent
/// ([`optional_fields!`](crate::resources::optional_fields::optional_fields)).
/// The struct's attributes (derives, `oai`) are the caller's.
macro_rules! campaign_spec {
    (
        $(#[$meta:meta])*
        pub struct $name:ident { $($fields:tt)* }
        $(with $($section:ident),+)?
    ) => {
        $crate::resources::campaign_header::campaign_spec!(@fields
            [$(#[$meta])*] $name
            [
                /// Name: a text, or one text per language (`{"en": "...", "es": "..."}`).
                pub name: Option<serde_json::Value>,
                /// Description, translatable like `name`.
                pub description: Option<serde_json::Value>,
                /// Whether it is in force (default true): an inactive campaign
                /// applies to no event, and an inactive Coupon's Vouchers are
                /// refused with `voucher_inactive`.
                pub active: Option<bool>,
                $($fields)*
            ]
            $($($section)+)?
        );
    };
    (@fields $meta:tt $name:ident [$($done:tt)*] available $($rest:ident)*) => {
        $crate::resources::campaign_header::campaign_spec!(@fields $meta $name [
            $($done)*
            /// First instant it applies.
            pub available_from: Option<$crate::common::time::Timestamp>,
            /// Last instant it applies.
            pub available_to: Option<$crate::common::time::Timestamp>,
        ] $($rest)*);
    };
    (@fields $meta:tt $name:ident [$($done:tt)*] when $($rest:ident)*) => {
        $crate::resources::campaign_header::campaign_spec!(@fields $meta $name [
            $($done)*
            /// Its rhai condition over the event and the Customer (a
            /// Coupon's: who may use its Vouchers; see the campaign file
            /// reference); not blank.
            #[oai(validator(pattern = r"\S", max_length = 10000))]
            pub when: Option<String>,
        ] $($rest)*);
    };
    (@fields $meta:tt $name:ident [$($done:tt)*] stacking $($rest:ident)*) => {
        $crate::resources::campaign_header::campaign_spec!(@fields $meta $name [
            $($done)*
            /// How it shares a cart with discount campaigns and Vouchers;
            /// `max_per_cart` (how many of its Vouchers one cart uses) is
            /// for Coupons only.
            pub stacking: Option<$crate::resources::discounts::stacking_rules::StackingRules>,
        ] $($rest)*);
    };
    (@fields $meta:tt $name:ident [$($done:tt)*] limits $($rest:ident)*) => {
        $crate::resources::campaign_header::campaign_spec!(@fields $meta $name [
            $($done)*
            /// Its budgets and caps: how many `redemptions` (events it
            /// applies to, Voucher uses) and how much it gives (`amount` of
            /// money, or `points`), overall or `per` period, for the Company
            /// or `each` Location or Customer (each `per`/`each` pair once).
            /// What is left of a points budget is given when an event would
            /// earn more. A PATCH replaces the list.
            #[oai(validator(max_items = 20))]
            pub limits: Option<Vec<$crate::resources::limits::OfferLimitRules>>,
        ] $($rest)*);
    };
    (@fields [$($meta:tt)*] $name:ident [$($done:tt)*]) => {
        $crate::resources::optional_fields::optional_fields! {
            $($meta)*
            pub struct $name { $($done)* }
        }
    };
}

pub(crate) use campaign_spec;
