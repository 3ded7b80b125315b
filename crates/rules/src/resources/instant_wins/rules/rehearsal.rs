//! A rehearsal of an Instant Win's days before launch: so many events a
//! day from a pool of Customers, each one drawing only on the days the
//! campaign takes part and within its `once` limit, its stock taken as
//! prizes are won. It answers "how many days does the coffee stock last at
//! 3,000 carts a day" (`loyalty campaigns draws --per-day 3000`).

use std::collections::HashMap;

use chrono::NaiveDateTime;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::draw;

/// What to rehearse.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The first day's events happen at this wall-clock time; each next
    /// day's one day later.
    pub start: NaiveDateTime,
    /// Days rehearsed.
    pub days: usize,
    /// Events a day.
    pub per_day: usize,
    /// Customers the events come from, each event from one of them at
    /// random.
    pub customers: usize,
    /// Seed of the generator (the same seed gives the same rehearsal).
    pub seed: u64,
}

/// One rehearsed day.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Day {
    /// Its date (`2026-11-27`).
    pub date: String,
    /// Why the campaign did not take part that day, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_taking_part: Option<String>,
    /// Events that drew (within their Customer's `once` limit).
    pub draws: usize,
    /// Events past their Customer's `once` limit: no draw.
    pub over_once: usize,
    /// Prizes won that day, by prize, in the file's order.
    pub won: Vec<usize>,
    /// Units left at the end of the day, by prize (-1: unlimited).
    pub stock_left: Vec<i64>,
}

/// How one prize fared over the rehearsal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrizeRun {
    /// The prize's id.
    pub id: String,
    /// Its stock (-1 unlimited).
    pub stock: i64,
    /// Units won in all.
    pub won: usize,
    /// The date its last unit was won, when it ran out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran_out_on: Option<String>,
    /// Full days its stock lasted: the days before the one it ran out on
    /// (all of them when it did not).
    pub days_lasted: usize,
}

/// The result of a rehearsal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rehearsal {
    /// Days rehearsed, events a day, Customers and the seed.
    pub days: usize,
    /// Events a day.
    pub per_day: usize,
    /// Customers the events came from.
    pub customers: usize,
    /// The generator's seed.
    pub seed: u64,
    /// Each day.
    pub each_day: Vec<Day>,
    /// Each prize.
    pub prizes: Vec<PrizeRun>,
}

/// Rehearses `instant_win` as `plan` says; `takes_part(day, at)` says
/// whether the campaign takes part on day `day` (from 0) at `at`, or why
/// not (its days, dates or condition).
pub fn rehearse(
    instant_win: &InstantWin,
    plan: &Plan,
    takes_part: &mut dyn FnMut(usize, NaiveDateTime) -> Result<(), String>,
) -> Rehearsal {
    let prizes = &instant_win.prizes;
    let mut rng = StdRng::seed_from_u64(plan.seed);
    let mut given = vec![0i64; prizes.len()];
    let mut won = vec![0usize; prizes.len()];
    let mut ran_out_on: Vec<Option<(usize, String)>> = vec![None; prizes.len()];
    // Participations of each Customer in each `once` period.
    let mut taken: HashMap<(usize, String), i64> = HashMap::new();
    let customers = plan.customers.max(1);
    let mut each_day = Vec::with_capacity(plan.days);
    for day in 0..plan.days {
        let at = plan.start + chrono::Duration::days(day as i64);
        let date = at.format("%Y-%m-%d").to_string();
        let mut today = Day {
            date: date.clone(),
            not_taking_part: takes_part(day, at).err(),
            draws: 0,
            over_once: 0,
            won: vec![0; prizes.len()],
            stock_left: Vec::new(),
        };
        if today.not_taking_part.is_none() {
            let period = instant_win.once.key(at);
            for _ in 0..plan.per_day {
                let customer = rng.random_range(0..customers);
                let count = taken.entry((customer, period.clone())).or_insert(0);
                if *count >= instant_win.once_limit {
                    today.over_once += 1;
                    continue;
                }
                *count += 1;
                today.draws += 1;
                let drawn = draw(prizes, &given, rng.random::<f64>());
                if let (Some(index), true) = (drawn.index, drawn.won) {
                    given[index] += 1;
                    won[index] += 1;
                    today.won[index] += 1;
                    if prizes[index].remaining(given[index]) == Some(0) {
                        ran_out_on[index] = Some((day, date.clone()));
                    }
                }
            }
        }
        today.stock_left = prizes
            .iter()
            .zip(&given)
            .map(|(prize, given)| prize.remaining(*given).unwrap_or(-1))
            .collect();
        each_day.push(today);
    }
    Rehearsal {
        days: plan.days,
        per_day: plan.per_day,
        customers,
        seed: plan.seed,
        each_day,
        prizes: prizes
            .iter()
            .enumerate()
            .map(|(index, prize)| PrizeRun {
                id: prize.id.clone(),
                stock: prize.stock,
                won: won[index],
                days_lasted: ran_out_on[index]
                    .as_ref()
                    .map_or(plan.days, |(day, _)| *day),
                ran_out_on: ran_out_on[index].as_ref().map(|(_, date)| date.clone()),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::instant_wins::rules::Audience;
    use crate::resources::instant_wins::rules::Period;
    use crate::resources::instant_wins::rules::Prize;
    use crate::resources::instant_wins::rules::tests::reward_or_none as prize;

    fn daily(prizes: Vec<Prize>) -> InstantWin {
        InstantWin {
            audience: Audience::Loyalty,
            once: Period::Day,
            once_limit: 1,
            coupon: None,
            prizes,
            granted_plays: false,
        }
    }

    fn plan(days: usize, per_day: usize, customers: usize) -> Plan {
        Plan {
            start: "2026-11-23T10:00:00".parse().unwrap(), // a Monday
            days,
            per_day,
            customers,
            seed: 7,
        }
    }

    #[test]
    fn once_a_day_lets_each_customer_draw_once_and_the_stock_runs_out_on_a_named_day() {
        let game = daily(vec![prize("coffee", 0.1, 150), prize("none", 0.9, -1)]);
        // 100 Customers, 300 events a day: at most 100 draws a day.
        let always = &mut |_: usize, _: NaiveDateTime| Ok(());
        let run = rehearse(&game, &plan(30, 300, 100), always);
        for day in &run.each_day {
            assert!(day.draws <= 100, "{day:?}");
            assert_eq!(day.draws + day.over_once, 300, "{day:?}");
        }
        let coffee = &run.prizes[0];
        assert_eq!(coffee.won, 150, "never more than the stock");
        let ran_out = coffee
            .ran_out_on
            .as_deref()
            .expect("150 units at ~10 a day run out");
        assert_eq!(run.each_day[coffee.days_lasted].date, ran_out);
        assert!((10..=20).contains(&coffee.days_lasted), "{coffee:?}");
        assert_eq!(run.each_day.last().unwrap().stock_left, [0, -1]);
    }

    #[test]
    fn days_the_campaign_does_not_take_part_draw_nothing() {
        let game = daily(vec![prize("coffee", 0.5, -1), prize("none", 0.5, -1)]);
        let weekends = &mut |_: usize, at: NaiveDateTime| {
            use chrono::Datelike;
            match at.weekday() {
                chrono::Weekday::Sat | chrono::Weekday::Sun => Ok(()),
                day => Err(format!("runs only on saturday, sunday, and it is {day}")),
            }
        };
        let run = rehearse(&game, &plan(7, 50, 1000), weekends);
        let drawing: Vec<&str> = run
            .each_day
            .iter()
            .filter(|day| day.draws > 0)
            .map(|day| day.date.as_str())
            .collect();
        assert_eq!(drawing, ["2026-11-28", "2026-11-29"]);
        assert!(run.each_day[0].not_taking_part.is_some());
    }
}
