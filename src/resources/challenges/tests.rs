//! Challenges: every compile problem at its line, goals measured on the
//! Company's calendar, and a property test over random event streams and
//! returns.

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::NaiveDate;
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde_json::json;

use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::effect::Effect;
use crate::engine::evaluate::Evaluation;
use crate::engine::evaluate::evaluate;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::engine::script::ScriptEngine;
use crate::resources::challenges::measure::measure;
use crate::resources::challenges::measure::period_key;
use crate::resources::challenges::progress::ChallengeRecord;
use crate::resources::challenges::progress::Offered;
use crate::resources::challenges::progress::advance;
use crate::resources::challenges::progress::give_back;
use crate::resources::challenges::progress::standing;
use crate::resources::challenges::rules::Challenge;
use crate::resources::instant_wins::rules::draws::Draws;

fn parse(text: &str) -> Result<Campaign, Vec<String>> {
    Campaign::parse(&ScriptEngine::new(), &PathBuf::from("demo/c.yaml"), text)
        .map_err(|errors| errors.iter().map(ToString::to_string).collect())
}

fn challenge(goal_and_more: &str) -> Challenge {
    let text = format!(
        "id: 9\nkind: challenge\nname: C\non: cart\nreward: {{ points: 10 }}\n{goal_and_more}"
    );
    match parse(&text).unwrap().kind {
        CampaignKind::Challenge(challenge) => *challenge,
        other => panic!("{other:?}"),
    }
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

fn offered(source: &str, on: &str, amount: i64) -> Offered {
    Offered {
        source: source.into(),
        day: day(on),
        amount: Decimal::from(amount),
        at: format!("{on}T10:00:00Z").parse().unwrap(),
    }
}

/// Offers one event on each day of `steps` in order and checks the progress
/// each answers: `steps` is "MM-DD PROGRESS, ..." in 2026 (`-`: the event
/// did not count). Answers the record after them.
fn progress(challenge: &Challenge, steps: &str) -> Option<ChallengeRecord> {
    let mut record: Option<ChallengeRecord> = None;
    for (n, step) in steps.split(", ").enumerate() {
        let (month_day, expected) = step.split_once(' ').expect("MM-DD PROGRESS");
        let on = format!("2026-{month_day}");
        let source = format!("cart:{n}");
        let answer = match advance(
            challenge,
            record.as_ref(),
            9,
            "x",
            &offered(&source, &on, 1),
        ) {
            Ok(advanced) => {
                let progress: f64 = advanced.progress.try_into().unwrap();
                record = Some(advanced.record);
                progress.to_string()
            }
            Err(_) => "-".to_string(),
        };
        assert_eq!(answer, expected, "the event of {on} (step {n}) in {steps}");
    }
    record
}

#[test]
fn every_problem_of_a_challenge_file_is_reported_at_its_line() {
    let cases = [
        (
            "goal: { count: 3, sum: cart.total }\nreward: { points: 1 }\n",
            5,
            "exactly one of",
        ),
        (
            "goal: { count: 3 }\nreward: { points: 1, game: 4 }\n",
            6,
            "`reward` is one of",
        ),
        ("goal: { count: 3 }\n", 2, "needs a `reward`"),
        ("reward: { points: 1 }\n", 2, "needs a `goal`"),
        ("goal: { count: 0 }\nreward: { points: 1 }\n", 5, "from 1"),
        (
            "goal: { sum: cart.total }\nreward: { points: 1 }\n",
            5,
            "needs a `target`",
        ),
        (
            "goal: { streak: { weeks: 2 }, grace_days: 1 }\nreward: { points: 1 }\n",
            5,
            "grace_days",
        ),
        (
            "goal: { count: 2, consecutive: 3 }\nreward: { points: 1 }\n",
            5,
            "per_period",
        ),
        (
            "goal: { count: 2 }\nrepeat: each_period\nreward: { points: 1 }\n",
            6,
            "needs a `period`",
        ),
        (
            "goal: { count: 2 }\nenrollment: maybe\nreward: { points: 1 }\n",
            6,
            "automatic, required",
        ),
        (
            "goal: { count: 2 }\non_return: refund\nreward: { points: 1 }\n",
            6,
            "keep, revoke",
        ),
    ];
    for (rest, line, message) in cases {
        let text = format!("id: 9\nkind: challenge\nname: C\non: cart\n{rest}");
        let errors = parse(&text).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|e| e.contains(&format!("c.yaml:{line}")) && e.contains(message)),
            "{rest}: {errors:?}"
        );
    }
    let errors = parse("id: 9\nkind: discount\nname: D\non: cart\ngoal: { count: 3 }\ndiscount: { applies_to: cart, percent: 5 }\n").unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("challenge campaigns only")),
        "{errors:?}"
    );
    let errors =
        parse("id: 9\nkind: challenge\nname: C\ngoal: { count: 3 }\nreward: { points: 1 }\n")
            .unwrap_err();
    assert!(
        errors.iter().any(|e| e.contains("needs `on`")),
        "{errors:?}"
    );
}

#[test]
fn a_sum_goal_adds_the_amount_its_expression_reckons() {
    let campaign = parse(
        "id: 9\nkind: challenge\nname: Coffee units\non: cart\ngoal: { sum: 'cart.lines.filter(|l| l.taxonomies.contains(\"coffee\")).reduce(|sum, l| sum + l.quantity, 0.0)', target: 10 }\nreward: { points: 10 }\n",
    )
    .unwrap();
    let facts = Facts {
        now: "2026-11-23T10:00:00Z".parse().unwrap(),
        customer: json!({"id": "x"}),
        cart: json!({"code": "K1", "total": 9.0, "lines": [
            {"product_code": "ESPRESSO", "quantity": 3, "price": 1.5, "taxonomies": ["coffee"]},
            {"product_code": "MUFFIN", "quantity": 2, "price": 2.25, "taxonomies": ["bakery"]}
        ]}),
        ..Facts::default()
    };
    let evaluation = evaluated(&campaign, &facts, &HashMap::new());
    let Some(Effect::Challenge(effect)) = evaluation.effects.first() else {
        panic!("{evaluation:?}");
    };
    assert_eq!(effect.step.progress.0, Decimal::from(3));
    assert_eq!(effect.step.target.0, Decimal::from(10));
    assert_eq!(effect.record.counted[0].source, "cart:K1");
}

/// `campaign` evaluated on a cart's `facts`, the Customer holding
/// `challenges`.
fn evaluated(
    campaign: &Campaign,
    facts: &Facts,
    challenges: &HashMap<i64, ChallengeRecord>,
) -> Evaluation {
    let mut random = || 0.5;
    let mut draws = Draws {
        states: &HashMap::new(),
        challenges,
        random: &mut random,
        forced: &HashMap::new(),
    };
    evaluate(
        &ScriptEngine::new(),
        std::slice::from_ref(campaign),
        &Listens::Cart,
        facts,
        &mut draws,
        &|text| text.resolve("en", "en"),
    )
}

/// The `challenge` effect of a cart `code` at `now` (UTC) for a Company in
/// Madrid, on the record `record`.
fn madrid_cart(
    campaign: &Campaign,
    record: Option<&ChallengeRecord>,
    code: &str,
    now: &str,
) -> Box<crate::resources::challenges::evaluate::ChallengeEffect> {
    let facts = Facts {
        now: now.parse().unwrap(),
        customer: json!({"id": "x"}),
        cart: json!({"code": code, "total": 3.0, "lines": []}),
        locale: crate::common::locale::Locale {
            time_zone: chrono_tz::Europe::Madrid,
            ..Default::default()
        },
        ..Facts::default()
    };
    let challenges: HashMap<i64, ChallengeRecord> =
        record.map(|r| (9, r.clone())).into_iter().collect();
    let mut evaluation = evaluated(campaign, &facts, &challenges);
    match evaluation.effects.pop() {
        Some(Effect::Challenge(effect)) => effect,
        other => panic!("{other:?} {:?}", evaluation.explanations),
    }
}

#[test]
fn days_are_the_companys_across_a_daylight_saving_change() {
    let campaign = parse("id: 9\nkind: challenge\nname: Two days\non: cart\ngoal: { streak: { days: 2 } }\nreward: { points: 10 }\n").unwrap();
    // 23:30 in Madrid on Saturday 24 October (summer time, UTC+2) and on
    // Sunday 25 October (winter time, UTC+1): two days in a row there,
    // 25 hours apart.
    let saturday = madrid_cart(&campaign, None, "A", "2026-10-24T21:30:00Z");
    assert_eq!(saturday.record.counted[0].day, day("2026-10-24"));
    let sunday = madrid_cart(
        &campaign,
        Some(&saturday.record),
        "B",
        "2026-10-25T22:30:00Z",
    );
    assert_eq!(sunday.record.counted[1].day, day("2026-10-25"));
    assert!(sunday.step.completed, "{sunday:?}");
    // 00:30 on Monday in Madrid is still Sunday in UTC: a third day there.
    let monday = madrid_cart(
        &campaign,
        Some(&saturday.record),
        "C",
        "2026-10-25T23:30:00Z",
    );
    assert_eq!(monday.record.counted.last().unwrap().day, day("2026-10-26"));
    assert!(
        !monday.step.completed,
        "a day was missed in Madrid: {monday:?}"
    );
}

#[test]
fn a_day_streak_survives_gaps_of_its_grace_days_only() {
    let streak = challenge("goal: { streak: { days: 4 }, grace_days: 1 }\n");
    // A one-day gap is forgiven; a two-day gap starts again.
    progress(&streak, "11-02 1, 11-04 2, 11-05 3, 11-08 1");
    let strict = challenge("goal: { streak: { days: 2 } }\n");
    let counted = progress(&strict, "11-02 1, 11-04 1").unwrap().counted;
    assert_eq!(counted.len(), 1, "the broken run is dropped");
}

#[test]
fn periods_in_a_row_and_one_event_per_period_count_as_written() {
    let months = challenge("goal: { count: 2, per_period: month, consecutive: 2 }\n");
    progress(&months, "01-10 0, 01-20 1, 02-01 1, 02-27 2");
    let weekly = challenge("goal: { count: 3, per_period: week, max_count_per_period: 1 }\n");
    progress(&weekly, "11-02 1, 11-03 -, 11-09 2, 11-16 3");
    let window = challenge("goal: { count: 2, window: { days: 7 } }\n");
    progress(&window, "11-02 1, 11-10 1, 11-12 2");
}

#[test]
fn a_challenge_repeating_once_completed_starts_again_at_once() {
    let punch_card = challenge("goal: { count: 2 }\nrepeat: once_completed\n");
    let record = progress(&punch_card, "11-02 1, 11-02 2, 11-03 1, 11-03 2");
    let record = record.unwrap();
    assert_eq!(record.completions.len(), 2);
    assert!(record.counted.is_empty());
}

#[test]
fn enrolment_based_periods_start_on_the_enrolment_day() {
    let monthly = challenge("goal: { count: 2 }\nperiod: month\nperiod_starts: enrollment\n");
    let weekly = challenge("goal: { count: 2 }\nperiod: week\nperiod_starts: enrollment\n");
    let calendar = challenge("goal: { count: 2 }\nperiod: week\n");
    // (challenge, enrolled on, day, the key of the period the day is in)
    let cases = [
        (&monthly, "2026-01-31", "2026-02-27", "from 2026-01-31"),
        (&monthly, "2026-01-31", "2026-02-28", "from 2026-02-28"),
        (&weekly, "2026-11-05", "2026-11-11", "from 2026-11-05"),
        (&weekly, "2026-11-05", "2026-11-12", "from 2026-11-12"),
        (&calendar, "2026-11-05", "2026-11-12", "2026-W46"),
    ];
    for (challenge, enrolled, on, expected) in cases {
        let key = period_key(challenge, Some(day(enrolled)), day(on));
        assert_eq!(key, expected, "enrolled {enrolled}, on {on}");
    }
}

/// One step of a random stream: an event on a day (0..28 after the start),
/// or the return of the n-th event offered.
#[derive(Debug, Clone)]
enum Step {
    Event(u8),
    Return(usize),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            3 => (0u8..3).prop_map(Step::Event),
            1 => (0usize..40).prop_map(Step::Return),
        ],
        1..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Over any stream of events and returns: progress equals what the
    /// events still counted make, a period grants at most once however
    /// often it is completed, revoked and completed again, and every write
    /// moves the version by one.
    #[test]
    fn progress_is_the_events_that_count_and_a_period_grants_once(
        stream in steps(),
        shape in 0usize..4,
    ) {
        let goal = [
            "goal: { count: 3 }\nperiod: week\nrepeat: each_period\non_return: revoke\n",
            "goal: { count: 2 }\non_return: revoke\n",
            "goal: { count: 2 }\nrepeat: once_completed\non_return: revoke\n",
            "goal: { streak: { days: 3 } }\nperiod: month\nrepeat: each_period\non_return: keep\n",
        ][shape];
        let challenge = challenge(goal);
        let start = day("2026-11-23");
        let mut today = start;
        let mut record: Option<ChallengeRecord> = None;
        let mut offered_sources: Vec<String> = Vec::new();
        let mut returned: Vec<String> = Vec::new();
        for (n, step) in stream.iter().enumerate() {
            let before = record.as_ref().map_or(0, |r| r.version);
            match step {
                Step::Event(days_later) => {
                    today = today + chrono::Days::new(u64::from(*days_later));
                    let source = format!("cart:{n}");
                    offered_sources.push(source.clone());
                    let at = Timestamp::from(today.and_hms_opt(10, 0, 0).unwrap().and_utc());
                    let event = Offered { source, day: today, amount: Decimal::ONE, at };
                    if let Ok(advanced) = advance(&challenge, record.as_ref(), 9, "x", &event) {
                        prop_assert_eq!(advanced.record.version, before + 1);
                        let mut next = advanced.record;
                        if let (true, Some(last)) = (advanced.completed, next.completions.last_mut()) {
                            last.granted = advanced.grants.map(|_| {
                                crate::resources::challenges::progress::Grant::Points { points: 10 }
                            });
                        }
                        record = Some(next);
                    }
                }
                Step::Return(index) => {
                    let Some(source) = offered_sources.get(*index).cloned() else { continue };
                    if returned.contains(&source) { continue; }
                    returned.push(source.clone());
                    let at = Timestamp::from(today.and_hms_opt(12, 0, 0).unwrap().and_utc());
                    if let Some(current) = &record
                        && let Some((next, _)) = give_back(&challenge, current, &source, today, at)
                    {
                        prop_assert_eq!(next.version, before + 1);
                        record = Some(next);
                    }
                }
            }
            let Some(current) = &record else { continue };
            // No returned event counts, none counts twice.
            for counted in &current.counted {
                prop_assert!(!returned.contains(&counted.source), "{:?}", current);
                prop_assert_eq!(
                    current.counted.iter().filter(|c| c.source == counted.source).count(), 1
                );
            }
            // Progress is what the counted events make.
            let shown = standing(&challenge, Some(current), today);
            let counted_now = measure(&challenge, &current.counted, today);
            if !shown.completed || challenge.repeat == crate::resources::challenges::rules::Repeat::OnceCompleted {
                if current.period == shown.period {
                    prop_assert_eq!(shown.progress, counted_now.min(shown.target));
                } else {
                    prop_assert_eq!(shown.progress, Decimal::ZERO);
                }
            }
            // A period (or a Challenge that never repeats) grants at most
            // once, and holds at most one standing completion unless it
            // starts again once completed.
            let mut periods: Vec<&str> = current.completions.iter().map(|c| c.period.as_str()).collect();
            periods.dedup();
            for period in periods {
                let of = |c: &&crate::resources::challenges::progress::Completion| {
                    challenge.repeat == crate::resources::challenges::rules::Repeat::Never || c.period == period
                };
                let granted = current.completions.iter().filter(of).filter(|c| c.granted.is_some()).count();
                let standing_ones = current.completions.iter().filter(of).filter(|c| c.revoked_at.is_none()).count();
                if challenge.repeat != crate::resources::challenges::rules::Repeat::OnceCompleted {
                    prop_assert!(granted <= 1, "{:?}", current.completions);
                    prop_assert!(standing_ones <= 1, "{:?}", current.completions);
                }
            }
        }
    }
}
