//! The rules of every Company, loaded from the campaigns directory and
//! reloaded when a file changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use crate::engine::campaign::Campaign;
use crate::engine::script::RuleError;
use crate::engine::script::ScriptEngine;
use crate::resources::cashback::rules::CASHBACK_FILE;
use crate::resources::cashback::rules::Cashback;
use crate::resources::segments::rules::SEGMENTS_FILE;
use crate::resources::segments::rules::Segments;

/// The compiled rules of one Company.
#[derive(Debug, Clone, Default)]
pub struct CompanyRules {
    /// Tiers, audiences and calculated attributes.
    pub segments: Segments,
    /// Campaigns, by ascending id.
    pub campaigns: Vec<Campaign>,
    /// Points-to-wallet conversion (`cashback.yaml`).
    pub cashback: Cashback,
    /// How many days of purchases the expressions look back at through
    /// `history`; `None` when none does, so no purchase list is read.
    pub history_days: Option<i64>,
}

/// Longest look-back when an expression's window is not a literal number.
const MAX_HISTORY_DAYS: i64 = 3650;

/// The look-back, in days, of the `history` calls in `sources`.
fn history_days<'a>(sources: impl Iterator<Item = &'a str>) -> Option<i64> {
    let mut days: Option<i64> = None;
    for source in sources {
        for (index, _) in source.match_indices("history.") {
            let call = &source[index + "history.".len()..];
            let window = if call.starts_with("days_since") {
                MAX_HISTORY_DAYS
            } else {
                call.split_once('(')
                    .and_then(|(_, rest)| rest.split_once(')'))
                    .and_then(|(argument, _)| argument.trim().parse::<i64>().ok())
                    .map_or(MAX_HISTORY_DAYS, |n| n.clamp(0, MAX_HISTORY_DAYS))
            };
            days = Some(days.map_or(window, |d| d.max(window)));
        }
    }
    days
}

/// Every Company's rules, swapped atomically on reload.
#[derive(Debug)]
pub struct Catalog {
    engine: ScriptEngine,
    dir: PathBuf,
    loaded: RwLock<Loaded>,
}

#[derive(Debug, Default)]
struct Loaded {
    /// What evaluation sees: each Company's file rules with its API campaigns.
    companies: HashMap<String, Arc<CompanyRules>>,
    /// Each Company's rules from its files alone.
    files: HashMap<String, Arc<CompanyRules>>,
    /// Campaigns created through the API, per Company.
    api: HashMap<String, Vec<Campaign>>,
    /// Each Company's files and their modification times as last read, to notice changes.
    stamps: HashMap<String, Vec<(PathBuf, Option<SystemTime>)>>,
    /// Companies whose rules never loaded, with why.
    failed: HashMap<String, Vec<RuleError>>,
}

/// The outcome of a (re)load.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Companies whose rules were (re)loaded.
    pub loaded: Vec<String>,
    /// Problems, with file and line; a file with problems keeps its previous version.
    pub errors: Vec<RuleError>,
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Loaded {
    /// Rebuilds what evaluation sees of `company`: its file rules plus its
    /// API campaigns, by id.
    fn combine(&mut self, company: &str) {
        let files = self.files.get(company).cloned().unwrap_or_default();
        let api = self.api.get(company).map(Vec::as_slice).unwrap_or_default();
        let combined = if api.is_empty() {
            files
        } else {
            let mut rules = (*files).clone();
            rules.campaigns.extend(api.iter().cloned());
            rules.campaigns.sort_by_key(|c| c.id);
            rules.history_days = history_days(
                rules
                    .segments
                    .sources()
                    .chain(rules.campaigns.iter().flat_map(Campaign::sources)),
            );
            Arc::new(rules)
        };
        self.companies.insert(company.to_string(), combined);
    }
}

impl Catalog {
    /// A catalog of the campaign directory `dir`, loaded now.
    pub fn load(dir: &Path) -> (Catalog, LoadReport) {
        let catalog = Catalog {
            engine: ScriptEngine::new(),
            dir: dir.to_path_buf(),
            loaded: RwLock::new(Loaded::default()),
        };
        let report = catalog.reload();
        (catalog, report)
    }

    /// An empty catalog (no campaign directory).
    pub fn empty() -> Catalog {
        Catalog {
            engine: ScriptEngine::new(),
            dir: PathBuf::new(),
            loaded: RwLock::new(Loaded::default()),
        }
    }

    /// The engine expressions are evaluated with.
    pub fn engine(&self) -> &ScriptEngine {
        &self.engine
    }

    /// The rules of `company` (empty when it has none).
    pub fn company(&self, company: &str) -> Arc<CompanyRules> {
        self.loaded
            .read()
            .ok()
            .and_then(|loaded| loaded.companies.get(company).cloned())
            .unwrap_or_default()
    }

    /// Replaces the campaigns `company` created through the API; evaluation
    /// sees them with the Company's file campaigns from now on.
    pub fn set_api_campaigns(&self, company: &str, campaigns: Vec<Campaign>) {
        if let Ok(mut loaded) = self.loaded.write() {
            loaded.api.insert(company.to_string(), campaigns);
            loaded.combine(company);
        }
    }

    /// The Companies that have campaigns created through the API.
    pub fn api_companies(&self) -> Vec<String> {
        self.loaded
            .read()
            .map(|loaded| loaded.api.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Why the rules of `company` never loaded, if they never did.
    pub fn failure(&self, company: &str) -> Option<Vec<RuleError>> {
        self.loaded.read().ok()?.failed.get(company).cloned()
    }

    /// Reloads every Company whose files changed since the last load. A
    /// Company's set is replaced whole or not at all: with any error, its
    /// previous set stays in force.
    pub fn reload(&self) -> LoadReport {
        let mut report = LoadReport::default();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return report;
        };
        let mut companies: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        companies.sort();
        for (company, dir) in companies {
            let files = yaml_files(&dir);
            let stamp: Vec<(PathBuf, Option<SystemTime>)> = files
                .iter()
                .map(|path| (path.clone(), modified(path)))
                .collect();
            let unchanged = self
                .loaded
                .read()
                .map(|l| l.stamps.get(&company) == Some(&stamp))
                .unwrap_or(false);
            if unchanged {
                continue;
            }
            let outcome = self.load_company(&files);
            let Ok(mut loaded) = self.loaded.write() else {
                continue;
            };
            loaded.stamps.insert(company.clone(), stamp);
            match outcome {
                Ok(rules) => {
                    loaded.failed.remove(&company);
                    loaded.files.insert(company.clone(), Arc::new(rules));
                    loaded.combine(&company);
                    report.loaded.push(company);
                }
                Err(errors) => {
                    if !loaded.companies.contains_key(&company) {
                        loaded.failed.insert(company.clone(), errors.clone());
                    }
                    report.errors.extend(errors);
                }
            }
        }
        report
    }

    /// Compiles one Company's files; all problems at once.
    fn load_company(&self, files: &[PathBuf]) -> Result<CompanyRules, Vec<RuleError>> {
        let mut errors = Vec::new();
        let mut segments = Segments::default();
        let mut cashback = Cashback::default();
        let mut campaign_files = Vec::new();
        for path in files {
            let text = match std::fs::read_to_string(path) {
                Ok(text) => text,
                Err(e) => {
                    errors.push(RuleError::new(path, 0, format!("cannot read: {e}")));
                    continue;
                }
            };
            if path.file_name().is_some_and(|name| name == SEGMENTS_FILE) {
                match Segments::parse(&self.engine, path, &text) {
                    Ok(parsed) => segments = parsed,
                    Err(mut problems) => errors.append(&mut problems),
                }
            } else if path.file_name().is_some_and(|name| name == CASHBACK_FILE) {
                match Cashback::parse(path, &text) {
                    Ok(parsed) => cashback = parsed,
                    Err(mut problems) => errors.append(&mut problems),
                }
            } else {
                campaign_files.push((path.clone(), text));
            }
        }
        let campaigns =
            Campaign::load_all(&self.engine, &campaign_files).unwrap_or_else(|mut problems| {
                errors.append(&mut problems);
                Vec::new()
            });
        if errors.is_empty() {
            let history_days = history_days(
                segments
                    .sources()
                    .chain(campaigns.iter().flat_map(Campaign::sources)),
            );
            Ok(CompanyRules {
                segments,
                campaigns,
                cashback,
                history_days,
            })
        } else {
            Err(errors)
        }
    }
}

/// Every `*.yaml` file under `dir`, recursively, in path order.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_edit_keeps_the_previous_rules_and_a_fix_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let company = dir.path().join("shop");
        std::fs::create_dir(&company).unwrap();
        let file = company.join(SEGMENTS_FILE);
        std::fs::write(
            &file,
            "tiers:\n  - id: silver\n    name: Silver\n    condition: lifetime_spend > 1.0\n",
        )
        .unwrap();
        let (catalog, report) = Catalog::load(dir.path());
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert_eq!(catalog.company("shop").segments.tiers.len(), 1);

        // Broken edit: reported, old rules stay.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(
            &file,
            "tiers:\n  - id: silver\n    name: Silver\n    condition: lifetime_spend >\n",
        )
        .unwrap();
        set_later_mtime(&file, 1);
        let report = catalog.reload();
        assert_eq!(report.errors.len(), 1);
        assert_eq!(report.errors[0].line, 4);
        assert_eq!(catalog.company("shop").segments.tiers.len(), 1);

        // Fixed edit with two tiers: loaded.
        std::fs::write(&file, "tiers:\n  - id: silver\n    name: Silver\n    condition: \"true\"\n  - id: gold\n    name: Gold\n    condition: \"false\"\n").unwrap();
        set_later_mtime(&file, 2);
        let report = catalog.reload();
        assert!(report.errors.is_empty());
        assert_eq!(catalog.company("shop").segments.tiers.len(), 2);
        assert!(catalog.company("nobody").segments.tiers.is_empty());
    }

    #[test]
    fn a_company_whose_set_never_loaded_is_recorded_with_its_errors() {
        let dir = tempfile::tempdir().unwrap();
        let company = dir.path().join("shop");
        std::fs::create_dir(&company).unwrap();
        std::fs::write(
            company.join("a.yaml"),
            "id: 1\nkind: points\nname: A\non: cart\npoints: { fixed: 5 }\n",
        )
        .unwrap();
        std::fs::write(
            company.join("b.yaml"),
            "id: 1\nkind: points\nname: B\non: cart\npoints: { fixed: 5 }\n",
        )
        .unwrap();
        let (catalog, report) = Catalog::load(dir.path());
        assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
        let failure = catalog.failure("shop").expect("recorded");
        assert!(failure[0].message.contains("already used"));
        assert!(catalog.company("shop").campaigns.is_empty());

        std::fs::write(
            company.join("b.yaml"),
            "id: 2\nkind: points\nname: B\non: cart\npoints: { fixed: 5 }\n",
        )
        .unwrap();
        set_later_mtime(&company.join("b.yaml"), 3);
        let report = catalog.reload();
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert!(catalog.failure("shop").is_none());
        assert_eq!(catalog.company("shop").campaigns.len(), 2);
    }

    #[test]
    fn the_history_window_is_the_longest_literal_look_back() {
        assert_eq!(history_days(["lifetime_spend > 1.0"].into_iter()), None);
        assert_eq!(
            history_days(
                ["history.spent_last_days(365) > 1.0 && history.carts_last_days(30) > 2"]
                    .into_iter()
            ),
            Some(365)
        );
        assert_eq!(
            history_days(["history.spent_last_days(calculated.n) > 1.0"].into_iter()),
            Some(MAX_HISTORY_DAYS)
        );
    }

    /// Filesystems with coarse timestamps could hide a quick rewrite.
    fn set_later_mtime(path: &Path, seconds: u64) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        let time = SystemTime::now() + std::time::Duration::from_secs(seconds);
        file.set_modified(time).unwrap();
    }
}
