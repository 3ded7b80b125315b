//! What an operator sees of a Company's Instant Wins and games: each
//! prize's configured weight, its stock left, and how often it was drawn
//! and won in the draws of the last day; the last draws with their audit
//! records; wins per prize per hour; and the fairness simulator of
//! `loyalty campaigns draws` run on a campaign in force.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::fairness::{Simulation, simulate};
use crate::services::Services;

/// How far back the observed rates, the chart and the last draws look.
pub const WINDOW_HOURS: i64 = 24;

/// Most audit records read for the window (each holds an event's draws).
const MAX_RECORDS: usize = 20_000;

/// Last draws shown per campaign.
const LAST_DRAWS: usize = 20;

/// Most draws the simulator runs from the page.
pub const MAX_SIMULATED: usize = 1_000_000;

/// One prize of a campaign.
#[derive(Debug, Clone, Serialize)]
pub struct PrizeStanding {
    /// Its id in the campaign.
    pub id: String,
    /// Its name in the Company's default language.
    pub name: String,
    /// What it gives (`points`, `reward`, `game`, `nothing`).
    pub gives: &'static str,
    /// Its configured probability, in percent.
    pub weight_percent: f64,
    /// Units in total; `None` when unlimited.
    pub stock: Option<i64>,
    /// Units won so far.
    pub given: i64,
    /// Units left; `None` when unlimited.
    pub left: Option<i64>,
    /// Draws that fell on it in the window.
    pub drawn: usize,
    /// `drawn` in percent of the campaign's draws in the window: what its
    /// weight is compared with.
    pub drawn_percent: Option<f64>,
    /// Draws that won it in the window.
    pub won: usize,
    /// `won` in percent of the campaign's draws in the window.
    pub observed_percent: Option<f64>,
}

/// Wins of one prize in one hour of the window.
#[derive(Debug, Clone, Serialize)]
pub struct HourBar {
    /// The hour, `YYYY-MM-DDTHH`.
    pub hour: String,
    /// Wins of each prize in that hour, in the prizes' order.
    pub wins: Vec<usize>,
}

/// One Instant Win or game.
#[derive(Debug, Clone, Serialize)]
pub struct CampaignStanding {
    /// Its rule id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// `instant_win` or `game`.
    pub kind: &'static str,
    /// Its prizes, in file order.
    pub prizes: Vec<PrizeStanding>,
    /// Its draws in the window.
    pub draws: usize,
    /// Its last draws, newest first, each its audit record as stored.
    pub last_draws: Vec<Value>,
    /// Wins per prize per hour, oldest hour first (hours with a win only).
    pub hours: Vec<HourBar>,
    /// The largest number of wins in one hour (the chart's scale).
    pub busiest_hour: usize,
}

impl Services {
    /// The Instant Wins and games of `company` with their prizes' standing.
    pub async fn instant_win_overview(&self, company: &str) -> ApiResult<Vec<CampaignStanding>> {
        let stored = self.company(company).await?;
        let rules = self.catalog().company(company);
        let campaigns: Vec<(&Campaign, &InstantWin)> =
            rules.campaigns.iter().filter_map(drawn_campaign).collect();
        let ids: Vec<i64> = campaigns.iter().map(|(campaign, _)| campaign.id).collect();
        let given = self.store.prizes_given(company, &ids).await?;
        // Draw ids are made from the system clock (`common::ids`), so the
        // window is measured on it too, whatever clock the service runs on.
        let draws = self
            .store
            .draws_within(company, chrono::TimeDelta::hours(WINDOW_HOURS), MAX_RECORDS)
            .await?;
        Ok(campaigns
            .into_iter()
            .map(|(campaign, instant_win)| {
                let of_campaign: Vec<&Value> = draws
                    .iter()
                    .filter(|draw| draw["rule_id"].as_i64() == Some(campaign.id))
                    .collect();
                standing(
                    campaign,
                    instant_win,
                    &of_campaign,
                    &given,
                    &stored.default_language,
                )
            })
            .collect())
    }

    /// The fairness simulator of `loyalty campaigns draws` on campaign `id`
    /// of `company` as it is in force: `runs` draws from `seed`.
    pub fn simulate_draws(
        &self,
        company: &str,
        id: i64,
        runs: usize,
        seed: u64,
    ) -> ApiResult<Simulation> {
        if !(1..=MAX_SIMULATED).contains(&runs) {
            return Err(ApiError::invalid(format!(
                "simulate 1 to {MAX_SIMULATED} draws, not {runs}"
            )));
        }
        let rules = self.catalog().company(company);
        let instant_win = rules
            .campaigns
            .iter()
            .filter(|campaign| campaign.id == id)
            .find_map(drawn_campaign)
            .map(|(_, instant_win)| instant_win)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::InstantWinNotFound,
                    format!("no Instant Win or game {id} is in force"),
                )
            })?;
        Ok(simulate(&instant_win.prizes, runs, seed))
    }
}

fn drawn_campaign(campaign: &Campaign) -> Option<(&Campaign, &InstantWin)> {
    match &campaign.kind {
        CampaignKind::InstantWin(instant_win) | CampaignKind::Game(instant_win) => {
            Some((campaign, instant_win.as_ref()))
        }
        _ => None,
    }
}

fn standing(
    campaign: &Campaign,
    instant_win: &InstantWin,
    draws: &[&Value],
    given: &HashMap<(i64, String), i64>,
    language: &str,
) -> CampaignStanding {
    let index_of = |draw: &Value| draw["drawn_index"].as_i64().unwrap_or(-1);
    let percent =
        |count: usize| (!draws.is_empty()).then(|| count as f64 * 100.0 / draws.len() as f64);
    let won_index = |draw: &Value| {
        let won = draw["prize"]["prize_id"].as_str()?;
        instant_win.prizes.iter().position(|prize| prize.id == won)
    };
    let prizes = instant_win
        .prizes
        .iter()
        .enumerate()
        .map(|(index, prize)| {
            let units = given
                .get(&(campaign.id, prize.id.clone()))
                .copied()
                .unwrap_or(0);
            let won = draws.iter().filter(|d| won_index(d) == Some(index)).count();
            let drawn = draws.iter().filter(|d| index_of(d) == index as i64).count();
            PrizeStanding {
                id: prize.id.clone(),
                name: prize.name.resolve(language, "en"),
                gives: match prize.promotion_type.name() {
                    "" => "nothing",
                    name => name,
                },
                weight_percent: prize.weight * 100.0,
                stock: (prize.stock >= 0).then_some(prize.stock),
                given: units,
                left: prize.remaining(units),
                drawn,
                drawn_percent: percent(drawn),
                won,
                observed_percent: percent(won),
            }
        })
        .collect();
    let mut hours: Vec<HourBar> = Vec::new();
    for draw in draws.iter().rev() {
        let Some(index) = won_index(draw) else {
            continue;
        };
        let hour: String = draw["created_at"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(13)
            .collect();
        if hours.last().is_none_or(|bar| bar.hour != hour) {
            hours.push(HourBar {
                hour,
                wins: vec![0; instant_win.prizes.len()],
            });
        }
        if let Some(bar) = hours.last_mut() {
            bar.wins[index] += 1;
        }
    }
    let busiest_hour = hours
        .iter()
        .map(|bar| bar.wins.iter().sum::<usize>())
        .max()
        .unwrap_or(0);
    CampaignStanding {
        id: campaign.id,
        name: campaign.name.resolve(language, "en"),
        kind: campaign.kind.name(),
        prizes,
        draws: draws.len(),
        last_draws: draws
            .iter()
            .take(LAST_DRAWS)
            .map(|draw| (*draw).clone())
            .collect(),
        hours,
        busiest_hour,
    }
}
