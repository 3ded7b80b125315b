//! Each section of the schema has exactly the keys the loader reads there,
//! and its enumerations are the loader's (the shipped file and the shipped
//! campaigns are checked by `tests/scenarios/schema.rs`).

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::engine::campaign_file::CampaignFile;
use crate::engine::kinds::CampaignKind;
use crate::engine::schema::campaign_schema;
use crate::resources::challenges::goal::{GoalFile, StreakFile, WindowFile};
use crate::resources::challenges::rules::ChallengeRewardFile;
use crate::resources::coupons::rules::CouponFile;
use crate::resources::coupons::rules::DiscountFile as CouponDiscountFile;
use crate::resources::coupons::rules::HoursFile;
use crate::resources::discounts::rules::{DiscountFile, Target};
use crate::resources::discounts::stacking::StackingFile;
use crate::resources::instant_wins::rules::file::InstantWinFile;
use crate::resources::instant_wins::rules::prize_file::{OutcomeFile, PrizeFile};
use crate::resources::limits::OfferLimitRules;
use crate::resources::messages::rules::MessageFile;
use crate::resources::points_campaigns::rules::PointsFile;
use crate::resources::rewards::rules::{GivenVoucherFile, GivesFile, LimitFile};
use crate::resources::vouchers::rules::VoucherFile;

/// The keys the loader reads into `T`, from serde's own refusal of a key it
/// does not know.
fn loader_keys<T: DeserializeOwned + std::fmt::Debug>() -> BTreeSet<String> {
    let error = serde_yaml::from_str::<T>("not_a_key_of_any_section: 1")
        .expect_err("an unknown key is refused")
        .to_string();
    let expected = error
        .split("expected ")
        .nth(1)
        .unwrap_or_else(|| panic!("no list of keys in `{error}`"));
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The keys the schema gives the object at `pointer`.
fn schema_keys(pointer: &str) -> BTreeSet<String> {
    let schema = campaign_schema();
    let object = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no {pointer} in the schema"));
    assert_eq!(
        object.get("additionalProperties"),
        Some(&Value::Bool(false)),
        "{pointer} refuses keys it does not name, as the loader does"
    );
    object["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn every_section_of_the_schema_has_the_keys_the_loader_reads() {
    let sections = [
        ("", loader_keys::<CampaignFile>()),
        ("/$defs/discount", loader_keys::<DiscountFile>()),
        ("/$defs/points", loader_keys::<PointsFile>()),
        ("/$defs/stacking", loader_keys::<StackingFile>()),
        ("/$defs/limit", loader_keys::<OfferLimitRules>()),
        ("/$defs/coupon", loader_keys::<CouponFile>()),
        (
            "/$defs/coupon/properties/discount",
            loader_keys::<CouponDiscountFile>(),
        ),
        ("/$defs/coupon/properties/hours", loader_keys::<HoursFile>()),
        ("/$defs/instant_win", loader_keys::<InstantWinFile>()),
        ("/$defs/prize", loader_keys::<PrizeFile>()),
        (
            "/$defs/prize/properties/outcome",
            loader_keys::<OutcomeFile>(),
        ),
        ("/$defs/voucher", loader_keys::<VoucherFile>()),
        ("/$defs/reward_limit", loader_keys::<LimitFile>()),
        ("/$defs/gives", loader_keys::<GivesFile>()),
        (
            "/$defs/gives/properties/voucher",
            loader_keys::<GivenVoucherFile>(),
        ),
        ("/$defs/goal", loader_keys::<GoalFile>()),
        ("/$defs/goal/properties/streak", loader_keys::<StreakFile>()),
        ("/$defs/goal/properties/window", loader_keys::<WindowFile>()),
        (
            "/$defs/challenge_reward",
            loader_keys::<ChallengeRewardFile>(),
        ),
        ("/$defs/message", loader_keys::<MessageFile>()),
    ];
    for (pointer, loader) in sections {
        assert!(!loader.is_empty(), "{pointer}: serde named no keys");
        assert_eq!(schema_keys(pointer), loader, "the keys of {pointer:?}");
    }
}

#[test]
fn the_enumerations_are_the_loaders() {
    let schema = campaign_schema();
    let values = |pointer: &str| -> Vec<String> {
        schema
            .pointer(pointer)
            .and_then(Value::as_array)
            .map(|values| {
                values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        values("/properties/kind/enum"),
        CampaignKind::NAMES.to_vec()
    );
    assert_eq!(
        values("/$defs/discount/properties/applies_to/enum"),
        Target::NAMES.to_vec()
    );
    // Every key has a description an editor shows.
    fn undescribed(value: &Value, at: &str, found: &mut Vec<String>) {
        if let Some(properties) = value.get("properties").and_then(Value::as_object) {
            for (key, property) in properties {
                let here = format!("{at}/{key}");
                if property.get("description").is_none() {
                    found.push(here.clone());
                }
                undescribed(property, &here, found);
            }
        }
    }
    let mut found = Vec::new();
    undescribed(&schema, "", &mut found);
    for (name, definition) in schema["$defs"].as_object().into_iter().flatten() {
        undescribed(definition, &format!("$defs/{name}"), &mut found);
    }
    assert!(found.is_empty(), "keys without a description: {found:?}");
}
