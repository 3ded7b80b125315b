//! `loyalty campaigns explain`: why one campaign file applies to a cart (or
//! a Custom Event, or a trigger) or not, answered offline by the real
//! service on an in-memory store, exactly as `?explain=true` answers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::cli::back_office_client::BackOffice;
use crate::cli::print_json;
use crate::common::time::Timestamp;
use crate::config::BackOfficeArgs;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::scenarios::format::{Action, Scenario, Step};
use crate::scenarios::run::run_scenario;

/// What to explain the campaign against.
#[derive(Debug, Clone)]
pub struct ExplainRequest {
    /// The campaign file.
    pub file: PathBuf,
    /// The campaigns root the file's Company directory is in.
    pub campaigns: PathBuf,
    /// The event: a cart, or a Custom Event or trigger (`{type, data}`).
    pub event: ExplainedEvent,
    /// The Customer (the body of POST /customers, plus `points`, `wallet`,
    /// `purchases` and `tier`, as a scenario's Customers).
    pub customer: Option<PathBuf>,
    /// When the event happens (default: now).
    pub at: Option<String>,
    /// The Company's time zone (default UTC).
    pub time_zone: Option<String>,
    /// The Company's currency (default EUR).
    pub currency: Option<String>,
    /// Print one JSON object instead of text.
    pub json: bool,
}

/// The event an explanation is about, as a JSON file.
#[derive(Debug, Clone)]
pub enum ExplainedEvent {
    /// A cart: the body of POST /carts/simulate.
    Cart(PathBuf),
    /// A Custom Event: the body of POST /custom_events.
    CustomEvent(PathBuf),
    /// A trigger: the body of POST /trigger.
    Trigger(PathBuf),
}

/// Reads a JSON (or YAML) file.
fn read_json(path: &Path) -> ApiResult<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", path.display())))?;
    serde_yaml::from_str(&text)
        .map_err(|e| ApiError::invalid(format!("{} is not JSON or YAML: {e}", path.display())))
}

/// The Company whose directory under `campaigns` holds `file`.
pub(crate) fn company_of(file: &Path, campaigns: &Path) -> ApiResult<String> {
    let absolute = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let relative = absolute(file)
        .strip_prefix(absolute(campaigns))
        .map(Path::to_path_buf)
        .map_err(|_| {
            ApiError::invalid(format!(
                "{} is not under the campaigns directory {} (set --campaigns)",
                file.display(),
                campaigns.display()
            ))
        })?;
    match relative.components().next() {
        Some(company) if relative.components().count() > 1 => {
            Ok(company.as_os_str().to_string_lossy().to_string())
        }
        _ => Err(ApiError::invalid(format!(
            "{} is not inside a Company's directory of {}",
            file.display(),
            campaigns.display()
        ))),
    }
}

/// The time zone and currency of the Company of `file`: those given, else
/// the Company's on a server answering at the back office's URL, else
/// none (UTC and EUR), said on the standard error.
pub(crate) async fn company_locale(
    file: &Path,
    campaigns: &Path,
    time_zone: Option<String>,
    currency: Option<String>,
    back_office: &BackOfficeArgs,
) -> ApiResult<(Option<String>, Option<String>)> {
    if time_zone.is_some() && currency.is_some() {
        return Ok((time_zone, currency));
    }
    let slug = company_of(file, campaigns)?;
    let Some(office) = BackOffice::connect_if_running(back_office).await? else {
        if time_zone.is_none() {
            eprintln!(
                "note: no server answers at {} and no --time-zone is given: the Company's time is taken as UTC",
                back_office.admin_url
            );
        }
        return Ok((time_zone, currency));
    };
    let company = office
        .companies()
        .await?
        .into_iter()
        .find(|company| company.slug == slug);
    Ok(match company {
        Some(company) => (
            time_zone.or(Some(company.time_zone)),
            currency.or(Some(company.currency)),
        ),
        None => (time_zone, currency),
    })
}

/// Runs the explanation and prints it.
pub(crate) async fn explain_campaign(request: ExplainRequest) -> ApiResult<()> {
    let (explanation, effects) = explanation_of(&request).await?;
    if request.json {
        return print_json(&json!({"explanation": explanation, "effects": effects}));
    }
    let id = explanation["rule_id"].as_i64().unwrap_or_default();
    print!("{}", describe(id, &explanation, &effects));
    Ok(())
}

/// The explanation of the campaign of `request.file` for its event, and
/// the effects it gave, as the API answers them.
pub async fn explanation_of(request: &ExplainRequest) -> ApiResult<(Value, Vec<Value>)> {
    let company = company_of(&request.file, &request.campaigns)?;
    let text = std::fs::read_to_string(&request.file)
        .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", request.file.display())))?;
    let id = serde_yaml::from_str::<Value>(&text)
        .ok()
        .and_then(|value| value.get("id").and_then(Value::as_i64))
        .ok_or_else(|| ApiError::invalid(format!("{} has no `id`", request.file.display())))?;
    let (path, file) = match &request.event {
        // Event steps are explained.
        ExplainedEvent::Cart(file) => ("/carts/simulate", file),
        ExplainedEvent::CustomEvent(file) => ("/custom_events", file),
        ExplainedEvent::Trigger(file) => ("/trigger", file),
    };
    let mut body = read_json(file)?;
    if let Some(object) = body.as_object_mut() {
        object.remove("customer_code");
        object.insert("customer_id".into(), json!("{{customer}}"));
    }
    let customer = match &request.customer {
        Some(path) => read_json(path)?,
        None => json!({"code": "explained", "enroll": true}),
    };
    let clock = match &request.at {
        Some(at) => at
            .parse::<Timestamp>()
            .map_err(|_| ApiError::invalid(format!("--at `{at}` is not a DateTime")))?,
        None => Timestamp::from(chrono::Utc::now()),
    };
    let scenario = Scenario {
        file: request.file.clone(),
        name: format!("explain {}", request.file.display()),
        company,
        clock,
        seed: 1,
        time_zone: request.time_zone.clone(),
        currency: request.currency.clone(),
        customers: BTreeMap::from([("customer".to_string(), customer)]),
        campaigns: None,
        keep_explanations: true,
        steps: vec![Step {
            line: 0,
            action: Action::Request {
                name: "the event".into(),
                method: "POST".into(),
                path: path.into(),
                body: Some(body),
                headers: BTreeMap::new(),
                status: 200,
                expect: None,
                save: BTreeMap::new(),
            },
        }],
    };
    let report = run_scenario(&scenario, &request.campaigns).await?;
    if let Some(failure) = report.failure {
        return Err(ApiError::invalid(format!(
            "the service refused the event ({}): {}",
            failure.actual.0, failure.actual.1
        )));
    }
    let mut answer = report
        .answers
        .into_iter()
        .next()
        .map(|(_, _, body)| body)
        .unwrap_or_default();
    // The answer was written for snapshots; an author reads the real paths.
    restore_campaigns_folder(&mut answer, &request.campaigns.display().to_string());
    let explanation = answer["explanations"]
        .as_array()
        .and_then(|all| all.iter().find(|e| e["rule_id"] == json!(id)))
        .cloned()
        .ok_or_else(|| ApiError::invalid(format!("campaign {id} was not evaluated")))?;
    let effects: Vec<Value> = answer["effects"]
        .as_array()
        .map(|effects| {
            effects
                .iter()
                .filter(|effect| effect["rule_id"] == json!(id))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    Ok((explanation, effects))
}

/// `value` with the campaigns folder written back where a scenario's
/// answer says `{{campaigns}}`.
fn restore_campaigns_folder(value: &mut Value, campaigns: &str) {
    match value {
        Value::String(text) => {
            if let Some(within) = text.strip_prefix("{{campaigns}}") {
                *text = format!("{}{within}", campaigns.trim_end_matches('/'));
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| restore_campaigns_folder(item, campaigns)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|item| restore_campaigns_folder(item, campaigns)),
        _ => {}
    }
}

/// The explanation as an author reads it.
fn describe(id: i64, explanation: &Value, effects: &[Value]) -> String {
    let mut said = String::new();
    let source = explanation["source"].as_str().unwrap_or_default();
    if explanation["applied"] == json!(true) {
        said.push_str(&format!("campaign {id} ({source}) applies:\n"));
        for effect in effects {
            said.push_str(&format!("  {effect}\n"));
        }
        return said;
    }
    said.push_str(&format!("campaign {id} ({source}) does not apply:\n"));
    said.push_str(&format!(
        "  {}\n",
        explanation["reason"].as_str().unwrap_or_default()
    ));
    let parts = explanation["parts"]
        .as_array()
        .filter(|parts| !parts.is_empty());
    if let (Some(at), None) = (explanation["at"].as_str(), parts) {
        said.push_str(&format!("  at {at}\n"));
    }
    for part in explanation["parts"].as_array().into_iter().flatten() {
        said.push_str(&format!(
            "  {}: `{}` was {}",
            part["at"].as_str().unwrap_or_default(),
            part["part"].as_str().unwrap_or_default(),
            part["was"]
        ));
        if let Some(line) = part["cart_line"].as_u64() {
            said.push_str(&format!(" on cart line {line}"));
        }
        said.push('\n');
        for (fact, value) in part["values"].as_object().into_iter().flatten() {
            said.push_str(&format!("      {fact} = {value}\n"));
        }
    }
    said
}
