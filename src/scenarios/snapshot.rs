//! Snapshot files of scenario answers: the ones `cargo test` checks with
//! insta (`tests/snapshots/scenarios__scenario_<name>.snap`). `loyalty
//! scenarios run` compares a scenario's answers with its snapshot, so an
//! author sees exactly which answer a campaign change moved, and `--update`
//! rewrites them.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::scenarios::matching::mismatch;
use crate::scenarios::run::ScenarioReport;

/// The snapshot file of `scenario` in `dir`.
pub fn snapshot_path(dir: &Path, scenario: &Path) -> PathBuf {
    let stem = scenario
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    dir.join(format!("scenarios__scenario_{stem}.snap"))
}

/// The answers of a report as a snapshot records them.
pub fn answers(report: &ScenarioReport) -> Value {
    Value::Array(
        report
            .answers
            .iter()
            .map(|(step, status, body)| json!({"step": step, "status": status, "body": body}))
            .collect(),
    )
}

/// The snapshot file's text for `answers`, as insta writes it.
pub fn render(answers: &Value) -> String {
    let body = serde_json::to_string_pretty(answers).unwrap_or_default();
    format!("---\nsource: tests/scenarios.rs\nexpression: answers\n---\n{body}\n")
}

/// The answers a snapshot file holds.
pub fn read(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    let body = text.splitn(3, "---\n").nth(2)?;
    serde_json::from_str(body).ok()
}

/// Which answer differs from the snapshot, and how; `None` when all match.
pub fn changes(recorded: &Value, current: &Value) -> Option<String> {
    let (Some(recorded), Some(current)) = (recorded.as_array(), current.as_array()) else {
        return Some("the snapshot is not a list of answers".into());
    };
    for (index, now) in current.iter().enumerate() {
        let step = now["step"].as_str().unwrap_or_default();
        let Some(before) = recorded.get(index) else {
            return Some(format!("step `{step}` is new"));
        };
        if before == now {
            continue;
        }
        let how = mismatch(before, now)
            .or_else(|| mismatch(now, before).map(|m| format!("{m} (now in the answer)")))
            .unwrap_or_else(|| "the answer changed".into());
        return Some(format!("step `{step}`: {how}"));
    }
    (recorded.len() > current.len()).then(|| "steps were removed".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_snapshot_reads_back_and_changes_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = snapshot_path(dir.path(), Path::new("scenarios/demo/x.yaml"));
        assert!(path.ends_with("scenarios__scenario_x.snap"));
        let recorded = json!([{"step": "a", "status": 200, "body": {"points": 5}}]);
        std::fs::write(&path, render(&recorded)).unwrap();
        assert_eq!(read(&path), Some(recorded.clone()));
        assert_eq!(changes(&recorded, &recorded), None);
        let now = json!([{"step": "a", "status": 200, "body": {"points": 7}}]);
        assert_eq!(
            changes(&recorded, &now).as_deref(),
            Some("step `a`: .body.points is 7, not 5")
        );
    }
}
