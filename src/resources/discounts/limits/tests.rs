//! Counter keys and headroom of limits.

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
            per: None,
            each: None,
        },
        OfferLimit {
            redemptions: Some(3),
            amount: None,
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
