//! Counter keys and headroom of limits.

use std::collections::HashMap;

use super::*;

fn at(wall_clock: &str) -> Redeeming<'static> {
    Redeeming {
        customer_id: "cus_1",
        location_code: Some("S1"),
        wall_clock: wall_clock.parse().unwrap(),
    }
}

#[test]
fn counters_are_named_by_what_they_count() {
    let limit = |per, each| OfferLimit {
        redemptions: Some(1),
        amount: None,
        unit: LimitUnit::Money,
        per,
        each,
    };
    let sunday = at("2026-07-05T23:30:00");
    assert_eq!(
        limit(None, None).counter_key(7, &sunday),
        ["7", "ever", "company", "ever"]
    );
    assert_eq!(
        limit(Some(LimitPeriod::Week), Some(LimitEach::Customer)).counter_key(7, &sunday),
        ["7", "week", "customer:cus_1", "2026-W27"]
    );
    assert_eq!(
        limit(Some(LimitPeriod::Day), Some(LimitEach::Location)).counter_key(7, &sunday),
        ["7", "day", "location:S1", "2026-07-05"]
    );
    // Monday starts the next ISO week.
    assert_eq!(
        limit(Some(LimitPeriod::Week), None).counter_key(7, &at("2026-07-06T00:10:00"))[3],
        "2026-W28"
    );
}

#[test]
fn the_tightest_limit_sets_the_headroom() {
    let limits = [
        OfferLimit {
            redemptions: Some(10),
            amount: Some(Decimal::from(100)),
            unit: LimitUnit::Money,
            per: None,
            each: None,
        },
        OfferLimit {
            redemptions: Some(3),
            amount: None,
            unit: LimitUnit::Money,
            per: Some(LimitPeriod::Day),
            each: Some(LimitEach::Location),
        },
    ];
    let monday = at("2026-07-06T10:00:00");
    let mut counted = HashMap::new();
    counted.insert(
        limits[0].counter_key(7, &monday),
        Counted {
            redemptions: 8,
            amount: Decimal::from(97),
        },
    );
    counted.insert(
        limits[1].counter_key(7, &monday),
        Counted {
            redemptions: 2,
            amount: Decimal::ZERO,
        },
    );
    let headroom = Headroom::of(7, &limits, &monday, &counted);
    assert_eq!(
        headroom.redemptions,
        Some((1, "3 redemptions per day at this Location".to_string()))
    );
    assert_eq!(
        headroom.amount,
        Some((Decimal::from(3), "10 redemptions and 100 ever".to_string()))
    );
    assert_eq!(headroom.exhausted(), None);
    counted.insert(
        limits[1].counter_key(7, &monday),
        Counted {
            redemptions: 3,
            amount: Decimal::ZERO,
        },
    );
    assert_eq!(
        Headroom::of(7, &limits, &monday, &counted).exhausted(),
        Some("its limit of 3 redemptions per day at this Location is reached".to_string())
    );
}

/// The errors of the campaign file `text`, one message each.
fn problems_of(text: &str) -> Vec<String> {
    use crate::engine::campaign::Campaign;
    use crate::engine::script::ScriptEngine;
    match Campaign::parse(
        &ScriptEngine::new(),
        std::path::Path::new("limits.yaml"),
        text,
    ) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

const POINTS_CAMPAIGN: &str =
    "id: 5\nkind: points\nname: Double points\non: cart\npoints:\n  per_amount: 2\n";

#[test]
fn each_kind_has_the_limits_of_what_it_gives() {
    let points = |limits: &str| problems_of(&format!("{POINTS_CAMPAIGN}limits:\n{limits}"));
    assert_eq!(
        points(
            "  - { points: 500, per: week, each: customer }\n  - { redemptions: 3, per: day }\n"
        ),
        Vec::<String>::new()
    );
    let refused = points("  - { amount: 50 }\n");
    assert!(
        refused[0].contains("limits.yaml:7") && refused[0].contains("`amount` is the money budget"),
        "{refused:?}"
    );
    let refused = points("  - { points: 0 }\n");
    assert!(refused[0].contains("points are 1 to"), "{refused:?}");
    let refused = points("  - { per: day }\n");
    assert!(
        refused[0].contains("counts `redemptions`, `points` or both"),
        "{refused:?}"
    );
    let discount = "id: 6\nkind: discount\nname: D\non: cart\ndiscount: { applies_to: cart, percent: 5 }\nlimits:\n  - { points: 10 }\n";
    let refused = problems_of(discount);
    assert!(
        refused[0].contains("`points` are the budget of a points campaign"),
        "{refused:?}"
    );
    let prize =
        "id: 7\nkind: points\nname: Prize\npoints: { fixed: 10 }\nlimits:\n  - { points: 10 }\n";
    let refused = problems_of(prize);
    assert!(
        refused[0].contains("given only as a prize has no budget"),
        "{refused:?}"
    );
    let instant_win = "id: 8\nkind: instant_win\nname: I\non: cart\nselect_customers: loyalty\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - { id: none, name: No prize, weight: 1 }\nlimits:\n  - { redemptions: 10 }\n";
    let refused = problems_of(instant_win);
    assert!(
        refused[0].contains("discount, coupon and points campaigns"),
        "{refused:?}"
    );
}

#[test]
fn a_points_budget_gives_what_is_left_then_nothing_and_says_which_is_spent() {
    use crate::engine::campaign::Campaign;
    use crate::engine::campaign::Listens;
    use crate::engine::effect::Effect;
    use crate::engine::evaluate::evaluate_plainly;
    use crate::engine::facts::Facts;
    use crate::engine::script::ScriptEngine;

    let text = format!(
        "{POINTS_CAMPAIGN}limits:\n  - {{ points: 500, per: week, each: customer }}\n  - {{ redemptions: 2, per: day }}\n"
    );
    let campaign =
        Campaign::parse(&ScriptEngine::new(), std::path::Path::new("p.yaml"), &text).unwrap();
    let mut facts = Facts {
        customer: serde_json::json!({"id": "cus_1"}),
        cart: serde_json::json!({"total": 120.0, "lines": []}),
        now: "2026-07-06T10:00:00Z".parse().unwrap(),
        ..Facts::default()
    };
    let redeeming = Redeeming::of_facts(&facts);
    let week = campaign.limits[0].counter_key(5, &redeeming);
    let day = campaign.limits[1].counter_key(5, &redeeming);
    let mut counted = HashMap::new();
    counted.insert(
        week.clone(),
        Counted {
            redemptions: 4,
            amount: Decimal::from(470),
        },
    );
    let headroom = Headroom::of(5, &campaign.limits, &redeeming, &counted);
    facts.limits.insert(5, headroom);
    let campaigns = [campaign.clone()];
    let evaluation = evaluate_plainly(&campaigns, &Listens::Cart, &facts);
    // 240 points earned, 30 left of the week's 500: 30 given.
    assert!(
        matches!(&evaluation.effects[..], [Effect::Points(points)] if points.points == 30),
        "{:?}",
        evaluation.effects
    );
    let taken: Vec<(&[String], Decimal)> = evaluation
        .event_limit_takes
        .iter()
        .map(|take| (take.key.as_slice(), take.amount))
        .collect();
    assert_eq!(
        taken,
        [
            (week.as_slice(), Decimal::from(30)),
            (day.as_slice(), Decimal::from(30))
        ]
    );
    // The week's budget spent: nothing, and the explanation names it at
    // `limits:`.
    counted.insert(
        week,
        Counted {
            redemptions: 5,
            amount: Decimal::from(500),
        },
    );
    let redeeming = Redeeming::of_facts(&facts);
    let headroom = Headroom::of(5, &campaign.limits, &redeeming, &counted);
    facts.limits.insert(5, headroom);
    let evaluation = evaluate_plainly(&campaigns, &Listens::Cart, &facts);
    assert!(evaluation.effects.is_empty());
    assert!(evaluation.event_limit_takes.is_empty());
    let explanation = &evaluation.explanations[0];
    assert_eq!(
        explanation.reason.as_deref(),
        Some("its limit of 500 points per week for this Customer is spent")
    );
    assert_eq!(explanation.at.as_deref(), Some("p.yaml:7"));
    // Two events today: the day's count is reached.
    counted.insert(
        day,
        Counted {
            redemptions: 2,
            amount: Decimal::from(4),
        },
    );
    let redeeming = Redeeming::of_facts(&facts);
    assert_eq!(
        Headroom::of(5, &campaign.limits, &redeeming, &counted).exhausted(),
        Some("its limit of 2 events per day is reached".to_string())
    );
}
