//! The scenario file format (documented in `scenarios/README.md`).
//!
//! ```yaml
//! name: Coffee mornings take 10% off coffee
//! company: demo                    # a Company directory of the campaigns folder
//! clock: 2026-05-04T09:00:00Z      # the service's time; moves only on `advance`
//! seed: 7                          # Instant Win draws
//! time_zone: Europe/Madrid         # optional: the Company's time zone (default UTC)
//! currency: EUR                    # optional: the Company's currency (default EUR)
//! customers:
//!   ana: { email: ana@example.com, points: 100 }   # created first; "{{ana}}" is their id
//! campaigns:                       # optional: campaign files inline, instead of the folder
//!   double-points.yaml: { id: 900, kind: points, name: Double, on: cart, points: { per_amount: 2 } }
//! steps:
//!   - name: a morning cart
//!     post: /carts/realtime
//!     body: { customer_id: "{{ana}}", code: T1, lines: [...] }
//!     expect:
//!       status: 200
//!       body: { effects: [{ rule_id: 101, value: 0.36 }] }
//!   - post: /discounts/trigger
//!     body: { customer_id: "{{ana}}", coupon_id: 1000000 }
//!     save: { ana_code: code }     # "{{ana_code}}" is the answer's `code` from here on
//!   - advance: 3d                  # moves the clock
//!   - expire_points: true          # runs points expiry at the clock
//!   - assign_instant_win: { rule: 302, customers: [ana] }   # Targeted Delivery
//!   - force_draw: { rule: 301, prize: free_coffee }   # the next draw of 301 gives it
//!   - force_draw: { rule: 301, no_prize: true }       # ... or no prize
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::common::time::Timestamp;
use crate::engine::script::RuleError;
use crate::resources::instant_wins::rules::forced::ForcedPrize;

/// A parsed scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file it came from.
    pub file: PathBuf,
    /// What it proves.
    pub name: String,
    /// The Company whose campaign directory it runs against.
    pub company: String,
    /// Where the service's clock starts; `advance` steps move it.
    pub clock: Timestamp,
    /// Seed of the Instant Win draws.
    pub seed: u64,
    /// The Company's IANA time zone, when the scenario sets one.
    pub time_zone: Option<String>,
    /// The Company's currency, when the scenario sets one.
    pub currency: Option<String>,
    /// Customers created before the steps, by the name steps use: the body of
    /// POST /customers, plus `points` and `wallet` they start with, their
    /// `purchases` and the `tier` those reach (`scenarios::customers`).
    pub customers: BTreeMap<String, Value>,
    /// Campaign files written inline (file name → content), used instead of
    /// the Company's directory when given.
    pub campaigns: Option<BTreeMap<String, Value>>,
    /// Whether event answers keep every campaign's explanation (as
    /// `loyalty campaigns explain` reads them); a scenario file's keep only
    /// what its expectations name.
    pub keep_explanations: bool,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// One step and the line it starts on.
#[derive(Debug, Clone)]
pub struct Step {
    /// 1-based line of the step in its file.
    pub line: usize,
    /// What it does.
    pub action: Action,
}

/// What a step does.
#[derive(Debug, Clone)]
pub enum Action {
    /// An HTTP request and what its answer must be.
    Request {
        /// A name for reports.
        name: String,
        /// `GET`, `POST`, `PATCH`, `PUT` or `DELETE`.
        method: String,
        /// The path, with `{{customer}}` placeholders.
        path: String,
        /// The JSON body, with placeholders.
        body: Option<Value>,
        /// Extra headers.
        headers: BTreeMap<String, String>,
        /// The expected status (200 when unset).
        status: u16,
        /// The expected body, matched partially.
        expect: Option<Value>,
        /// Values of the answer later steps name: placeholder name → the
        /// answer's field (`code`, `voucher.code`).
        save: BTreeMap<String, String>,
    },
    /// Moves the clock forward by this many seconds.
    Advance(i64),
    /// Runs points expiry at the clock.
    ExpirePoints,
    /// Assigns a targeted Instant Win to Customers (by scenario name), as an
    /// operator does with `loyalty instant-wins assign`.
    AssignInstantWin {
        /// The Instant Win's id.
        rule: i64,
        /// Scenario names of the Customers.
        customers: Vec<String>,
    },
    /// The next draw of an Instant Win or game gives this prize.
    ForceDraw {
        /// The Instant Win's or game's id.
        rule: i64,
        /// What it gives.
        prize: ForcedPrize,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    name: String,
    #[serde(default = "demo")]
    company: String,
    clock: String,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    time_zone: Option<String>,
    #[serde(default)]
    currency: Option<String>,
    #[serde(default)]
    customers: BTreeMap<String, Value>,
    #[serde(default)]
    campaigns: Option<BTreeMap<String, Value>>,
    steps: Vec<StepFile>,
}

fn demo() -> String {
    "demo".to_string()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    get: Option<String>,
    #[serde(default)]
    post: Option<String>,
    #[serde(default)]
    patch: Option<String>,
    #[serde(default)]
    put: Option<String>,
    #[serde(default)]
    delete: Option<String>,
    #[serde(default)]
    body: Option<Value>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    expect: Option<ExpectFile>,
    #[serde(default)]
    save: BTreeMap<String, String>,
    #[serde(default)]
    advance: Option<String>,
    #[serde(default)]
    expire_points: Option<bool>,
    #[serde(default)]
    assign_instant_win: Option<AssignFile>,
    #[serde(default)]
    force_draw: Option<ForceFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ForceFile {
    rule: i64,
    #[serde(default)]
    prize: Option<String>,
    #[serde(default)]
    no_prize: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AssignFile {
    rule: i64,
    customers: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectFile {
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    body: Option<Value>,
}

/// Parses `3d`, `12h`, `30m` or `45s` into seconds.
fn duration(text: &str) -> Option<i64> {
    let text = text.trim();
    let (number, unit) = text.split_at(text.len().checked_sub(1)?);
    let number: i64 = number.trim().parse().ok()?;
    let seconds = match unit {
        "d" => 86_400,
        "h" => 3_600,
        "m" => 60,
        "s" => 1,
        _ => return None,
    };
    (number >= 0).then_some(number * seconds)
}

/// The 1-based lines where each item of the `steps:` list starts.
fn step_lines(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("steps:"))
    else {
        return Vec::new();
    };
    let indent = lines
        .iter()
        .skip(start + 1)
        .find(|l| l.trim_start().starts_with("- "))
        .map(|l| l.len() - l.trim_start().len());
    lines
        .iter()
        .enumerate()
        .skip(start + 1)
        .filter(|(_, l)| {
            Some(l.len() - l.trim_start().len()) == indent && l.trim_start().starts_with("- ")
        })
        .map(|(index, _)| index + 1)
        .collect()
}

impl Scenario {
    /// Parses the scenario in `text` (the content of `file`); every problem
    /// is reported with its line.
    pub fn parse(file: &Path, text: &str) -> Result<Scenario, Vec<RuleError>> {
        let parsed: ScenarioFile = serde_yaml::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            vec![RuleError::new(file, line, e.to_string()).with_column(column)]
        })?;
        let mut errors = Vec::new();
        let clock = parsed.clock.parse::<Timestamp>().unwrap_or_else(|_| {
            errors.push(RuleError::new(
                file,
                0,
                format!(
                    "clock `{}` is not a DateTime such as 2026-01-31T00:00:00Z",
                    parsed.clock
                ),
            ));
            Timestamp::now()
        });
        let lines = step_lines(text);
        let mut steps = Vec::new();
        for (index, step) in parsed.steps.into_iter().enumerate() {
            let line = lines.get(index).copied().unwrap_or(0);
            let requests = [
                ("GET", step.get),
                ("POST", step.post),
                ("PATCH", step.patch),
                ("PUT", step.put),
                ("DELETE", step.delete),
            ]
            .into_iter()
            .filter_map(|(method, path)| path.map(|p| (method, p)))
            .collect::<Vec<_>>();
            if let Some(force) = step.force_draw {
                let alone = requests.is_empty()
                    && step.advance.is_none()
                    && step.expire_points.is_none()
                    && step.assign_instant_win.is_none();
                let prize = match (force.prize, force.no_prize) {
                    (Some(prize), false) => Some(ForcedPrize::Prize(prize)),
                    (None, true) => Some(ForcedPrize::NoPrize),
                    _ => None,
                };
                match prize.filter(|_| alone) {
                    Some(prize) => steps.push(Step {
                        line,
                        action: Action::ForceDraw {
                            rule: force.rule,
                            prize,
                        },
                    }),
                    None => errors.push(RuleError::new(
                        file,
                        line,
                        "`force_draw` is a step of its own, with `rule` and either `prize: ID` or `no_prize: true`",
                    )),
                }
                continue;
            }
            let action = match (
                requests.as_slice(),
                step.advance,
                step.expire_points,
                step.assign_instant_win,
            ) {
                ([(method, path)], None, None, None) => {
                    let expect = step.expect.unwrap_or(ExpectFile {
                        status: None,
                        body: None,
                    });
                    Action::Request {
                        name: step.name.unwrap_or_else(|| format!("{method} {path}")),
                        method: method.to_string(),
                        path: path.clone(),
                        body: step.body,
                        headers: step.headers,
                        status: expect.status.unwrap_or(200),
                        expect: expect.body,
                        save: step.save,
                    }
                }
                ([], None, None, Some(assign)) => Action::AssignInstantWin {
                    rule: assign.rule,
                    customers: assign.customers,
                },
                ([], Some(advance), None, None) => match duration(&advance) {
                    Some(seconds) => Action::Advance(seconds),
                    None => {
                        errors.push(RuleError::new(
                            file,
                            line,
                            format!(
                                "advance `{advance}` is a duration such as 3d, 12h, 30m or 45s"
                            ),
                        ));
                        continue;
                    }
                },
                ([], None, Some(true), None) => Action::ExpirePoints,
                _ => {
                    errors.push(RuleError::new(
                        file,
                        line,
                        "a step is one request (get, post, patch, put or delete), an `advance`, `expire_points: true`, `assign_instant_win` or `force_draw`",
                    ));
                    continue;
                }
            };
            steps.push(Step { line, action });
        }
        if errors.is_empty() {
            Ok(Scenario {
                file: file.to_path_buf(),
                name: parsed.name,
                company: parsed.company,
                clock,
                seed: parsed.seed,
                time_zone: parsed.time_zone,
                currency: parsed.currency,
                customers: parsed.customers,
                campaigns: parsed.campaigns,
                keep_explanations: false,
                steps,
            })
        } else {
            Err(errors)
        }
    }

    /// Every scenario file (`*.yaml` but `README`) under `paths`, recursively, sorted.
    pub fn files(paths: &[PathBuf]) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut pending: Vec<PathBuf> = paths.to_vec();
        while let Some(path) = pending.pop() {
            if path.is_dir() {
                if let Ok(entries) = std::fs::read_dir(&path) {
                    pending.extend(entries.flatten().map(|e| e.path()));
                }
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                found.push(path);
            }
        }
        found.sort();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_keep_their_lines_and_durations() {
        let text = "name: N\nclock: 2026-01-01T00:00:00Z\nsteps:\n  - post: /custom_events\n    body: { type: x }\n  - advance: 2d\n  - expire_points: true\n  - name: read\n    get: /check\n    expect: { status: 200 }\n";
        let scenario = Scenario::parse(Path::new("s.yaml"), text).unwrap();
        let lines: Vec<usize> = scenario.steps.iter().map(|s| s.line).collect();
        assert_eq!(lines, [4, 6, 7, 8]);
        assert!(matches!(scenario.steps[1].action, Action::Advance(172_800)));
        assert_eq!(scenario.company, "demo");
    }

    #[test]
    fn problems_name_their_line() {
        let text = "name: N\nclock: 2026-01-01T00:00:00Z\nsteps:\n  - advance: soon\n  - get: /a\n    post: /b\n";
        let errors: Vec<String> = Scenario::parse(Path::new("s.yaml"), text)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(errors[0].starts_with("s.yaml:4:"), "{errors:?}");
        assert!(errors[1].starts_with("s.yaml:5:"), "{errors:?}");
    }
}
