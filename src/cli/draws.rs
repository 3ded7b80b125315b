//! `loyalty campaigns draws`: an Instant Win's draws before launch. By
//! default many draws, taking stock, against the configured frequencies with
//! a chi-square verdict; `--fairness`, the draw alone (stock unlimited);
//! `--per-day N`, a rehearsal of its days: `once`, the days the campaign
//! takes part (asked of the real service with an event file), its stock.

use std::path::Path;

use crate::cli::explain::{ExplainRequest, ExplainedEvent, explanation_of};
use crate::cli::print_json;
use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::config::DrawsArgs;
use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::fairness;
use crate::resources::instant_wins::rules::fairness::Simulation;
use crate::resources::instant_wins::rules::rehearsal::{Plan, Rehearsal, rehearse};

/// Most draws or events one run simulates.
const MOST_DRAWS: usize = 100_000_000;

/// Runs `loyalty campaigns draws` as `args` say.
pub(crate) async fn draws(args: DrawsArgs) -> ApiResult<()> {
    let campaign = read_campaign(&args.file)?;
    let (CampaignKind::InstantWin(instant_win) | CampaignKind::Game(instant_win)) = &campaign.kind
    else {
        return Err(ApiError::invalid(format!(
            "{} is a {} campaign, not an instant_win or a game",
            args.file.display(),
            campaign.kind.name()
        )));
    };
    match args.per_day {
        Some(per_day) => rehearse_days(&args, &campaign, instant_win, per_day).await,
        None => simulate_draws(&args, &campaign, instant_win),
    }
}

/// The campaign file `file`, every problem printed when it does not compile.
fn read_campaign(file: &Path) -> ApiResult<Campaign> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", file.display())))?;
    let engine = crate::engine::script::ScriptEngine::new();
    Campaign::parse(&engine, file, &text).map_err(|errors| {
        for error in &errors {
            eprintln!("{error}");
        }
        ApiError::invalid(format!(
            "{} has {} problem(s)",
            file.display(),
            errors.len()
        ))
    })
}

/// `--runs` draws, taking stock (or not, with `--fairness`).
fn simulate_draws(
    args: &DrawsArgs,
    campaign: &Campaign,
    instant_win: &InstantWin,
) -> ApiResult<()> {
    if args.runs == 0 || args.runs > MOST_DRAWS {
        return Err(ApiError::invalid(format!(
            "--runs is from 1 to {MOST_DRAWS}"
        )));
    }
    let simulation = if args.fairness {
        fairness::simulate_fairness(&instant_win.prizes, args.runs, args.seed)
    } else {
        fairness::simulate(&instant_win.prizes, args.runs, args.seed)
    };
    if args.json {
        return print_json(&simulation);
    }
    print_simulation(campaign, &simulation, args.fairness);
    Ok(())
}

fn print_simulation(campaign: &Campaign, simulation: &Simulation, fairness_only: bool) {
    println!(
        "{} draws of campaign {} (seed {}){}:\n",
        simulation.runs,
        campaign.id,
        simulation.seed,
        if fairness_only {
            ", every stock taken as unlimited"
        } else {
            ""
        }
    );
    println!(
        "{:<16} {:>8} {:>10} {:>8} {:>8} {:>8}  RAN OUT AT DRAW",
        "PRIZE", "WEIGHT", "OBSERVED", "DRAWN", "WON", "STOCK"
    );
    for prize in &simulation.prizes {
        println!(
            "{:<16} {:>8.4} {:>10.4} {:>8} {:>8} {:>8}  {}",
            prize.id,
            prize.weight,
            prize.drawn as f64 / simulation.runs as f64,
            prize.drawn,
            prize.won,
            prize.stock,
            prize
                .ran_out_at
                .map_or("-".to_string(), |at| at.to_string())
        );
    }
    if simulation.nothing > 0 {
        println!(
            "{:<16} {:>8} {:>10.4} {:>8}",
            "(removed)",
            "",
            simulation.nothing as f64 / simulation.runs as f64,
            simulation.nothing
        );
    }
    println!(
        "\nchi-square over the {} draws before any prize ran out: {:.2} with {} degrees of freedom (critical value {:.2} at significance {}): {}",
        simulation.tested_runs,
        simulation.chi_square,
        simulation.degrees_of_freedom,
        simulation.critical_value,
        fairness::SIGNIFICANCE,
        if simulation.consistent {
            "consistent with the weights"
        } else {
            "NOT consistent with the weights"
        }
    );
}

/// `--per-day` events a day for `--days` days.
async fn rehearse_days(
    args: &DrawsArgs,
    campaign: &Campaign,
    instant_win: &InstantWin,
    per_day: usize,
) -> ApiResult<()> {
    let events = per_day.saturating_mul(args.days);
    if per_day == 0 || args.days == 0 || events > MOST_DRAWS {
        return Err(ApiError::invalid(format!(
            "--per-day and --days are 1 or more, at most {MOST_DRAWS} events in all"
        )));
    }
    let locale = match &args.time_zone {
        Some(zone) => Locale {
            time_zone: zone.parse().map_err(|_| {
                ApiError::invalid(format!("--time-zone `{zone}` is not an IANA time zone"))
            })?,
            ..Locale::default()
        },
        None => Locale::default(),
    };
    let start = match &args.at {
        Some(at) => at
            .parse::<Timestamp>()
            .map_err(|_| ApiError::invalid(format!("--at `{at}` is not a DateTime")))?,
        None => Timestamp::now(),
    };
    // Whether the campaign takes part each day, as the service answers.
    let mut verdicts = Vec::with_capacity(args.days);
    for day in 0..args.days {
        let at = Timestamp::from(start.as_datetime() + chrono::Duration::days(day as i64));
        verdicts.push(takes_part_on(args, at).await?);
    }
    let plan = Plan {
        start: locale.wall_clock(start.as_datetime()),
        days: args.days,
        per_day,
        customers: args.customers.unwrap_or(per_day),
        seed: args.seed,
    };
    let rehearsal = rehearse(instant_win, &plan, &mut |day, _| verdicts[day].clone());
    if args.json {
        return print_json(&rehearsal);
    }
    print_rehearsal(campaign, instant_win, &rehearsal, args.has_event());
    Ok(())
}

impl DrawsArgs {
    /// The event each rehearsed day is asked about, when one is given.
    fn event(&self) -> Option<ExplainedEvent> {
        match (&self.cart, &self.custom_event, &self.trigger) {
            (Some(cart), ..) => Some(ExplainedEvent::Cart(cart.clone())),
            (_, Some(event), _) => Some(ExplainedEvent::CustomEvent(event.clone())),
            (.., Some(trigger)) => Some(ExplainedEvent::Trigger(trigger.clone())),
            _ => None,
        }
    }

    fn has_event(&self) -> bool {
        self.event().is_some()
    }
}

/// Whether the campaign takes part in the event of `args` at `at`, as the
/// real service answers (`campaigns explain`); every day does without an
/// event.
async fn takes_part_on(args: &DrawsArgs, at: Timestamp) -> ApiResult<Result<(), String>> {
    let Some(event) = args.event() else {
        return Ok(Ok(()));
    };
    let request = ExplainRequest {
        file: args.file.clone(),
        campaigns: args.campaigns.clone(),
        event,
        customer: args.customer.clone(),
        at: Some(at.to_string()),
        time_zone: args.time_zone.clone(),
        currency: None,
        json: true,
    };
    let (explanation, _) = explanation_of(&request).await?;
    if explanation["applied"] == serde_json::Value::Bool(true) {
        return Ok(Ok(()));
    }
    Ok(Err(explanation["reason"]
        .as_str()
        .unwrap_or("it does not take part")
        .to_string()))
}

fn print_rehearsal(
    campaign: &Campaign,
    instant_win: &InstantWin,
    rehearsal: &Rehearsal,
    asked_the_service: bool,
) {
    println!(
        "campaign {}: {} days of {} events a day from {} Customers, at most {} draw(s) each per {} (seed {}){}\n",
        campaign.id,
        rehearsal.days,
        rehearsal.per_day,
        rehearsal.customers,
        instant_win.once_limit,
        instant_win.once.name(),
        rehearsal.seed,
        if asked_the_service {
            "; the days it takes part as the service answers for the event given"
        } else {
            "; every day taking part (give --cart, --custom-event or --trigger to ask the service)"
        }
    );
    let ids: Vec<&str> = rehearsal.prizes.iter().map(|p| p.id.as_str()).collect();
    println!(
        "{:<11} {:>7} {:>9}  WON ({})  STOCK LEFT",
        "DAY",
        "DRAWS",
        "OVER ONCE",
        ids.join(", ")
    );
    for day in &rehearsal.each_day {
        match &day.not_taking_part {
            Some(why) => println!("{:<11} does not take part: {why}", day.date),
            None => println!(
                "{:<11} {:>7} {:>9}  {:?}  {:?}",
                day.date, day.draws, day.over_once, day.won, day.stock_left
            ),
        }
    }
    println!();
    for prize in &rehearsal.prizes {
        match (&prize.ran_out_on, prize.stock) {
            (_, -1) => println!("{}: unlimited, {} won", prize.id, prize.won),
            (Some(date), stock) => println!(
                "{}: its {stock} units last {} full day(s): the last is won on {date}",
                prize.id, prize.days_lasted
            ),
            (None, stock) => println!(
                "{}: {} of {stock} won in {} days; {} left",
                prize.id,
                prize.won,
                rehearsal.days,
                stock - prize.won as i64
            ),
        }
    }
}
