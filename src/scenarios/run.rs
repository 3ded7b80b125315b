//! Running a scenario: a fresh service on an in-memory store with the
//! scenario's campaigns, seed and clock (which moves only on `advance`), its
//! Customers created, then each step sent over HTTP and its answer matched.
//! Event requests are explained, so a failure can say why each campaign did
//! or did not apply.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::instant_wins::rules::forced::ForcedPrize;
use crate::scenarios::customers::create_customers;
use crate::scenarios::format::Action;
use crate::scenarios::format::Scenario;
use crate::scenarios::harness::Harness;
use crate::scenarios::matching;
use crate::scenarios::redact::INLINE_PREFIX;
use crate::scenarios::redact::redact;
use crate::secrets::random_hex;

/// Why a step failed.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFailure {
    /// The step's line in its file.
    pub line: usize,
    /// The step's name.
    pub step: String,
    /// What differed: the status, or each JSON path of the answer that
    /// does not match the expectation, with what was found there.
    pub differences: Vec<String>,
    /// The expected body, when one was stated.
    pub expected: Option<Value>,
    /// The answer's status and body.
    pub actual: (u16, Value),
    /// For events: why each campaign applied or not.
    pub explanations: Option<Value>,
}

impl StepFailure {
    /// Every difference on one line.
    pub fn problem(&self) -> String {
        self.differences.join("; ")
    }

    /// What an author reads under the failed step: each difference on its
    /// own line, the answer itself only when its status was not the one
    /// expected, then one line per campaign of an event saying whether it
    /// applied and why not.
    pub fn details(&self) -> String {
        let mut lines: Vec<String> = self
            .differences
            .iter()
            .map(|difference| format!("  {difference}"))
            .collect();
        if self
            .differences
            .iter()
            .any(|d| d.starts_with("the status is"))
        {
            let body = self.actual.1.to_string();
            let cut: String = body.chars().take(600).collect();
            let more = if cut.len() < body.len() { "…" } else { "" };
            lines.push(format!("  the answer: {} {cut}{more}", self.actual.0));
        }
        let campaigns = self.explanations.as_ref().and_then(Value::as_array);
        if let Some(campaigns) = campaigns.filter(|c| !c.is_empty()) {
            lines.push("  campaigns:".into());
            for campaign in campaigns {
                let rule = &campaign["rule_id"];
                lines.push(match campaign["reason"].as_str() {
                    _ if campaign["applied"] == Value::Bool(true) => format!("    {rule} applied"),
                    Some(reason) => format!("    {rule} did not apply: {reason}"),
                    None => format!("    {rule} did not apply"),
                });
            }
        }
        lines.join("\n")
    }
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
        None => run_steps(scenario, &harness, root).await,
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

/// Creates the scenario's Customers, then sends each step; `campaigns` is
/// the folder the campaigns were read from.
async fn run_steps(
    scenario: &Scenario,
    harness: &Harness,
    campaigns: &Path,
) -> ApiResult<ScenarioReport> {
    // Inline campaigns' temporary folder is `{{inline}}` instead.
    let campaigns = match scenario.campaigns {
        Some(_) => String::new(),
        None => campaigns.display().to_string(),
    };
    let campaigns = campaigns.trim_end_matches('/');
    let mut report = ScenarioReport {
        file: scenario.file.clone(),
        name: scenario.name.clone(),
        passed: 0,
        failure: None,
        answers: Vec::new(),
    };
    let mut ids = match create_customers(scenario, harness).await? {
        Ok(ids) => ids,
        Err(failure) => {
            report.failure = Some(failure);
            return Ok(report);
        }
    };
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
                let mut differences = if got != *status {
                    vec![format!("the status is {got}, not {status}")]
                } else {
                    expected
                        .as_ref()
                        .map(|e| matching::differences(e, &answer))
                        .unwrap_or_default()
                };
                if differences.is_empty() {
                    differences.extend(save_values(save, &answer, &mut ids).err());
                }
                // Redacted after saving, so a saved code reads as its name.
                report
                    .answers
                    .push((name.clone(), got, redact(&answer, &ids, campaigns)));
                if !differences.is_empty() {
                    report.failure = Some(StepFailure {
                        line: step.line,
                        step: name.clone(),
                        differences,
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
