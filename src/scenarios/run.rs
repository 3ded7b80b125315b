//! Running a scenario: a fresh service on an in-memory store with the
//! scenario's campaigns, seed and clock (which moves only on `advance`), its
//! Customers created, then each step sent over HTTP and its answer matched.
//! Event requests are explained, so a failure can say why each campaign did
//! or did not apply.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::clock::Clock;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::model::Environment;
use crate::resources::companies::service::LocaleChange;
use crate::resources::companies::service::NewCompany;
use crate::resources::instant_wins::rules::forced::ForcedPrize;
use crate::scenarios::format::Action;
use crate::scenarios::format::Scenario;
use crate::scenarios::matching::mismatch;
use crate::scenarios::redact::INLINE_PREFIX;
use crate::scenarios::redact::redact;
use crate::secrets::random_hex;
use crate::server;
use crate::server::RunningServer;
use crate::server::ServerSettings;

/// Why a step failed.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFailure {
    /// The step's line in its file.
    pub line: usize,
    /// The step's name.
    pub step: String,
    /// What differed.
    pub problem: String,
    /// The expected body, when one was stated.
    pub expected: Option<Value>,
    /// The answer's status and body.
    pub actual: (u16, Value),
    /// For events: why each campaign applied or not.
    pub explanations: Option<Value>,
}

/// The outcome of one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioReport {
    /// Its file.
    pub file: PathBuf,
    /// Its name.
    pub name: String,
    /// Steps that passed.
    pub passed: usize,
    /// The first failure, if any (steps after it do not run).
    pub failure: Option<StepFailure>,
    /// Every request step's answer (status and body, volatile values
    /// redacted), for snapshots.
    pub answers: Vec<(String, u16, Value)>,
}

/// The event endpoints: they are explained.
fn is_event(method: &str, path: &str) -> bool {
    method == "POST"
        && [
            "/carts/realtime",
            "/carts/simulate",
            "/custom_events",
            "/trigger",
        ]
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}?")))
}

/// `value` with every `{{name}}` replaced by that Customer's id.
fn substitute(value: &Value, ids: &BTreeMap<String, String>) -> Value {
    match value {
        Value::String(text) => Value::String(substitute_text(text, ids)),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, ids)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute(v, ids)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn substitute_text(text: &str, ids: &BTreeMap<String, String>) -> String {
    let mut text = text.to_string();
    for (name, id) in ids {
        text = text.replace(&format!("{{{{{name}}}}}"), id);
    }
    text
}

/// Keeps each field of `answer` that `save` names (placeholder → dotted
/// field) for later steps; why not, when one is not a text or number.
fn save_values(
    save: &BTreeMap<String, String>,
    answer: &Value,
    ids: &mut BTreeMap<String, String>,
) -> Result<(), String> {
    for (name, field) in save {
        let pointer = format!("/{}", field.replace('.', "/"));
        let value = match answer.pointer(&pointer) {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Number(number)) => number.to_string(),
            _ => return Err(format!("the answer has no `{field}` to save as `{name}`")),
        };
        ids.insert(name.clone(), value);
    }
    Ok(())
}

/// A started service, its clock and a key of the scenario's Company.
struct Harness {
    running: RunningServer,
    clock: std::sync::Arc<Clock>,
    key: CreatedApiKey,
    http: reqwest::Client,
}

impl Harness {
    async fn start(scenario: &Scenario, campaigns: &Path) -> ApiResult<Harness> {
        let mut settings = ServerSettings::for_store("mem://", &random_hex(16));
        settings.campaigns = campaigns.to_path_buf();
        settings.draw_seed = Some(scenario.seed);
        let clock = std::sync::Arc::new(Clock::manual(scenario.clock));
        settings.clock = clock.clone();
        // Prizes are delivered before each step instead, so reads are deterministic.
        settings.deliver_prizes = false;
        let running = server::start(settings).await?;
        let services = &running.services;
        let key = if scenario.company == "demo" {
            running
                .bootstrap
                .as_ref()
                .map(|b| b.key.clone())
                .ok_or_else(|| ApiError::internal("the demo Company was not bootstrapped"))?
        } else {
            services
                .create_company(NewCompany {
                    slug: scenario.company.clone(),
                    environment: Environment::Sandbox,
                    language: None,
                    languages: Vec::new(),
                    rate_limits: None,
                    currency: None,
                    minor_units: None,
                    time_zone: None,
                })
                .await?;
            services
                .create_key(NewKey {
                    company: scenario.company.clone(),
                    description: "scenario".into(),
                    enabled: true,
                })
                .await?
        };
        let unlimited = crate::resources::companies::model::RateLimits {
            critical: 100_000,
            moderate: 100_000,
            low: 100_000,
        };
        services
            .set_rate_limits(&scenario.company, unlimited)
            .await?;
        if scenario.time_zone.is_some() || scenario.currency.is_some() {
            services
                .set_locale(
                    &scenario.company,
                    LocaleChange {
                        currency: scenario.currency.clone(),
                        minor_units: None,
                        time_zone: scenario.time_zone.clone(),
                    },
                )
                .await?;
        }
        Ok(Harness {
            running,
            clock,
            key,
            http: reqwest::Client::new(),
        })
    }

    async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        headers: &BTreeMap<String, String>,
    ) -> ApiResult<(u16, Value)> {
        let url = format!("http://{}{path}", self.running.api_addr);
        let method = reqwest::Method::from_bytes(method.as_bytes()).map_err(ApiError::internal)?;
        let mut request = self
            .http
            .request(method, url)
            .header("X-Api-Key", &self.key.key.key)
            .header("X-Api-Secret", &self.key.secret)
            .header("X-Api-Version", "1");
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(ApiError::internal)?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(ApiError::internal)?;
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok((status, body))
    }
}

/// Runs `scenario` against the campaigns under `campaigns` (or its inline ones).
pub async fn run_scenario(scenario: &Scenario, campaigns: &Path) -> ApiResult<ScenarioReport> {
    let inline = match &scenario.campaigns {
        Some(files) => Some(write_inline(&scenario.company, files)?),
        None => None,
    };
    let root = inline.as_deref().unwrap_or(campaigns);
    let harness = Harness::start(scenario, root).await?;
    let outcome = match harness
        .running
        .services
        .catalog()
        .problems(&scenario.company)
    {
        Some(errors) => Err(ApiError::invalid(format!(
            "{}: the campaigns do not load: {}",
            scenario.file.display(),
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        ))),
        None => run_steps(scenario, &harness).await,
    };
    harness.running.shutdown().await?;
    if let Some(dir) = inline {
        let _ = std::fs::remove_dir_all(dir);
    }
    outcome
}

/// Forces the next draw of Instant Win or game `rule` of `company` to give
/// `prize`; why not, when the campaign or the prize does not exist.
fn force_draw(
    services: &crate::services::Services,
    company: &str,
    rule: i64,
    prize: &ForcedPrize,
) -> Result<(), String> {
    use crate::engine::kinds::CampaignKind;
    let rules = services.catalog().company(company);
    let instant_win = rules
        .campaigns
        .iter()
        .find(|campaign| campaign.id == rule)
        .and_then(|campaign| match &campaign.kind {
            CampaignKind::InstantWin(instant_win) | CampaignKind::Game(instant_win) => {
                Some(instant_win)
            }
            _ => None,
        })
        .ok_or_else(|| format!("force_draw: campaign {rule} is not an Instant Win or a game"))?;
    if let ForcedPrize::Prize(id) = prize
        && !instant_win.prizes.iter().any(|p| p.id == *id)
    {
        let ids: Vec<&str> = instant_win.prizes.iter().map(|p| p.id.as_str()).collect();
        return Err(format!(
            "force_draw: campaign {rule} has no prize `{id}` (it has {})",
            ids.join(", ")
        ));
    }
    services.force_draw(company, rule, prize.clone());
    Ok(())
}

/// Writes inline campaign files into a new temporary campaigns folder.
fn write_inline(company: &str, files: &BTreeMap<String, Value>) -> ApiResult<PathBuf> {
    let root = std::env::temp_dir().join(format!("{INLINE_PREFIX}{}", random_hex(8)));
    let dir = root.join(company);
    std::fs::create_dir_all(&dir).map_err(ApiError::internal)?;
    for (name, content) in files {
        if name.contains('/') || name.contains("..") || !name.ends_with(".yaml") {
            return Err(ApiError::invalid(format!(
                "inline campaign file `{name}` must be a plain name ending in .yaml"
            )));
        }
        let text = serde_yaml::to_string(content).map_err(ApiError::internal)?;
        std::fs::write(dir.join(name), text).map_err(ApiError::internal)?;
    }
    Ok(root)
}

async fn run_steps(scenario: &Scenario, harness: &Harness) -> ApiResult<ScenarioReport> {
    let mut report = ScenarioReport {
        file: scenario.file.clone(),
        name: scenario.name.clone(),
        passed: 0,
        failure: None,
        answers: Vec::new(),
    };
    let mut ids = BTreeMap::new();
    for (name, body) in &scenario.customers {
        let mut body = body.clone();
        let starting: Vec<(&str, Value)> = ["points", "wallet"]
            .into_iter()
            .filter_map(|kind| Some((kind, body.as_object_mut()?.remove(kind)?)))
            .collect();
        let (status, created) = harness
            .send("POST", "/customers", Some(&body), &BTreeMap::new())
            .await?;
        match created["id"].as_str() {
            Some(id) if status == 200 => {
                ids.insert(name.clone(), id.to_string());
                for (kind, points) in starting {
                    let credit = serde_json::json!({"customer_id": id, "points": points, "kind": kind, "description": "scenario start"});
                    let (status, answer) = harness
                        .send("POST", "/scores/trigger", Some(&credit), &BTreeMap::new())
                        .await?;
                    if status != 200 {
                        return Err(ApiError::invalid(format!(
                            "{}: Customer {name} cannot start with {points} {kind}: {answer}",
                            scenario.file.display()
                        )));
                    }
                }
            }
            _ => {
                report.failure = Some(StepFailure {
                    line: 0,
                    step: format!("create Customer {name}"),
                    problem: format!("the Customer was not created ({status})"),
                    expected: None,
                    actual: (status, created),
                    explanations: None,
                });
                return Ok(report);
            }
        }
    }
    for step in &scenario.steps {
        let services = &harness.running.services;
        services.deliver_pending_prizes().await?;
        match &step.action {
            Action::Advance(seconds) => harness.clock.advance(*seconds),
            Action::ExpirePoints => {
                services.expire_points(services.now()).await?;
            }
            Action::AssignInstantWin { rule, customers } => {
                let mut chosen = Vec::new();
                for name in customers {
                    match ids.get(name) {
                        Some(id) => chosen.push(id.clone()),
                        None => {
                            return Err(ApiError::invalid(format!(
                                "{}:{}: no Customer `{name}` in the scenario",
                                scenario.file.display(),
                                step.line
                            )));
                        }
                    }
                }
                services
                    .assign_instant_win(&scenario.company, *rule, &chosen)
                    .await?;
            }
            Action::ForceDraw { rule, prize } => {
                force_draw(services, &scenario.company, *rule, prize).map_err(|problem| {
                    ApiError::invalid(format!(
                        "{}:{}: {problem}",
                        scenario.file.display(),
                        step.line
                    ))
                })?;
            }
            Action::Request {
                name,
                method,
                path,
                body,
                headers,
                status,
                expect,
                save,
            } => {
                let mut path = substitute_text(path, &ids);
                let body = body.as_ref().map(|b| substitute(b, &ids));
                let event = is_event(method, &path);
                if event {
                    path.push_str(if path.contains('?') { "&" } else { "?" });
                    path.push_str("explain=true");
                }
                let (got, mut answer) = harness.send(method, &path, body.as_ref(), headers).await?;
                let explanations = answer.as_object_mut().and_then(|a| {
                    let wanted = scenario.keep_explanations
                        || expect
                            .as_ref()
                            .is_some_and(|e| e.get("explanations").is_some());
                    if wanted {
                        a.get("explanations").cloned()
                    } else {
                        a.remove("explanations")
                    }
                });
                let expected = expect.as_ref().map(|e| substitute(e, &ids));
                let problem = if got != *status {
                    Some(format!("the status is {got}, not {status}"))
                } else {
                    expected
                        .as_ref()
                        .and_then(|e| mismatch(e, &answer))
                        .or_else(|| save_values(save, &answer, &mut ids).err())
                };
                // Redacted after saving, so a saved code reads as its name.
                report
                    .answers
                    .push((name.clone(), got, redact(&answer, &ids)));
                if let Some(problem) = problem {
                    report.failure = Some(StepFailure {
                        line: step.line,
                        step: name.clone(),
                        problem,
                        expected,
                        actual: (got, answer),
                        explanations: explanations.filter(|_| event),
                    });
                    break;
                }
            }
        }
        report.passed += 1;
    }
    Ok(report)
}
