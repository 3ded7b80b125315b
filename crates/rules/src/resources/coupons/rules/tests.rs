use std::path::PathBuf;

use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::engine::script::ScriptEngine;

use super::*;

fn parse(text: &str) -> Result<Campaign, Vec<crate::engine::script::RuleError>> {
    Campaign::parse(&ScriptEngine::new(), &PathBuf::from("coupon.yaml"), text)
}

#[test]
fn a_coupon_campaign_compiles_with_its_defaults() {
    let campaign = parse(
        "id: 600\nkind: coupon\nname: Ten off\nlocations: [S1]\ncoupon:\n  discount: { percent: 10 }\n",
    )
    .unwrap();
    let CampaignKind::Coupon(coupon) = &campaign.kind else {
        panic!("{:?}", campaign.kind)
    };
    assert_eq!(coupon.value, CouponValue::Percent(Decimal::TEN));
    assert_eq!(coupon.uses_per_voucher, 1);
    assert_eq!(coupon.locations, vec!["S1".to_string()]);
    assert!(matches!(&coupon.codes, CouponCodes::Generated(p) if p.as_str() == DEFAULT_PATTERN));
}

#[test]
fn every_problem_of_a_coupon_is_reported_at_its_line() {
    let errors = parse(
        "id: 600\nkind: coupon\nname: Bad\non: cart\ncoupon:\n  discount: { percent: 150 }\n  static_code: \"50%\"\n  uses_per_voucher: 0\n  weekdays: [funday]\n  hours: { from: \"18:00\", to: \"09:00\" }\n",
    )
    .unwrap_err();
    let said: Vec<String> = errors
        .iter()
        .map(|e| format!("{}: {}", e.line, e.message))
        .collect();
    for expected in [
        "4: a coupon listens to no event",
        "6: percent is more than 0 and at most 100",
        "7: code `50%`",
        "8: uses_per_voucher is 1 to",
        "9: `funday` is not a day of the week",
        "10: hours: `from` is before `to`",
    ] {
        assert!(
            said.iter()
                .any(|s| s.starts_with(expected) || s.contains(expected)),
            "{expected} not in {said:#?}"
        );
    }
}

#[test]
fn a_coupon_needs_a_discount_and_one_source_of_codes() {
    let errors = parse("id: 600\nkind: coupon\nname: X\ncoupon:\n  static_code: A1\n").unwrap_err();
    assert!(
        errors[0].message.contains("what its Vouchers take off"),
        "{errors:?}"
    );
    let errors = parse(
        "id: 600\nkind: coupon\nname: X\ncoupon:\n  discount: { amount: 5 }\n  static_code: A1\n  code_pattern: A-####\n",
    )
    .unwrap_err();
    assert!(errors[0].message.contains("not both"), "{errors:?}");
}

#[test]
fn an_instant_wins_coupon_is_a_reference_only() {
    let errors = parse(
        "id: 7\nkind: instant_win\nname: X\non: cart\nselect_customers: targeted\ncoupon: { id: 1, name: T, static_code: T, discount: { percent: 5 } }\ninstant_win:\n  instant_win_prizes:\n    - { id: none, name: No prize, weight: 1 }\n",
    )
    .unwrap_err();
    assert!(
        errors.iter().any(|e| e.message.contains("not `discount`")),
        "{errors:?}"
    );
}
