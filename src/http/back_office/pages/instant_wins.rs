//! A Company's Instant Wins and games: prizes with weight, stock left and
//! observed rates, the last draws with their audit records, a chart of wins
//! per prize per hour, and the fairness simulator run from a form.

use minijinja::context;
use poem::http::StatusCode;
use poem::web::{Data, Form, Path};
use poem::{Request, Response, handler};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::http::back_office::pages::company_page::CompanyPage;
use crate::http::back_office::pages::render::Pages;
use crate::resources::instant_wins::overview::{CampaignStanding, MAX_SIMULATED, WINDOW_HOURS};
use crate::services::Services;

/// The chart's size, in SVG units.
const CHART_WIDTH: f64 = 720.0;
const CHART_HEIGHT: f64 = 120.0;

/// `GET /companies/{slug}/instant_wins`.
#[handler]
pub async fn show(request: &Request, page: CompanyPage<'_>) -> Response {
    render(request, page.services, page.pages, &page.slug, None).await
}

/// The simulator's form.
#[derive(Debug, Deserialize)]
pub struct SimulateForm {
    #[serde(default)]
    runs: String,
    #[serde(default)]
    seed: String,
}

/// `POST /companies/{slug}/instant_wins/{id}/simulate`: the page with the
/// simulator's result for campaign `id`.
#[handler]
pub async fn simulate(
    request: &Request,
    Path((slug, id)): Path<(String, i64)>,
    Data(services): Data<&Services>,
    Data(pages): Data<&Pages>,
    Form(form): Form<SimulateForm>,
) -> Response {
    let runs = form.runs.trim().parse::<usize>().map_err(|_| {
        ApiError::invalid(format!(
            "draws to simulate: a whole number from 1 to {MAX_SIMULATED}, not `{}`",
            form.runs
        ))
    });
    let seed = match form.seed.trim() {
        "" => Ok(rand::random::<u64>() >> 12),
        text => text
            .parse::<u64>()
            .map_err(|_| ApiError::invalid(format!("the seed is a whole number, not `{text}`"))),
    };
    let simulated = match (runs, seed) {
        (Ok(runs), Ok(seed)) => {
            // Up to a million draws: off the listener's threads.
            let worker = services.clone();
            let company = slug.clone();
            tokio::task::spawn_blocking(move || worker.simulate_draws(&company, id, runs, seed))
                .await
                .unwrap_or_else(|e| Err(ApiError::internal(e)))
        }
        (Err(error), _) | (_, Err(error)) => Err(error),
    };
    let outcome = match simulated {
        Ok(simulation) => Simulated {
            id,
            simulation: Some(simulation),
            problem: None,
        },
        Err(error) => Simulated {
            id,
            simulation: None,
            problem: Some(format!("{} ({})", error.message, error.code.code())),
        },
    };
    render(request, services, pages, &slug, Some(outcome)).await
}

/// A simulation run from the page, shown under its campaign.
#[derive(Debug, Serialize)]
struct Simulated {
    id: i64,
    simulation: Option<crate::resources::instant_wins::rules::fairness::Simulation>,
    problem: Option<String>,
}

/// One bar segment of a chart.
#[derive(Debug, Serialize)]
struct Rect {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    prize: usize,
    title: String,
}

async fn render(
    request: &Request,
    services: &Services,
    pages: &Pages,
    slug: &str,
    simulated: Option<Simulated>,
) -> Response {
    match services.instant_win_overview(slug).await {
        Ok(campaigns) => {
            let charts: Vec<Vec<Rect>> = campaigns.iter().map(chart).collect();
            pages.render(
                request,
                StatusCode::OK,
                "instant_wins.html",
                context! {
                    slug, campaigns, charts, simulated,
                    window_hours => WINDOW_HOURS,
                    max_simulated => MAX_SIMULATED,
                    chart_width => CHART_WIDTH,
                    chart_height => CHART_HEIGHT,
                },
            )
        }
        Err(error) => pages.error(request, &error),
    }
}

/// Wins per prize per hour as stacked bars, one per hour with a win.
fn chart(campaign: &CampaignStanding) -> Vec<Rect> {
    // One slot per hour of the window, so a lone hour is a bar, not a wall.
    let bars = campaign.hours.len().max(WINDOW_HOURS as usize) as f64;
    let width = CHART_WIDTH / bars;
    let scale = CHART_HEIGHT / campaign.busiest_hour.max(1) as f64;
    let mut rects = Vec::new();
    for (position, bar) in campaign.hours.iter().enumerate() {
        let mut top = CHART_HEIGHT;
        for (prize, &wins) in bar.wins.iter().enumerate().filter(|(_, wins)| **wins > 0) {
            let height = wins as f64 * scale;
            top -= height;
            rects.push(Rect {
                x: position as f64 * width + 1.0,
                y: top,
                width: (width - 2.0).max(1.0),
                height,
                prize,
                title: format!(
                    "{}:00 UTC: {} × {}",
                    bar.hour,
                    wins,
                    campaign.prizes.get(prize).map_or("", |p| p.name.as_str())
                ),
            });
        }
    }
    rects
}
