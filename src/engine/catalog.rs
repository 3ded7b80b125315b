//! The rules of every Company, loaded through a
//! [`crate::engine::loader::CampaignLoader`] and reloaded when a file changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::engine::campaign::Campaign;
use crate::engine::check::Known;
use crate::engine::check::check_segments;
use crate::engine::held_back::HeldBack;
use crate::engine::loader::CampaignLoader;
use crate::engine::loader::MemoryLoader;
use crate::engine::loader::Stamp;
use crate::engine::loader::files::FileSystemLoader;
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
    loader: Box<dyn CampaignLoader>,
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
    stamps: HashMap<String, Vec<(PathBuf, Stamp)>>,
    /// Companies whose rules never loaded, with why.
    failed: HashMap<String, Vec<RuleError>>,
    /// Companies whose last reload was held back, with what it held back.
    held_back: HashMap<String, HeldBack>,
}

/// The outcome of a (re)load.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Companies whose rules were (re)loaded.
    pub loaded: Vec<String>,
    /// Problems, with file and line.
    pub errors: Vec<RuleError>,
    /// The Companies whose set was held back (a Company's files load
    /// together or not at all), with what stays in force.
    pub held_back: Vec<HeldBack>,
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
        Catalog::with_loader(Box::new(FileSystemLoader::new(dir)))
    }

    /// A catalog of the files `loader` gives, loaded now.
    pub fn with_loader(loader: Box<dyn CampaignLoader>) -> (Catalog, LoadReport) {
        let catalog = Catalog {
            engine: ScriptEngine::new(),
            loader,
            loaded: RwLock::new(Loaded::default()),
        };
        let report = catalog.reload();
        (catalog, report)
    }

    /// An empty catalog (no campaign files).
    pub fn empty() -> Catalog {
        Catalog {
            engine: ScriptEngine::new(),
            loader: Box::new(MemoryLoader::new()),
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

    /// What the last reload of `company` held back, when it held its set
    /// back (it has problems that are not fixed yet).
    pub fn held_back(&self, company: &str) -> Option<HeldBack> {
        self.loaded.read().ok()?.held_back.get(company).cloned()
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
        for company in self.loader.companies() {
            let stamp = self.loader.files(&company);
            let unchanged = self
                .loaded
                .read()
                .map(|l| l.stamps.get(&company) == Some(&stamp))
                .unwrap_or(false);
            if unchanged {
                continue;
            }
            let files: Vec<PathBuf> = stamp.iter().map(|(path, _)| path.clone()).collect();
            let outcome = self.load_company(&files);
            let Ok(mut loaded) = self.loaded.write() else {
                continue;
            };
            loaded.stamps.insert(company.clone(), stamp);
            match outcome {
                Ok(rules) => {
                    loaded.failed.remove(&company);
                    loaded.held_back.remove(&company);
                    loaded.files.insert(company.clone(), Arc::new(rules));
                    loaded.combine(&company);
                    report.loaded.push(company);
                }
                Err(errors) => {
                    if !loaded.companies.contains_key(&company) {
                        loaded.failed.insert(company.clone(), errors.clone());
                    }
                    let held = HeldBack {
                        company: company.clone(),
                        files,
                        problems: errors.clone(),
                        previous_campaigns: loaded
                            .files
                            .get(&company)
                            .map(|rules| rules.campaigns.len()),
                    };
                    loaded.held_back.insert(company.clone(), held.clone());
                    report.held_back.push(held);
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
            let text = match self.loader.read(path) {
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
        // Conditions are checked against the tiers and audiences of the
        // Company's segments, when they load.
        let known = errors.is_empty().then(|| Known::of(&segments));
        if known.is_some() {
            errors.extend(check_segments(&segments, self.engine.functions()));
        }
        let campaigns = Campaign::load_all_checked(&self.engine, &campaign_files, known.as_ref())
            .unwrap_or_else(|mut problems| {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalog of `files`, which the test goes on editing.
    fn catalog_of(files: &Arc<MemoryLoader>) -> (Catalog, LoadReport) {
        Catalog::with_loader(Box::new(files.clone()))
    }

    #[test]
    fn a_broken_edit_keeps_the_previous_rules_and_a_fix_reloads() {
        let files = Arc::new(MemoryLoader::new());
        let file = Path::new("shop").join(SEGMENTS_FILE);
        files.write(
            &file,
            "tiers:\n  - id: silver\n    name: Silver\n    condition: lifetime_spend > 1.0\n",
        );
        let (catalog, report) = catalog_of(&files);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert_eq!(catalog.company("shop").segments.tiers.len(), 1);

        // Broken edit: reported, old rules stay.
        files.write(
            &file,
            "tiers:\n  - id: silver\n    name: Silver\n    condition: lifetime_spend >\n",
        );
        let report = catalog.reload();
        assert_eq!(report.errors.len(), 1);
        assert_eq!(report.errors[0].line, 4);
        assert_eq!(catalog.company("shop").segments.tiers.len(), 1);

        // Nothing changed: nothing reloaded.
        assert!(catalog.reload().loaded.is_empty());

        // A valid edit to another file waits with the rest of the set, and
        // the reload says so.
        let points = Path::new("shop").join("points.yaml");
        files.write(
            &points,
            "id: 1\nkind: points\nname: P\non: cart\npoints: { fixed: 5 }\n",
        );
        let report = catalog.reload();
        assert!(catalog.company("shop").campaigns.is_empty());
        let held = &report.held_back[0];
        assert_eq!(held.files.len(), 2);
        assert_eq!(held.files_with_problems(), std::slice::from_ref(&file));
        assert_eq!(held.previous_campaigns, Some(0));
        assert!(
            held.summary().contains(
                "1 problem(s) in 1 of its 2 files (shop/segments.yaml); the whole set is held back: the previous version of the set (0 campaigns) stays in force, and edits to its other files wait"
            ),
            "{}",
            held.summary()
        );
        assert_eq!(catalog.held_back("shop").as_ref(), Some(held));

        // Fixed edit with two tiers: loaded, the other file's edit with it.
        files.write(&file, "tiers:\n  - id: silver\n    name: Silver\n    condition: \"true\"\n  - id: gold\n    name: Gold\n    condition: \"false\"\n");
        let report = catalog.reload();
        assert!(report.errors.is_empty());
        assert!(report.held_back.is_empty() && catalog.held_back("shop").is_none());
        assert_eq!(catalog.company("shop").campaigns.len(), 1);
        assert_eq!(catalog.company("shop").segments.tiers.len(), 2);
        assert!(catalog.company("nobody").segments.tiers.is_empty());
    }

    #[test]
    fn a_company_whose_set_never_loaded_is_recorded_with_its_errors() {
        let files = Arc::new(MemoryLoader::new());
        files.write(
            "shop/a.yaml",
            "id: 1\nkind: points\nname: A\non: cart\npoints: { fixed: 5 }\n",
        );
        files.write(
            "shop/b.yaml",
            "id: 1\nkind: points\nname: B\non: cart\npoints: { fixed: 5 }\n",
        );
        let (catalog, report) = catalog_of(&files);
        assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
        let failure = catalog.failure("shop").expect("recorded");
        assert!(failure[0].message.contains("already used"));
        assert!(catalog.company("shop").campaigns.is_empty());

        files.write(
            "shop/b.yaml",
            "id: 2\nkind: points\nname: B\non: cart\npoints: { fixed: 5 }\n",
        );
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
}
